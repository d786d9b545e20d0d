package pysparkext.parquet

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.VersionParser
import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.column.page.PageReadStore
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.{GroupType, MessageType, Type}

import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.execution.datasources.{DataSourceUtils, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.VectorizedColumnReader
import org.apache.spark.sql.execution.vectorized.{ColumnVectorUtils, ConstantColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import pysparkext.parquet.RowGroups.FilterSettings

/**
 * Reads the primitive leaves of one Parquet file split into batches shaped like `schema`, each
 * leaf decoded as a top-level column would be (see [[LeafColumnsReader.readBatch]]): values and leaf nulls
 * are exact, but the struct vectors above the leaves are left all non-null. The file's partition
 * values follow as constant vectors, one per column of `partitionSchema`, as Spark's vectorized
 * reader appends them (its `vectorTypes` for a partitioned scan say `ConstantColumnVector`). Only consumers that
 * read leaves alone (a [[NestedLeafColumnsExec]] whose every use is a leaf) may see these
 * batches; for them this skips Spark's per-level assembly of struct nulls, which is most of what
 * a deep leaf costs over a flat column.
 *
 * Opened by [[LeafColumnsReader.open]], which chooses row groups as Spark's reader chooses them:
 * the split's range, the pushed filters on statistics, dictionaries and the column index, with
 * the file's own datetime rebase mode.
 */
final class LeafColumnsReader private (
    reader: ParquetFileReader,
    descriptors: Seq[Option[ColumnDescriptor]],
    schema: StructType,
    partitionSchema: StructType,
    partitionValues: org.apache.spark.sql.catalyst.InternalRow,
    leaves: Seq[LeafPath],
    datetimeRebase: RebaseSpec,
    int96Rebase: RebaseSpec,
    writerVersion: VersionParser.ParsedVersion,
    capacity: Int) extends Iterator[ColumnarBatch] with java.io.Closeable {

  private val columns: Array[OnHeapColumnVector] = OnHeapColumnVector.allocateColumns(capacity, schema)
  private val vectors: Seq[WritableColumnVector] = leaves.map { l =>
    l.ordinals.foldLeft(columns(l.column): WritableColumnVector)((v, o) => v.getChild(o))
  }
  // Filled once: a constant vector answers every row with its one value.
  private val partitionColumns: Array[ConstantColumnVector] = partitionSchema.fields.indices.map { i =>
    val v = new ConstantColumnVector(capacity, partitionSchema(i).dataType)
    ColumnVectorUtils.populate(v, partitionValues, i)
    v
  }.toArray
  private val batch = new ColumnarBatch(
    columns.map(c => c: org.apache.spark.sql.vectorized.ColumnVector) ++ partitionColumns)
  private var readers: Seq[Option[VectorizedColumnReader]] = Nil
  private var rowsLeftInGroup = 0L
  private var done = false

  override def hasNext: Boolean = {
    while (!done && rowsLeftInGroup == 0) {
      val pages = reader.readNextFilteredRowGroup()
      if (pages == null) done = true else startGroup(pages)
    }
    !done
  }

  private def startGroup(pages: PageReadStore): Unit = {
    rowsLeftInGroup = pages.getRowCount
    readers = descriptors.map(_.map(d => SparkInternals.columnReader(d,
      d.getMaxDefinitionLevel == 0, pages, null, datetimeRebase.mode.toString,
      datetimeRebase.timeZone, int96Rebase.mode.toString, int96Rebase.timeZone, writerVersion)))
  }

  override def next(): ColumnarBatch = {
    if (!hasNext) throw new NoSuchElementException
    val rows = math.min(capacity.toLong, rowsLeftInGroup).toInt
    columns.foreach(_.reset())
    var i = 0
    while (i < vectors.length) {
      readers(i) match {
        case Some(r) => SparkInternals.readTopLevel(r, rows, vectors(i))
        case None => vectors(i).putNulls(0, rows)
      }
      i += 1
    }
    rowsLeftInGroup -= rows
    batch.setNumRows(rows)
    batch
  }

  // Spark's file scan closes a Closeable iterator as soon as it moves to the next file; the
  // task-completion listener closes it again, or closes it if the task ends early.
  private var closed = false
  override def close(): Unit = if (!closed) {
    closed = true
    reader.close()
    partitionColumns.foreach(_.close())
  }
}

object LeafColumnsReader {
  /**
   * The reader of `file`'s split, or None where some leaf's path in the file is not a plain chain
   * of groups to a primitive (then Spark's own reader must read the file). Nothing but the
   * footer is read before that is known. A group annotated as VARIANT is such a group only when
   * `variantGroupsAsStructs` (the scan reads them as structs); else Spark's reader reads the file,
   * and rejects the struct read as it does without this reader.
   */
  def open(
      file: PartitionedFile,
      conf: Configuration,
      schema: StructType,
      partitionSchema: StructType,
      leaves: Seq[LeafPath],
      filters: Seq[Filter],
      settings: FilterSettings,
      rebaseModes: (String, String),
      capacity: Int,
      variantGroupsAsStructs: Boolean): Option[LeafColumnsReader] = {
    val inputFile = HadoopInputFile.fromPath(file.toPath, conf)
    val footer = ParquetFooters.readSplit(inputFile, file, conf)
    val meta = footer.getFileMetaData
    val fileSchema = meta.getSchema
    val found = leaves.map(l =>
      column(fileSchema, l.names(schema), settings.caseSensitive, variantGroupsAsStructs))
    if (!found.forall(_.isDefined)) return None
    val descriptors = found.map(_.flatten)
    val keyValues = meta.getKeyValueMetaData
    val datetimeRebase = DataSourceUtils.datetimeRebaseSpec(k => keyValues.get(k), rebaseModes._1)
    val int96Rebase = DataSourceUtils.int96RebaseSpec(k => keyValues.get(k), rebaseModes._2)
    val options = HadoopReadOptions.builder(conf, file.toPath)
      .withRange(file.start, file.start + file.length)
    settings.predicate(fileSchema, filters, datetimeRebase)
      .foreach(p => options.withRecordFilter(FilterCompat.get(p)))
    val reader = SparkInternals.openParquetFile(inputFile, footer, options.build())
    // The requested schema is the file's, cut to the leaves' paths.
    reader.setRequestedSchema(project(fileSchema, descriptors.flatten.map(_.getPath.toList)))
    val writerVersion = Try(VersionParser.parse(meta.getCreatedBy)).getOrElse(null)
    Some(new LeafColumnsReader(reader, descriptors, schema, partitionSchema, file.partitionValues,
      leaves, datetimeRebase, int96Rebase, writerVersion, capacity))
  }

  /**
   * The leaf at `names`, matched as Spark matches names (case-insensitively unless told not to):
   * Some(column), Some(None) where the file lacks it (it reads as null), None where the file's
   * path is not a plain chain of groups to a primitive (a group annotated as VARIANT is one of
   * its groups only if `variantGroupsAsStructs`).
   */
  private def column(
      fileSchema: MessageType,
      names: Seq[String],
      caseSensitive: Boolean,
      variantGroupsAsStructs: Boolean): Option[Option[ColumnDescriptor]] = {
    def plainGroup(t: Type): Boolean = Option(t.getLogicalTypeAnnotation).forall(a =>
      variantGroupsAsStructs && a.getClass.getSimpleName.contains("Variant"))
    def field(group: GroupType, name: String): Option[Type] =
      if (group.containsField(name)) Some(group.getType(name))
      else if (caseSensitive) None
      else {
        val matches = (0 until group.getFieldCount).map(group.getType).filter(_.getName.equalsIgnoreCase(name))
        if (matches.length > 1) None // ambiguous: Spark's reader raises its own error
        else matches.headOption
      }
    def find(group: GroupType, rest: Seq[String], path: List[String]): Option[Option[List[String]]] =
      field(group, rest.head) match {
        case None => Some(None)
        case Some(t) if t.isRepetition(Type.Repetition.REPEATED) || !t.isPrimitive && !plainGroup(t) => None
        case Some(t) if rest.length == 1 => if (t.isPrimitive) Some(Some(path :+ t.getName)) else None
        case Some(t) if t.isPrimitive => None
        case Some(t) => find(t.asGroupType(), rest.tail, path :+ t.getName)
      }
    find(fileSchema, names, Nil).map(_.map(p => fileSchema.getColumnDescription(p.toArray)))
  }

  private def project(message: MessageType, paths: Seq[List[String]]): MessageType = {
    def cut(group: GroupType, paths: Seq[List[String]]): Seq[Type] =
      paths.groupBy(_.head).toSeq.sortBy { case (n, _) => group.getFieldIndex(n) }.map {
        case (name, ps) =>
          val t = group.getType(name)
          if (t.isPrimitive) t else t.asGroupType().withNewFields(cut(t.asGroupType(), ps.map(_.tail)): _*)
      }
    new MessageType(message.getName, cut(message, paths): _*)
  }
}

/** A primitive leaf of a scan's schema: its top-level column and the field ordinals below it. */
final case class LeafPath(column: Int, ordinals: Seq[Int]) {
  /** The field names from the top-level column down to the leaf. */
  def names(schema: StructType): Seq[String] =
    ordinals.scanLeft(schema(column).dataType -> schema(column).name) {
      case ((s: StructType, _), o) => s(o).dataType -> s(o).name
      case (other, _) => other
    }.map(_._2)

  /**
   * Whether every struct from the column down to the leaf is a Parquet group. Spark's variant
   * push-down reads a VARIANT column as a struct of the values it extracts from the variant
   * binary (fields marked with `VariantMetadata`); those fields are no columns of the file.
   */
  def stored(schema: StructType): Boolean =
    ordinals.foldLeft(Option(schema(column).dataType)) {
      case (Some(s: StructType), o) if o < s.length && !SparkInternals.isVariantStruct(s) =>
        Some(s(o).dataType)
      case _ => None
    }.isDefined

  /** The leaf's type, or None if the ordinals do not lead through structs of `schema`. */
  def dataType(schema: StructType): Option[DataType] =
    ordinals.foldLeft(Option(schema(column).dataType)) {
      case (Some(s: StructType), o) if o < s.length => Some(s(o).dataType)
      case _ => None
    }
}
