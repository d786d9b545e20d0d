package pysparkext.scan

import scala.util.Try

import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.VersionParser
import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.column.page.PageReadStore
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.filter2.predicate.FilterApi
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.{GroupType, MessageType, Type}
import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.execution.datasources.{DataSourceUtils, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFilters, ParquetFooterReader, VectorizedColumnReader}
import org.apache.spark.sql.execution.vectorized.{OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.ColumnarBatch

import pysparkext.report.RowGroups.FilterSettings

/**
 * Reads the primitive leaves of one Parquet file split into batches shaped like `schema`, each
 * leaf decoded as a top-level column would be (see [[LeafColumnsReader.readBatch]]): values and leaf nulls
 * are exact, but the struct vectors above the leaves are left all non-null. Only consumers that
 * read leaves alone (a [[NestedLeafColumnsExec]] whose every use is a leaf) may see these
 * batches; for them this skips Spark's per-level assembly of struct nulls, which is most of what
 * a deep leaf costs over a flat column.
 *
 * Row groups are chosen as Spark's reader chooses them: the split's range, the pushed filters on
 * statistics, dictionaries and the column index, with the file's own datetime rebase mode.
 */
final class LeafColumnsReader(
    file: PartitionedFile,
    conf: Configuration,
    schema: StructType,
    leaves: Seq[LeafPath],
    filters: Seq[Filter],
    settings: FilterSettings,
    rebaseModes: (String, String),
    capacity: Int) extends Iterator[ColumnarBatch] with AutoCloseable {

  private val inputFile = HadoopInputFile.fromPath(file.toPath, conf)
  private val footer = ParquetFooterReader.readFooter(inputFile,
    ParquetFooterReader.buildFilter(conf, file, false))
  private val keyValues = footer.getFileMetaData.getKeyValueMetaData
  private val datetimeRebase: RebaseSpec =
    DataSourceUtils.datetimeRebaseSpec(k => keyValues.get(k), rebaseModes._1)
  private val int96Rebase: RebaseSpec =
    DataSourceUtils.int96RebaseSpec(k => keyValues.get(k), rebaseModes._2)
  private val fileSchema: MessageType = footer.getFileMetaData.getSchema

  private val reader: ParquetFileReader = {
    val options = HadoopReadOptions.builder(conf, file.toPath)
      .withRange(file.start, file.start + file.length)
    if (settings.pushDown) {
      val convert = new ParquetFilters(fileSchema, settings.date, settings.timestamp,
        settings.decimal, settings.stringPredicate, settings.inThreshold, settings.caseSensitive,
        datetimeRebase, None)
      filters.flatMap(convert.createFilter(_)).reduceOption(FilterApi.and(_, _))
        .foreach(p => options.withRecordFilter(FilterCompat.get(p)))
    }
    ParquetFileReader.open(inputFile, footer, options.build(), inputFile.newStream())
  }

  private val writerVersion = Try(VersionParser.parse(footer.getFileMetaData.getCreatedBy))
    .getOrElse(null)
  /** Per leaf, its column in this file (None: the file lacks it, so it reads as null). */
  private lazy val found = leaves.map(l => descriptor(l.names))
  private lazy val descriptors: Seq[Option[ColumnDescriptor]] = found.map(_.flatten)

  private val columns: Array[OnHeapColumnVector] = OnHeapColumnVector.allocateColumns(capacity, schema)
  private val vectors: Seq[WritableColumnVector] = leaves.map { l =>
    l.ordinals.foldLeft(columns(l.column): WritableColumnVector)((v, o) => v.getChild(o))
  }
  private val batch = new ColumnarBatch(columns.map(c => c: org.apache.spark.sql.vectorized.ColumnVector))
  private var readers: Seq[Option[VectorizedColumnReader]] = Nil
  private var rowsLeftInGroup = 0L
  private var done = false

  /**
   * The leaf at `names`, matched as Spark matches names (case-insensitively unless told not to):
   * Some(column), Some(None) where the file lacks it (it reads as null), None where the file's
   * path is not a plain chain of groups to a primitive (then Spark's reader must read the file).
   */
  private def descriptor(names: Seq[String]): Option[Option[ColumnDescriptor]] = {
    def field(group: GroupType, name: String): Option[Type] =
      if (group.containsField(name)) Some(group.getType(name))
      else if (settings.caseSensitive) None
      else {
        val matches = (0 until group.getFieldCount).map(group.getType).filter(_.getName.equalsIgnoreCase(name))
        if (matches.length > 1) None // ambiguous: Spark's reader raises its own error
        else matches.headOption
      }
    def find(group: GroupType, rest: Seq[String], path: List[String]): Option[Option[List[String]]] =
      field(group, rest.head) match {
        case None => Some(None)
        case Some(t) if t.isRepetition(Type.Repetition.REPEATED) || !t.isPrimitive &&
            Option(t.getLogicalTypeAnnotation).exists(!_.getClass.getSimpleName.contains("Variant")) => None
        case Some(t) if rest.length == 1 => if (t.isPrimitive) Some(Some(path :+ t.getName)) else None
        case Some(t) if t.isPrimitive => None
        case Some(t) => find(t.asGroupType(), rest.tail, path :+ t.getName)
      }
    find(fileSchema, names, Nil).map(_.map(p => fileSchema.getColumnDescription(p.toArray)))
  }

  /** False when some leaf's path in this file needs Spark's own reader. */
  val supported: Boolean = found.forall(_.isDefined)

  if (supported) {
    // The requested schema is the file's, cut to the leaves' paths.
    reader.setRequestedSchema(project(fileSchema, descriptors.flatten.map(_.getPath.toList)))
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

  override def hasNext: Boolean = {
    while (!done && rowsLeftInGroup == 0) {
      val pages = reader.readNextFilteredRowGroup()
      if (pages == null) done = true else startGroup(pages)
    }
    !done
  }

  private def startGroup(pages: PageReadStore): Unit = {
    rowsLeftInGroup = pages.getRowCount
    readers = descriptors.map(_.map(d => new VectorizedColumnReader(d,
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
        case Some(r) => LeafColumnsReader.readBatch.invoke(r, rows, vectors(i), null, null)
        case None => vectors(i).putNulls(0, rows)
      }
      i += 1
    }
    rowsLeftInGroup -= rows
    batch.setNumRows(rows)
    batch
  }

  override def close(): Unit = reader.close()
}

object LeafColumnsReader {
  /**
   * Spark's column reader fills a vector as a top-level column when it is given no level vectors:
   * a value where the definition level is the column's maximum, a null anywhere else. For a leaf
   * under structs that is exactly what the chain of field extractions returns (a null at any
   * level makes the leaf null). The method is package-private and the extension's jar has its
   * own class loader, so it is reached by reflection, once per batch.
   */
  private[scan] val readBatch: java.lang.reflect.Method = {
    val vector = classOf[WritableColumnVector]
    val m = classOf[VectorizedColumnReader].getDeclaredMethod("readBatch", Integer.TYPE, vector, vector, vector)
    m.setAccessible(true)
    m
  }
}

/** A primitive leaf of a scan's schema: top-level column, field ordinals below it, and names. */
final case class LeafPath(column: Int, ordinals: Seq[Int], names: Seq[String])
