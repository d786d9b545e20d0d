package pysparkext.report

import java.io.IOException

import org.apache.hadoop.fs.Path

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec
import org.apache.spark.sql.pysparkext.{DataError, SparkInternals, SparkInternalsProbe}
import org.apache.spark.sql.pysparkext.SparkInternals.FileScan
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import pysparkext.ExtConf
import pysparkext.exec.RowGroupMetricsExec
import pysparkext.formats.{Comet, DeltaScans, Feature, ReaderReasons, TableFormats}
import pysparkext.parquet.{FileTolerance, PageCounts, ParquetFooters, RowGroups, RowGroupSelection}
import pysparkext.pruning.Need

/**
 * For each scan a query runs, subqueries included: what it reads, what the table holds, and an
 * estimate from Parquet footers of the bytes of the columns read against the full columns.
 * Returned as JSON for `pyspark_ext.explain_read_schema`.
 */
object ReadSchemaReport extends AdaptiveSparkPlanHelper {
  /** Footers read per scan at most; bytes are scaled up from them for larger scans. */
  val MaxFooters = 64
  /** Row groups are counted only for scans of at most this many files. */
  val MaxRowGroupFiles = 256

  def json(df: DataFrame): String = Json.write(scans(df))

  def scans(df: DataFrame): Seq[Map[String, Any]] = {
    val qe = df.queryExecution
    val fullSchemas = fullSchemasByLocation(qe.analyzed)
    val conf = df.sparkSession.sessionState.newHadoopConf()
    // A subquery can be reached twice, through its filter and through the scan it was pushed to.
    val seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[SparkPlan, java.lang.Boolean])
    collectWithSubqueries(qe.executedPlan) { case p if scanOf.isDefinedAt(p) && seen.add(p) => p }
      .map(p => scanOf(p)(fullSchemas, conf))
  }

  /** The data filters as Spark hands them to the file format (Parquet reaches nested fields). */
  private def pushed(dataFilters: Seq[Expression]): Seq[org.apache.spark.sql.sources.Filter] =
    dataFilters.flatMap(SparkInternals.toSourceFilter)

  private type Describe = (Map[String, StructType], org.apache.hadoop.conf.Configuration) =>
    Map[String, Any]

  private def scanOf: PartialFunction[SparkPlan, Describe] = {
    case FileScan(s, relation, read, dataFilters) =>
      fileScan(s, relation, read, dataFilters, SparkInternals.scanTableName(s))
    // DataFusion Comet's native scan of a file relation (known by class name, see pysparkext.formats.Comet)
    case Comet.Scan(s, relation, read, dataFilters, table) =>
      fileScan(s, relation, read, dataFilters, table.map(_.unquotedString))
    case b: BatchScanExec => batchScan(b)
  }

  private def fileScan(
      s: SparkPlan,
      relation: HadoopFsRelation,
      read: StructType,
      dataFilters: Seq[Expression],
      table: Option[String]): Describe = (full, conf) => {
      val name = tableName(table, relation)
      val fullSchema = full.getOrElse(locationKey(relation), relation.dataSchema)
      val files = relation.location.inputFiles.toSeq
      val parquet = TableFormats.decide(Feature.ReportBytes, relation).applies && files.nonEmpty
      // Not under Delta's column mapping, for one: it names the files' columns otherwise than
      // the filters do; Delta translates the filters it pushes, the count here could not.
      val countRowGroups = parquet && files.length <= MaxRowGroupFiles &&
        TableFormats.decide(Feature.ReportRowGroups, relation).applies &&
        SparkInternalsProbe.missingFor(ExtConf.RowGroupMetrics).isEmpty
      // One footer read per file serves both the byte estimate and the row-group count.
      // A footer Spark's scan would skip (its ignoreCorruptFiles or ignoreMissingFiles) is
      // left out here too.
      val tolerance = FileTolerance.of(relation.options)
      val withFooters = if (!parquet) Nil else files.take(if (countRowGroups) files.length else MaxFooters)
        .flatMap { f =>
          try Some(new Path(f) -> ParquetFooters.read(new Path(f), conf)) catch {
            case e @ (_: DataError | _: IOException) if tolerance.skips(e) => None
          }
        }
      val footers = withFooters.map(_._2)
      val bytes = if (footers.isEmpty) None else {
        val sample = footers.take(MaxFooters)
        // Under Delta's column mapping the plan's schemas name columns logically, the files
        // physically: the names come from the table's schema in Delta's format
        val Seq(full, needed) = DeltaScans.withPhysicalNames(relation.fileFormat, fullSchema, read)
        val (r, f) = ParquetColumnBytes.measure(sample, full, needed)
        val scale = files.length.toDouble / sample.length
        Some(((r * scale).toLong, (f * scale).toLong))
      }
      Map(
        "table" -> name,
        "format" -> formatName(relation.fileFormat),
        "full_schema" -> fullSchema.catalogString,
        "read_schema" -> read.catalogString,
        "full_leaves" -> TableLeaves.count(fullSchema, footers.take(MaxFooters)),
        "read_leaves" -> readLeaves(read),
        "bytes_read" -> bytes.map(_._1),
        "bytes_full" -> bytes.map(_._2),
        "pushed_filters" -> dataFilters.map(_.sql),
        "parquet_filters" -> pushed(dataFilters).map(_.toString),
        "files" -> files.length) ++ (if (!countRowGroups) Map.empty[String, Any] else {
          // A Delta scan with its optimisations off (a DML scan over deletion vectors without
          // Spark's row-index column) pushes no filter to Parquet.
          val (total, kept) = if (DeltaScans.pushesFilters(relation.fileFormat)) {
            RowGroups.count(footers, pushed(dataFilters))
          } else RowGroups.count(footers, Nil)
          Map[String, Any]("row_groups" -> total, "row_groups_read" -> kept,
            "row_groups_skipped" -> (total - kept)) ++ pageCounts(relation, read, dataFilters, withFooters)
        }) ++ s.metrics.get("numOutputRows").map(m => "rows_output" -> m.value) ++
        RowGroupMetricsExec.countersOf(s).map(f => Map(
          "row_groups_read_metric" -> f.rowGroupsRead.value,
          "row_groups_skipped_metric" -> f.rowGroupsSkipped.value)).getOrElse(Map.empty) ++
        Comet.bytesScanned(s).map(m => "bytes_scanned_metric" -> m.value)
  }

  /**
   * `pages`, `pages_read` and `pages_skipped` ([[PageCounts]]) where the pushed filters reach
   * Parquet and the files have offset indexes; nothing otherwise.
   */
  private def pageCounts(relation: HadoopFsRelation, read: StructType, dataFilters: Seq[Expression],
      files: Seq[(Path, org.apache.parquet.hadoop.metadata.ParquetMetadata)]): Map[String, Any] = {
    val filters = pushed(dataFilters)
    if (filters.isEmpty || !DeltaScans.pushesFilters(relation.fileFormat)) return Map.empty
    val settings = RowGroups.FilterSettings.current
    val selects = relation.fileFormat match {
      case f: org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat => RowGroupSelection.selects(f)
      case _ => false
    }
    val Seq(needed) = DeltaScans.withPhysicalNames(relation.fileFormat, read)
    // the table's options reach Parquet's reader (its filter levels, for one) as Spark passes them
    val options = relation.sparkSession.sessionState.newHadoopConfWithOptions(relation.options)
    files.flatMap { case (path, footer) =>
      PageCounts.of(path, footer, options, filters, ParquetColumnBytes.columns(footer, needed),
        settings, selects)
    }.reduceOption(_ + _).fold(Map.empty[String, Any]) { p =>
      Map("pages" -> p.total, "pages_read" -> p.read, "pages_skipped" -> (p.total - p.read))
    }
  }

  private def batchScan(b: BatchScanExec): Describe = (_, _) => {
      val read = b.scan.readSchema()
      Map(
        "table" -> b.table.name(),
        "format" -> b.scan.getClass.getSimpleName,
        "full_schema" -> StructType(b.table.columns().map(c =>
          org.apache.spark.sql.types.StructField(c.name, c.dataType, c.nullable))).catalogString,
        "read_schema" -> read.catalogString,
        "full_leaves" -> b.table.columns().map(c => Need.leafCount(c.dataType)).sum,
        "read_leaves" -> readLeaves(read),
        "bytes_read" -> None,
        "bytes_full" -> None,
        "pushed_filters" -> Nil,
        "files" -> None,
        "left_to_format_reader" -> ReaderReasons.of(b.table))
  }

  /**
   * Leaves of a read schema, counted as the full schema counts them. Spark's variant push-down
   * reads a VARIANT column (one leaf of the table) as a struct of the paths it extracts, one field
   * per path: that struct is the one VARIANT leaf, not a leaf per path, or a read of three paths
   * of `v` would count more leaves than the table has.
   */
  private def readLeaves(t: DataType): Int = t match {
    case s: StructType if SparkInternals.isVariantStruct(s) => 1
    case s: StructType => s.fields.map(f => readLeaves(f.dataType)).sum
    case ArrayType(e, _) => readLeaves(e)
    case MapType(k, v, _) => readLeaves(k) + readLeaves(v)
    case _ => 1
  }

  /** Spark's name for a format; Delta's format (whose string holds its whole protocol and
   * metadata) as `Delta`. */
  private def formatName(format: org.apache.spark.sql.execution.datasources.FileFormat): String =
    if (DeltaScans.isDelta(format)) {
      if (format.getClass.getName == DeltaScans.FormatClass) "Delta" else s"Delta (${format.getClass.getName})"
    } else format.toString

  private def locationKey(fs: HadoopFsRelation): String =
    fs.location.rootPaths.map(_.toString).sorted.mkString(",")

  private def tableName(identifier: Option[String], fs: HadoopFsRelation): String =
    identifier.getOrElse(fs.location.rootPaths.map(_.toString).mkString(","))

  private def fullSchemasByLocation(plan: LogicalPlan): Map[String, StructType] = {
    val withSubqueries = plan.collectWithSubqueries { case r: LogicalRelation => r }
    withSubqueries.map(_.relation).collect {
      case fs: HadoopFsRelation => locationKey(fs) -> fs.dataSchema
    }.toMap
  }
}
