package pysparkext.formats

import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

import pysparkext.formats.Feature._
import pysparkext.formats.Support.{No, Partly}

/**
 * Iceberg tables, read by Iceberg's own scan (recognised by [[IcebergTables]], without a build
 * dependency on Iceberg). The extension never reads an Iceberg file: Iceberg applies its deletes
 * and maps columns by field id. All the extension may change is what Iceberg's scan builder is
 * asked for, and only for the tables whose builder is known to project nested requests.
 */
object Iceberg extends TableFormat {
  val name = "Iceberg"

  private val ownScan = "Iceberg's own scan (`BatchScanExec`) reads the files; the feature works " +
    "on Spark's file scans"

  def support(feature: Feature): Support = feature match {
    case NestedPruning => Partly("Iceberg's `SparkTable`, format versions 1 to 3, read through " +
      "`SparkScanBuilder`, which is asked for the pruned columns; other Iceberg tables are left to " +
      "Iceberg, with one warning per kind")
    case VariantPathReads => No("Iceberg 1.12 projects a VARIANT whole, and its scan builder takes " +
      "no variant extractions")
    case LeavesAsColumns | LeafReader | NarrowReadPacking | RowGroupMetrics | ReportRowGroups => No(ownScan)
    case ReportBytes => No("the read schema is reported; bytes are not estimated for Iceberg's scans")
  }

  private[formats] def decide(feature: Feature, r: DataSourceV2Relation): Decision = feature match {
    case NestedPruning => IcebergTables.whyNotPrunable(r).map(NotApplied).getOrElse(Applies(keepsFormat = true))
    case _ => no(feature)
  }
}
