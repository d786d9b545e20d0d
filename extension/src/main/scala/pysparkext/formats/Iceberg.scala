package pysparkext.formats

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import pysparkext.ExtConf
import pysparkext.formats.Feature._
import pysparkext.formats.Support.{Partly, Yes}

/**
 * Iceberg tables, read by Iceberg's own scan (recognised by [[IcebergTables]], without a build
 * dependency on Iceberg). Iceberg applies its deletes and maps columns by field id, so the
 * extension changes what Iceberg's scan builder is asked for (only for the tables whose builder
 * is known to project nested requests), and reads files itself only for shredded VARIANT path
 * reads, and only the files Spark's Parquet reader provably reads as Iceberg's would, leaving the
 * others of the same relation to Iceberg's reader ([[IcebergFiles]]).
 */
object Iceberg extends TableFormat {
  val name = "Iceberg"

  private val ownScan = "on the relations whose shredded variants the extension reads (see the " +
    "row above), which are Spark Parquet scans; Iceberg's own scan (`BatchScanExec`), which reads " +
    "every other relation, is left as it is"

  def support(feature: Feature): Support = feature match {
    case NestedPruning => Partly("Iceberg's `SparkTable`, format versions 1 to 3, read through " +
      "`SparkScanBuilder`, which is asked for the pruned columns; other Iceberg tables are left to " +
      "Iceberg, with one warning per kind")
    case VariantPathReads => Yes(VariantConditions)
    case LeavesAsColumns | LeafReader | NarrowReadPacking | RowGroupMetrics | ReportRowGroups | ReportBytes =>
      Partly(ownScan)
  }

  /** When the extension reads an Iceberg relation's shredded variants itself, as the docs say it. */
  val VariantConditions: String = "on format versions 2 and 3 without a name mapping and with no " +
    "metadata column read, the extension reads with Spark's Parquet reader each data file Iceberg " +
    "plans for the relation (its snapshot, branch or tag) that is Parquet, has no delete files and " +
    "holds every column under the table's name, field id and type; Iceberg's reader reads the other " +
    "files in the same query (a staged set of Iceberg's own tasks), or the whole relation when its " +
    "schema is not the table's current one; a relation whose files shred no variant stays with " +
    "Iceberg, which projects a VARIANT whole; one warning per table and reason"

  /**
   * The data files of `r` for the extension to read by their shredded leaves, or why Iceberg's
   * reader keeps the relation. `command`: the command the relation is read in, if any (Iceberg's
   * row-level commands rebuild the relation they are handed, with metadata columns).
   */
  def variantFiles(r: DataSourceV2Relation, session: SparkSession, command: Option[String])
      : Either[String, IcebergFiles.Planned] =
    if (!ExtConf.IcebergVariantReads.get) Left(s"${ExtConf.IcebergVariantReads.key} is false")
    else if (command.isDefined) Left(s"it is read inside the command ${command.get}")
    else IcebergFiles.plan(r, session)

  /**
   * Whether `r` reads metadata columns of its table (`_file`, `_pos`, row lineage), as queries do
   * that Iceberg's row-level commands run.
   */
  def readsMetadataColumns(r: DataSourceV2Relation): Boolean = {
    val columns = r.table.schema().fieldNames.toSet
    r.output.exists(a => !columns.contains(a.name))
  }

  private[formats] def decide(feature: Feature, r: DataSourceV2Relation): Decision = feature match {
    case NestedPruning => IcebergTables.whyNotPrunable(r).map(NotApplied).getOrElse(Applies(keepsFormat = true))
    // which relations, and which of their files: [[variantFiles]], which plans them
    case VariantPathReads => Applies()
    // Iceberg's own scans: the physical features and the report's counts see the Spark Parquet
    // scans of the relations the extension reads, through SparkFiles, never an Iceberg scan
    case _ => NotApplied(support(feature).detail)
  }
}
