package pysparkext

import org.apache.spark.sql.internal.SQLConf

/**
 * Every switch the extension reads. All are ordinary Spark confs, settable per session at run
 * time (`spark.conf.set`) or statically (`--conf`, spark-defaults.conf). The README lists them.
 */
object ExtConf {
  /** Master kill switch: when false every rule of the extension returns its input plan unchanged. */
  val Enabled = "spark.pyspark_ext.enabled"
  /** Whole-plan nested schema pruning of Parquet and ORC scans. */
  val NestedSchemaPruning = "spark.pyspark_ext.nestedSchemaPruning.enabled"
  /** Reading draft-layout shredded variant columns as VARIANT, and path reads of them. */
  val DraftVariant = "spark.pyspark_ext.variant.draftLayout.enabled"
  /** Reading spec-layout (`metadata`/`value`/`typed_value`) shredded files by their leaves. */
  val SpecVariant = "spark.pyspark_ext.variant.specLayout.enabled"
  /** Path reads without a catalog table show draft-layout struct columns as VARIANT. */
  val InferDraftLayout = "spark.pyspark_ext.variant.inferDraftLayout"
  /** Aggregate inputs that read variant paths are computed in the projection below. */
  val PathReadsBeforeAggregates = "spark.pyspark_ext.variant.pathReadsBeforeAggregates.enabled"
  /** Row-group skipping predicates for filters on shredded variant paths. */
  val VariantSkipping = "spark.pyspark_ext.variant.skipping.enabled"
  /** SQL metrics of row groups read and skipped on scans of shredded variant columns (off by default). */
  val RowGroupMetrics = "spark.pyspark_ext.metrics.rowGroups.enabled"
  /** The same metrics on every Parquet scan that pushes filters. */
  val RowGroupMetricsAllScans = "spark.pyspark_ext.metrics.rowGroups.allScans"
  /** Nested struct fields of vectorized Parquet scans read as top-level columns. */
  val NestedLeavesAsColumns = "spark.pyspark_ext.scan.nestedLeavesAsColumns.enabled"
  /** Scans used only through primitive leaves decode each leaf as a flat column. */
  val LeafColumnsReader = "spark.pyspark_ext.scan.leafColumnsReader.enabled"
  /** Scans reading a small share of their files run as fewer, larger tasks. */
  val PackNarrowReads = "spark.pyspark_ext.scan.packNarrowReads.enabled"
  /** When true an internal error in a rule fails the query instead of falling back. */
  val Strict = "spark.pyspark_ext.strict"
  /** Testing only: makes every rule throw, to exercise the fallback and strict paths. */
  val ForceFailure = "spark.pyspark_ext.test.forceRuleFailure"

  def bool(key: String, default: Boolean): Boolean = {
    val raw = SQLConf.get.getConfString(key, default.toString).trim
    raw.toLowerCase(java.util.Locale.ROOT) match {
      case "true" => true
      case "false" => false
      case other => throw new IllegalArgumentException(
        s"Spark conf $key must be true or false, got '$other'")
    }
  }

  def enabled: Boolean = bool(Enabled, default = true)
  def strict: Boolean = bool(Strict, default = false)
  def forceFailure: Boolean = bool(ForceFailure, default = false)
}
