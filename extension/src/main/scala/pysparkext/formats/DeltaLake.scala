package pysparkext.formats

import org.apache.spark.sql.execution.datasources.HadoopFsRelation

import pysparkext.ExtConf
import pysparkext.formats.Feature._
import pysparkext.formats.Support.{No, Partly, Yes}

/**
 * Delta Lake tables, read through Delta's `DeltaParquetFileFormat` (recognised by
 * [[DeltaScans]], without a build dependency on Delta). That format carries deletion vectors and
 * column mapping, so a feature that swapped it for one of the extension's formats, or split the
 * scan by files, would resurrect deleted rows or read the wrong columns: such features never
 * apply here. The features that only narrow the schema asked for, or set a scan option, apply
 * through Delta's format ([[Applies]] with `keepsFormat`).
 */
object DeltaLake extends TableFormat {
  val name = "Delta Lake"

  private[formats] val SwitchedOff = s"${ExtConf.DeltaTables.key} is false"
  private[formats] val ColumnMapped = "the table uses Delta's column mapping: the filters name " +
    "its columns logically, its files physically"
  private val ownFormat = "it would read through a format of the extension's own, which would " +
    "drop what Delta's format adds (deletion vectors, column mapping)"

  def support(feature: Feature): Support = feature match {
    case NestedPruning => Yes("every table: Delta's format reads the pruned schema, deletion " +
      "vectors and column mapping included")
    case VariantPathReads => Partly("through Delta's format, without column mapping; left to " +
      "Delta, with one warning per table and reason, under column mapping, an unknown reader " +
      "feature or protocol version, a subclass of Delta's format, a change data feed read, files " +
      "that shred a column in conflicting ways or into types Spark has no column type for, and " +
      "inside Delta's commands")
    case LeavesAsColumns => Yes("over Delta's vectorized, unbucketed scans")
    case LeafReader | RowGroupMetrics => No(ownFormat)
    case NarrowReadPacking => Yes("under nested leaves as columns: Delta's own splits, run as fewer tasks")
    case ReportBytes => Yes("under column mapping, through the physical names in Delta's schema")
    case ReportRowGroups => Partly("not under column mapping, where the filters name logical " +
      "columns and the files physical ones")
  }

  /**
   * `command`: the command whose plan holds the relation, if any. Delta's commands rebuild the
   * table's relation themselves, which a relation read as structs would not survive.
   */
  private[formats] def decide(feature: Feature, fs: HadoopFsRelation, command: Option[String]): Decision =
    feature match {
      // The report only reads: it describes Delta scans whether the extension changes them or not.
      case ReportBytes => Applies()
      case ReportRowGroups =>
        if (DeltaScans.isColumnMapped(fs.dataSchema) || DeltaScans.isColumnMapped(fs.fileFormat)) {
          NotApplied(ColumnMapped)
        } else Applies()
      case _ if DeltaScans.switchedOff(fs.fileFormat) => NotApplied(SwitchedOff)
      case NestedPruning | LeavesAsColumns | NarrowReadPacking => Applies(keepsFormat = true)
      case VariantPathReads =>
        command.map(c => s"it is read by the command $c, which rebuilds the table's plan itself")
          .orElse(DeltaScans.whyNotComposable(fs)).map(NotApplied).getOrElse(Applies(keepsFormat = true))
      case LeafReader | RowGroupMetrics => no(feature)
    }
}
