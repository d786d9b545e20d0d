package pysparkext.parquet

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.HadoopConfShipping
import org.apache.spark.sql.pysparkext.shims.VariantHalfShim
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType, UserDefinedType}

import pysparkext.parquet.RowGroups.FilterSettings

/**
 * A Parquet format for scans whose every use is a primitive leaf (see [[NestedLeavesAsColumns]]):
 * it reads just those `leaves` with a [[LeafColumnsReader]], one flat column decode per leaf.
 * Partition values follow the leaves as constant vectors, as Spark's vectorized reader appends
 * them. Anything that reader does not cover is read by `delegate` exactly as before: off-heap
 * vectors, INT96 conversion, field-id matching, leaves that Spark's variant
 * push-down extracts from a variant binary (not stored as columns), and files where a leaf's path
 * is not a plain chain of groups to a primitive. A path through a group annotated with Parquet's
 * VARIANT logical type counts as a chain of groups only where the scan reads such groups as
 * structs (`spark.sql.parquet.ignoreVariantAnnotation` set for it, or the delegate being
 * [[VariantGroupsAsStructsParquetFormat]], which sets it for its own reader); elsewhere Spark's
 * vectorized reader rejects the struct read of a VARIANT group, and so must this format.
 */
class LeafColumnsParquetFormat(delegate: ParquetFileFormat, val leaves: Seq[LeafPath])
  extends DelegatingParquetFormat(delegate) {

  override protected def readerFor(request: ReaderRequest): PartitionedFile => Iterator[InternalRow] = {
    val readFile = innerReader(request)
    val ReaderRequest(sparkSession, _, partitionSchema, requiredSchema, filters, options, hadoopConf) = request
    val sql = SQLConf.get
    val supported = !sql.offHeapColumnVectorEnabled &&
      !sql.isParquetINT96TimestampConversion && !sql.parquetFieldIdReadEnabled &&
      LeafColumnsParquetFormat.areColumns(leaves, requiredSchema)
    if (!supported) return readFile
    val conf = HadoopConfShipping.ship(sparkSession.sparkContext, hadoopConf)
    val settings = FilterSettings.current
    val rebase = (sql.getConf(SQLConf.PARQUET_REBASE_MODE_IN_READ).toString,
      sql.getConf(SQLConf.PARQUET_INT96_REBASE_MODE_IN_READ).toString)
    val capacity = sql.parquetVectorizedReaderBatchSize
    val paths = leaves
    // The delegate's own checks, which this reader would bypass.
    val checkListed = delegate.isInstanceOf[ListedFilesParquetFormat]
    val unplanned = ListedFilesParquetFormat.unplanned(options)
    val variantGroupsAsStructs = VariantHalfShim.isVariantGroupsFormat(delegate) ||
      VariantHalfShim.readsVariantGroupsAsStructs(hadoopConf)
    // The delegate's row-group selection too, around this reader (a split it falls back on is
    // judged again there, and keeps all its row groups).
    val selection = if (RowGroupSelection.selects(this)) Some(RowGroupSelection.Settings.current) else None
    (file: PartitionedFile) => {
      val c = conf()
      if (checkListed) ListedFilesParquetFormat.checkUnchanged(file, c, unplanned)
      def readSplit(split: PartitionedFile): Iterator[InternalRow] =
        LeafColumnsReader.open(split, c, requiredSchema, partitionSchema, paths, filters, settings,
            rebase, capacity, variantGroupsAsStructs) match {
          case Some(reader) =>
            Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => reader.close()))
            reader.asInstanceOf[Iterator[InternalRow]]
          case None => readFile(split)
        }
      selection match {
        case Some(s) => RowGroupSelection.readKept(file, c, filters, s)(readSplit)
        case None => readSplit(file)
      }
    }
  }

  override def toString: String = s"$delegate, leaf columns"

  override def equals(other: Any): Boolean = other match {
    case f: LeafColumnsParquetFormat => f.delegate == delegate && f.leaves == leaves
    case _ => false
  }
  override def hashCode(): Int = delegate.hashCode() * 31 + leaves.hashCode()
}

object LeafColumnsParquetFormat {
  /** Types a Parquet primitive column holds. */
  def isPrimitive(t: DataType): Boolean = t match {
    case _: StructType | _: ArrayType | _: MapType | _: UserDefinedType[_] => false
    case t if VariantHalfShim.isVariantType(t) => false
    case _ => true
  }

  /** Whether each leaf is a primitive column the files store (see [[LeafPath.stored]]). */
  def areColumns(leaves: Seq[LeafPath], schema: StructType): Boolean =
    leaves.forall(l => l.stored(schema) && l.dataType(schema).exists(isPrimitive))
}
