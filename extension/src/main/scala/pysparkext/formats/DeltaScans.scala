package pysparkext.formats

import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation}
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, MetadataBuilder, StructField, StructType}

import pysparkext.ExtConf
import pysparkext.formats.Reflect.call

/**
 * Delta Lake scans, recognised without a compile-time dependency on Delta (by class name and
 * reflection).
 *
 * Delta reads its tables through `DeltaParquetFileFormat`, a subclass of Spark's Parquet format
 * that carries what plain Parquet files do not say: deletion vectors (rows a file still holds but
 * the table has deleted; Delta's planner adds a row-index filter for the scans whose format is
 * Delta's), column mapping (physical column names, or field ids, that differ from the table's
 * names) and row tracking. A rule that swapped that format for one of the extension's, or listed
 * the files itself, would resurrect deleted rows or read the wrong column. So a rule that changes
 * how a Delta table's files are read keeps Delta's format and file index, and changes only what
 * Delta's format lets it: the data schema asked for and Hadoop options of the scan. Where it
 * cannot tell that this is enough ([[whyNotComposable]]), it leaves the scan to Delta and logs
 * once why ([[leaveToDelta]]).
 */
object DeltaScans extends Logging {
  val FormatClass = "org.apache.spark.sql.delta.DeltaParquetFileFormat"

  /**
   * Reader features of Delta's protocol whose effect on reading the extension knows to be
   * carried by Delta's own format and planner (deletion vectors), to be checked here (column
   * mapping, in mode `none` only), to be the column types the extension reads anyway (VARIANT,
   * timestamps without time zone), or to concern the log only (checkpoints, vacuum). Any other
   * reader feature, type widening for one, leaves the table's variant reads to Delta.
   */
  val KnownReaderFeatures: Set[String] = Set("deletionVectors", "columnMapping", "timestampNtz",
    "variantType", "variantType-preview", "variantShredding", "variantShredding-preview",
    "v2Checkpoint", "vacuumProtocolCheck", "checkpointProtection")

  /** The newest reader protocol version the extension knows (3: table features). */
  val MaxReaderVersion = 3

  /** Whether `format` is Delta's and `spark.pyspark_ext.delta.enabled` leaves its scans to Delta. */
  def switchedOff(format: FileFormat): Boolean = !ExtConf.DeltaTables.get && isDelta(format)

  /** Whether `format` is Delta's Parquet format, or a subclass of it. */
  def isDelta(format: FileFormat): Boolean = format != null &&
    Iterator.iterate[Class[_]](format.getClass)(_.getSuperclass).takeWhile(_ != null)
      .exists(_.getName == FormatClass)

  /**
   * Why the extension cannot read `fs`, a Delta relation, through Delta's format with another
   * data schema and scan options; None if it can. Delta's format must be Delta's own class (a
   * subclass may read differently), its column mapping mode `none` (the files then use the
   * table's names), and its protocol one the extension knows.
   */
  def whyNotComposable(fs: HadoopFsRelation): Option[String] = {
    val format = fs.fileFormat
    if (format.getClass.getName != FormatClass) {
      return Some(s"its file format is ${format.getClass.getName}, not $FormatClass")
    }
    try {
      val metadata = call(format, "metadata")
      val mode = call(call(metadata, "columnMappingMode"), "name").toString
      if (mode != "none") {
        return Some(s"it uses column mapping (mode $mode): its files name columns by physical " +
          "names or field ids, which the extension's footer reads do not resolve")
      }
      if (call(format, "isCDCRead") == java.lang.Boolean.TRUE) {
        return Some("it is a change data feed read")
      }
      val protocol = call(format, "protocol")
      val version = call(protocol, "minReaderVersion").asInstanceOf[Int]
      if (version > MaxReaderVersion) {
        return Some(s"its protocol needs reader version $version, newer than the $MaxReaderVersion " +
          "the extension knows")
      }
      val features = Option(call(protocol, "getReaderFeatures").asInstanceOf[java.util.Set[String]])
        .map(_.asScala.toSet).getOrElse(Set.empty)
      val unknown = features -- KnownReaderFeatures
      if (unknown.nonEmpty) {
        return Some(s"it uses table feature(s) ${unknown.toSeq.sorted.mkString(", ")}, which the " +
          "extension does not know")
      }
      None
    } catch {
      case NonFatal(e) => Some(s"its Delta format could not be inspected ($e)")
    }
  }

