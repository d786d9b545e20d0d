package pysparkext.formats

import java.util.Locale

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2Relation, FileTable}

import pysparkext.ExtConf
import pysparkext.formats.Feature.VariantPathReads
import pysparkext.parquet.ParquetFormats

/**
 * The one place that decides, per scan, whether each feature of the extension may apply to it,
 * and if not, why. Every rule asks here instead of looking at the scan's format itself: a rule
 * that missed a table format's check could, for one, swap Delta's format for its own and so
 * resurrect rows a deletion vector removed.
 *
 * A file relation is read by exactly one of [[SparkFiles]], [[DeltaLake]], [[OtherParquetFormats]]
 * and [[OtherSources]]; over Spark's own Parquet format, [[DataFusionComet]] may take the scan,
 * and then the physical features step aside. DSv2 relations are Spark's file tables, [[Iceberg]]'s
 * tables or other sources. [[listing]] gives the static answers for `docs/table-formats.md`.
 */
object TableFormats {
  /** In the order the docs table gives them. */
  val all: Seq[TableFormat] =
    Seq(SparkFiles, DeltaLake, Iceberg, DataFusionComet, OtherParquetFormats, OtherSources)

  /**
   * Whether `feature` may apply to a scan of `fs`. `cometTakes`: whether DataFusion Comet takes
   * this session's scans through Spark's own Parquet format (asked only for a physical feature
   * over that format).
   */
  def decide(feature: Feature, fs: HadoopFsRelation, cometTakes: => Boolean = Comet.takesParquetScans()): Decision = {
    val format = fs.fileFormat
    if (format == null) OtherSources.decide(feature)
    else if (DeltaScans.isDelta(format)) DeltaLake.decide(feature, fs, None)
    else if (feature.physical && Comet.readsFormat(format) && cometTakes) DataFusionComet.decide(feature)
    else if (SparkFiles.owns(format)) SparkFiles.decide(feature, fs)
    else if (format.isInstanceOf[ParquetFileFormat]) OtherParquetFormats.decide(feature, fs)
    else OtherSources.decide(feature)
  }

  /**
   * Whether shredded VARIANT path reads may apply to `fs`, a Parquet relation of `table` (as the
   * user names it), read inside the command `command` if any. A relation left to its format's
   * reader is warned about once per table and reason; one a setting switched off is not.
   */
  def variantReads(fs: HadoopFsRelation, table: String, command: Option[String]): Decision = {
    val delta = DeltaScans.isDelta(fs.fileFormat)
    val decision = if (delta) DeltaLake.decide(VariantPathReads, fs, command) else decide(VariantPathReads, fs)
    decision match {
      case NotApplied(DeltaLake.SwitchedOff) =>
      case NotApplied(reason) if delta => DeltaScans.leaveToDelta(table, "the shredded variant reads", reason)
      case NotApplied(reason) =>
        DeltaScans.warnOnce(s"pyspark-ext leaves the variant columns of $table to its own reader: $reason")
      case _ =>
    }
    decision
  }

  /**
   * The data files of `r`, an Iceberg relation of `table` with VARIANT columns, for the variant
   * path reads to read with Spark's Parquet reader, or None when Iceberg's reader keeps it
   * (`command` as [[Iceberg.variantFiles]] takes it). Left to Iceberg, it is warned about once
   * per table and reason; one a setting switched off is not, nor one read with metadata columns.
   */
  def icebergVariantFiles(r: DataSourceV2Relation, table: String, command: Option[String], session: SparkSession)
      : Option[IcebergFiles.Planned] =
    Iceberg.variantFiles(r, session, command) match {
      case Right(planned) => Some(planned)
      case Left(reason) =>
        leftToIceberg(r, table, reason)
        // the queries Iceberg's row-level commands run read metadata columns: no warning
        if (ExtConf.IcebergVariantReads.get && command.isEmpty && !Iceberg.readsMetadataColumns(r)) {
          DeltaScans.warnOnce(s"pyspark-ext leaves the variant columns of Iceberg table $table to " +
            s"Iceberg's reader, because $reason")
        }
        None
    }

  /**
   * Records, for `explain_read_schema`'s report on its scan, that Iceberg's reader reads the data
   * files of `read`, part of a relation of `table` whose other files the extension reads, and
   * warns once per table and kind of reason.
   */
  def someLeftToIceberg(read: IcebergFiles.IcebergRead, table: String): Unit = {
    val shown = 3
    val more = if (read.reasons.size > shown) s"; and ${read.reasons.size - shown} more" else ""
    ReaderReasons.note(read.table, s"Iceberg's reader reads ${read.count} of the ${read.of} data " +
      s"files of Iceberg table $table, because they ${read.kinds.mkString(" or ")}: " +
      read.reasons.take(shown).mkString("; ") + more)
    read.kinds.foreach { kind =>
      DeltaScans.warnOnce(s"pyspark-ext reads the data files of Iceberg table $table that $kind " +
        "with Iceberg's reader, and its other data files by their shredded leaves")
    }
  }

  /**
   * Records, for `explain_read_schema`'s report on the scan of `r`, that Iceberg's reader reads the
   * variant columns of `table` because of `reason`.
   */
  def leftToIceberg(r: DataSourceV2Relation, table: String, reason: String): Unit =
    ReaderReasons.note(r.table, s"Iceberg's reader reads the variant columns of Iceberg table $table, " +
      s"because $reason")

  /**
   * Whether the extension reads the variant columns of files in `format` at all (Spark's own
   * Parquet format and the extension's, or Delta's when not switched off), before any per-table
   * reason to leave them.
   */
  def readsVariantColumns(format: FileFormat): Boolean =
    if (DeltaScans.isDelta(format)) !DeltaScans.switchedOff(format) else ParquetFormats.readsAsSpark(format)

  /** Whether whole-plan nested pruning may read `r`, a DSv2 relation, with pruned nested types. */
  def nestedPruning(r: DataSourceV2Relation): Decision = r.table match {
    case t: FileTable if Set("parquet", "orc").contains(t.formatName.toLowerCase(Locale.ROOT)) => Applies()
    case t if IcebergTables.isIceberg(t) => Iceberg.decide(Feature.NestedPruning, r)
    case _ => OtherSources.decide(Feature.NestedPruning)
  }

  /**
   * The static answers, one line per format and feature, tab-separated: format, feature, the
   * feature's setting (empty if none), status, detail. Read by `pyspark_ext.formats_table`.
   */
  def listing: String = (for (format <- all; feature <- Feature.all) yield {
    val support = format.support(feature)
    Seq(format.name, feature.name, feature.setting.map(_.key).getOrElse(""), support.status, support.detail)
      .mkString("\t")
  }).mkString("\n")
}
