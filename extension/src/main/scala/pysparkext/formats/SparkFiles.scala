package pysparkext.formats

import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation}
import org.apache.spark.sql.execution.datasources.orc.OrcFileFormat
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat

import pysparkext.formats.Feature._
import pysparkext.formats.Support.{No, Yes}
import pysparkext.parquet.{LeafColumnsParquetFormat, ParquetFormats}

/**
 * Files read by Spark's own Parquet and ORC formats, or by the extension's Parquet formats, which
 * read as Spark's does but for the one thing each exists for. Every feature may apply; only
 * Parquet files have the footers, vectors and row groups the Parquet features work on.
 */
object SparkFiles extends TableFormat {
  val name = "Parquet and ORC files"

  def support(feature: Feature): Support = feature match {
    case NestedPruning => Yes("Parquet and ORC, file relations and Spark's own DSv2 file tables")
    case VariantPathReads => Yes("Parquet, both layouts; files of one table that shred a column in " +
      "conflicting ways are read by one scan per group of files")
    case LeavesAsColumns => Yes("vectorized, unbucketed Parquet scans")
    case LeafReader => Yes("where everything above the scan reads primitive leaves the files store as columns")
    case NarrowReadPacking => Yes("under nested leaves as columns, when the scan reads a small share of each file")
    case RowGroupMetrics => Yes("Parquet scans with data filters (off by default)")
    case ReportBytes => Yes("Parquet scans")
    case ReportRowGroups => Yes("Parquet scans")
  }

  /** Spark's own Parquet or ORC format, or one of the extension's Parquet formats. */
  def owns(format: FileFormat): Boolean = ParquetFormats.readsAsSpark(format) ||
    format.isInstanceOf[OrcFileFormat] || format.isInstanceOf[LeafColumnsParquetFormat] ||
    format.isInstanceOf[pysparkext.parquet.RowGroupCountingParquetFormat]

  private[formats] def decide(feature: Feature, fs: HadoopFsRelation): Decision = {
    val format = fs.fileFormat
    def parquet(d: => Decision): Decision =
      if (format.isInstanceOf[ParquetFileFormat]) d
      else NotApplied(s"its file format $format is not Parquet")
    feature match {
      case NestedPruning => Applies()
      case VariantPathReads => parquet(if (ParquetFormats.readsAsSpark(format)) Applies()
        else OtherParquetFormats.decide(feature, fs))
      case LeavesAsColumns | NarrowReadPacking | ReportBytes => parquet(Applies())
      case LeafReader => parquet(if (ParquetFormats.readsAsSpark(format)) Applies()
        else NotApplied(s"its file format ${format.getClass.getName} already reads in its own way"))
      // the leaf reader's format counts too; a counting format is not wrapped twice
      case RowGroupMetrics => parquet(
        if (ParquetFormats.readsAsSpark(format) || format.getClass == classOf[LeafColumnsParquetFormat]) Applies()
        else NotApplied(s"its file format ${format.getClass.getName} already counts row groups"))
      case ReportRowGroups => parquet(
        if (DeltaScans.isColumnMapped(fs.dataSchema)) NotApplied(DeltaLake.ColumnMapped) else Applies())
    }
  }
}

/**
 * Files read by a subclass of Spark's Parquet format that is neither Delta's nor the extension's.
 * It may read differently from Spark's format, so the extension keeps to what leaves the format
 * in place (the schema asked for, nodes above the scan) and never swaps it for one of its own.
 */
object OtherParquetFormats extends TableFormat {
  val name = "another Parquet format"

  private val ownReader = "the scan would read through a format of the extension's own, which " +
    "would drop what the format adds to Spark's"

  def support(feature: Feature): Support = feature match {
    case NestedPruning => Yes("the format is asked for the pruned schema, as Spark's is")
    case VariantPathReads => No("left to the format's own reader, with one warning: it is neither " +
      "Spark's Parquet format nor Delta's, and may read a variant's columns differently")
    case LeavesAsColumns => Yes("over its vectorized, unbucketed scans")
    case LeafReader | RowGroupMetrics => No(ownReader)
    case NarrowReadPacking => Yes("under nested leaves as columns")
    case ReportBytes | ReportRowGroups => Yes()
  }

  private[formats] def decide(feature: Feature, fs: HadoopFsRelation): Decision = feature match {
    case VariantPathReads => NotApplied(s"its file format ${fs.fileFormat.getClass.getName} is " +
      "neither Spark's Parquet format nor Delta's")
    case LeafReader | RowGroupMetrics => no(feature)
    case ReportRowGroups if DeltaScans.isColumnMapped(fs.dataSchema) => NotApplied(DeltaLake.ColumnMapped)
    case _ => Applies()
  }
}

/** Every other source: other file formats (CSV, JSON, Avro, text...) and DSv2 sources. */
object OtherSources extends TableFormat {
  val name = "other sources"

  def support(feature: Feature): Support = feature match {
    case NestedPruning => No("only Parquet and ORC scans and Iceberg's tables are read with " +
      "pruned nested types: another source may not honour a nested column request")
    case _ => No("the feature reads Parquet files")
  }

  private[formats] def decide(feature: Feature): Decision = no(feature)
}
