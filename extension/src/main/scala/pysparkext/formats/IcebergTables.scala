package pysparkext.formats

import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table}
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import pysparkext.ExtConf

/**
 * Which Iceberg tables the whole-plan pruning may read with pruned nested types, matched by class
 * name (Iceberg is not on the extension's build classpath).
 *
 * An Iceberg table is read through Iceberg's own scan builder: Spark's V2 push-down hands it the
 * columns the plan reads, nested fields included, and Iceberg's `SparkScanBuilder.pruneColumns`
 * projects its schema onto them by name (keeping its own field order and ids, so renamed and
 * re-added fields, deletes and partition evolution stay Iceberg's business). The extension only
 * narrows what is asked for; it never reads an Iceberg file itself.
 *
 * A table qualifies when it is Iceberg's plain table
 * (`org.apache.iceberg.spark.source.SparkTable`), its format version is one this release was tested
 * with (1 to 3), and its scan builder is Iceberg's `SparkScanBuilder` (which takes nested column
 * requests); or when it is the table over a staged set of a relation's files that the extension
 * planned for Iceberg's reader (`SparkRewriteTable`, read through `SparkStagedScanBuilder`, which
 * projects requests alike). Any other Iceberg table (a changelog view, a metadata table, a newer
 * format version, a staged or unknown scan builder) is left to Iceberg's reader exactly as stock
 * Spark plans it, with one warning per kind of table.
 */
object IcebergTables extends Logging {
  val TableClass = "org.apache.iceberg.spark.source.SparkTable"
  val ScanBuilderClass = "org.apache.iceberg.spark.source.SparkScanBuilder"
  /** Iceberg's table over a staged set of tasks, and its scan builder (see [[IcebergFiles]]). */
  val StagedTableClass = "org.apache.iceberg.spark.source.SparkRewriteTable"
  val StagedScanBuilderClass = "org.apache.iceberg.spark.source.SparkStagedScanBuilder"
  val FormatVersions: Set[String] = Set("1", "2", "3")

  private val warned = ConcurrentHashMap.newKeySet[String]()
  private val issued = ArrayBuffer.empty[String]

  def isIceberg(table: Table): Boolean = table.getClass.getName.startsWith("org.apache.iceberg.")

  /**
   * Whether `table` is Iceberg's table over a staged set of a relation's data files, which the
   * extension itself planned for Iceberg's reader to read ([[IcebergFiles]]).
   */
  def isStagedRead(table: Table): Boolean = table.getClass.getName == StagedTableClass

  /** Whether `r` (an Iceberg relation) may be read with pruned nested output types. */
  def prunable(r: DataSourceV2Relation): Boolean = whyNotPrunable(r).isEmpty

  /**
   * Why `r`, an Iceberg relation, may not be read with pruned nested output types, or None if it
   * may. Each kind of table left to Iceberg is warned about once.
   */
  def whyNotPrunable(r: DataSourceV2Relation): Option[String] = {
    val table = r.table
    val cls = table.getClass.getName
    if (!ExtConf.IcebergPruning.get) Some(s"${ExtConf.IcebergPruning.key} is false")
    else if (cls != TableClass && cls != StagedTableClass) leave(cls, s"table class $cls")
    else Option(table.properties().get("format-version")) match {
      case Some(v) if FormatVersions.contains(v) => whyNotScanBuilder(r)
      case Some(v) => leave(s"format-version $v", s"format version $v (tested: 1 to 3)")
      case None => leave("no format-version", "no format version (a metadata table)")
    }
  }

  private def whyNotScanBuilder(r: DataSourceV2Relation): Option[String] = {
    val builder = try r.table match {
      case t: SupportsRead => Some(t.newScanBuilder(r.options))
      case _ => None
    } catch { case NonFatal(e) => None }
    builder match {
      case Some(b: SupportsPushDownRequiredColumns) if b.getClass.getName == builderOf(r.table) => None
      case Some(b) => leave(b.getClass.getName, s"scan builder ${b.getClass.getName}")
      case None => leave("no scan builder", "no scan builder")
    }
  }

  /** The scan builder class `table`'s class hands out when it takes nested column requests. */
  private def builderOf(table: Table): String =
    if (isStagedRead(table)) StagedScanBuilderClass else ScanBuilderClass

  /** Logs, once per `kind`, that such tables are left to Iceberg's reader; gives the reason. */
  private def leave(kind: String, what: String): Option[String] = {
    if (warned.add(kind)) {
      val message = s"pyspark-ext: Iceberg tables with $what are read as stock Spark plans them, " +
        "without whole-plan nested pruning (the extension knows Iceberg's SparkTable with format " +
        "versions 1 to 3 read through SparkScanBuilder)"
      issued.synchronized(issued += message)
      logWarning(message)
    }
    Some(s"it is an Iceberg table with $what; the extension knows Iceberg's SparkTable with " +
      "format versions 1 to 3 read through SparkScanBuilder")
  }

  /** The warnings issued so far in this JVM (for tests). */
  def warnings: Seq[String] = issued.synchronized(issued.toList)
}
