package pysparkext.formats

import pysparkext.formats.Feature._
import pysparkext.formats.Support.{No, Yes}

/**
 * DataFusion Comet beside the extension ([[Comet]]): Comet replaces the scans through
 * Spark's own Parquet format by its native scan, which reads the scan's read schema. The logical
 * features apply before Comet sees the plan; the physical ones that would give such a scan a
 * format or a node Comet does not take step aside, so the query keeps Comet's native scan.
 */
object DataFusionComet extends TableFormat {
  val name = "DataFusion Comet"

  def support(feature: Feature): Support = feature match {
    case NestedPruning => Yes("Comet's native scan reads the extension's pruned read schema")
    case VariantPathReads => Yes("on Spark's reader: Comet leaves the extension's VARIANT scans to Spark")
    case LeavesAsColumns | LeafReader | NarrowReadPacking | RowGroupMetrics => No("Comet reads " +
      "the scan natively: the feature would give it a format or a node Comet does not take, and " +
      "the query would lose Comet's scan")
    case ReportBytes => Yes("from footers, and the bytes Comet's native scan read (`bytes_scanned_metric`)")
    case ReportRowGroups => Yes()
  }

  /** For a scan through Spark's own Parquet format, in a session where Comet takes such scans. */
  private[formats] def decide(feature: Feature): Decision =
    if (feature.physical) no(feature) else Applies()
}