  /** Whether a field of `schema`, at any depth, carries a Delta column-mapping physical name. */
  def isColumnMapped(schema: StructType): Boolean =
    fields(schema).exists(_.metadata.contains(PhysicalNameKey))

  val PhysicalNameKey = "delta.columnMapping.physicalName"

  /** Whether `format` is Delta's with column mapping on (or a Delta format that cannot tell). */
  def isColumnMapped(format: FileFormat): Boolean = isDelta(format) &&
    (try call(call(call(format, "metadata"), "columnMappingMode"), "name").toString != "none"
     catch { case NonFatal(_) => true })

  /**
   * The schemas (logical names, as Spark plans a column-mapped Delta table) with each field's
   * physical name taken from the table's own schema in `format`'s metadata, so a walk over the
   * files' footers finds the columns; unchanged if `format` is not Delta's or cannot tell. The
   * metadata is read once for all of them.
   */
  def withPhysicalNames(format: FileFormat, schemas: StructType*): Seq[StructType] =
    if (!isDelta(format)) schemas else {
      try call(call(format, "metadata"), "schema") match {
        case table: StructType => schemas.map(annotate(_, table).asInstanceOf[StructType])
        case _ => schemas
      } catch { case NonFatal(_) => schemas }
    }

  private def annotate(t: DataType, table: DataType): DataType = (t, table) match {
    case (s: StructType, ts: StructType) => StructType(s.fields.map { f =>
      ts.fields.find(_.name.equalsIgnoreCase(f.name)) match {
        case Some(tf) if tf.metadata.contains(PhysicalNameKey) =>
          val metadata = new MetadataBuilder().withMetadata(f.metadata)
            .putString(PhysicalNameKey, tf.metadata.getString(PhysicalNameKey)).build()
          f.copy(dataType = annotate(f.dataType, tf.dataType), metadata = metadata)
        case Some(tf) => f.copy(dataType = annotate(f.dataType, tf.dataType))
        case None => f
      }
    })
    case (ArrayType(e, n), ArrayType(te, _)) => ArrayType(annotate(e, te), n)
    case (MapType(k, v, n), MapType(tk, tv, _)) => MapType(annotate(k, tk), annotate(v, tv), n)
    case _ => t
  }

  private def fields(t: DataType): Iterator[StructField] = t match {
    case s: StructType => s.fields.iterator.flatMap(f => Iterator(f) ++ fields(f.dataType))
    case ArrayType(e, _) => fields(e)
    case MapType(k, v, _) => fields(k) ++ fields(v)
    case _ => Iterator.empty
  }

  /** Whether `format` hands the scan's filters to Parquet: every format but a Delta format whose
   * optimisations (splitting, filter push-down) are off. */
  def pushesFilters(format: FileFormat): Boolean = !isDelta(format) ||
    (try call(format, "optimizationsEnabled") != java.lang.Boolean.FALSE catch { case NonFatal(_) => true })

  private val warned = ConcurrentHashMap.newKeySet[String]()
  private val issued = ArrayBuffer.empty[String]

  /** Logs, once per table and reason, that the extension leaves `what` of `table` to Delta. */
  def leaveToDelta(table: String, what: String, reason: String): Unit =
    warnOnce(s"pyspark-ext leaves $what of Delta table $table to Delta's reader, because $reason")

  /** Logs `message` once per JVM. */
  def warnOnce(message: String): Unit = {
    if (warned.add(message)) {
      issued.synchronized(issued += message)
      logWarning(message)
    }
  }

  /** The messages [[warnOnce]] has logged in this JVM (for tests). */
  def warnings: Seq[String] = issued.synchronized(issued.toList)
}
