package pysparkext

import java.util.Locale

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.sql.internal.SQLConf

/**
 * A switch of the extension, declared once: its key, default, type and doc. Read with [[get]]
 * from the session's settings (`SQLConf.get`), so it is settable at run time
 * (`spark.conf.set`) or statically (`--conf`, spark-defaults.conf). When the key is not set, an
 * older key it was renamed from is read ([[alternatives]]), then the default.
 */
final class ConfEntry[T] private[pysparkext] (
    val key: String,
    val alternatives: Seq[String],
    val default: T,
    val valueType: String,
    val doc: String,
    parse: (String, String) => T) {

  def get: T = {
    val conf = SQLConf.get
    (key +: alternatives).iterator.map(k => k -> conf.getConfString(k, null))
      .collectFirst { case (k, raw) if raw != null => parse(k, raw) }
      .getOrElse(default)
  }

  def defaultString: String = default.toString

  override def toString: String = key
}

/** Declares a [[ConfEntry]] in the manner of Spark's `SQLConf.buildConf`. */
final class ConfBuilder private[pysparkext] (key: String, register: ConfEntry[_] => Unit) {
  private var docText = ""
  private var olderKeys = Vector.empty[String]

  def doc(text: String): ConfBuilder = {
    // The README table and settings.py are checked against this text row by row.
    require(!text.exists(c => c == '\t' || c == '\n' || c == '|'), s"doc of $key: no tab, newline or |")
    docText = text
    this
  }

  /** An older key, read when `key` is not set, so settings written before a rename still apply. */
  def withAlternative(older: String): ConfBuilder = { olderKeys :+= older; this }

  def booleanConf: TypedConfBuilder[Boolean] = new TypedConfBuilder("boolean", (k, raw) =>
    raw.trim.toLowerCase(Locale.ROOT) match {
      case "true" => true
      case "false" => false
      case other => throw new IllegalArgumentException(
        s"Spark conf $k must be true or false, got '$other'")
    })

  def stringConf: TypedConfBuilder[String] = new TypedConfBuilder("string", (_, raw) => raw.trim)

  final class TypedConfBuilder[T] private[ConfBuilder] (valueType: String, parse: (String, String) => T) {
    def createWithDefault(default: T): ConfEntry[T] = {
      val entry = new ConfEntry(key, olderKeys, default, valueType, docText, parse)
      register(entry)
      entry
    }
  }
}

/**
 * Every switch the extension reads, in the order the README's settings table lists them. The
 * table and `pyspark_ext/settings.py` are checked against [[listing]] by `tests/test_switches.py`
 * (`python -m pyspark_ext conf --markdown` prints the table).
 */
object ExtConf {
  private val declared = ArrayBuffer.empty[ConfEntry[_]]

  private def buildConf(key: String): ConfBuilder = new ConfBuilder(key, e => {
    require(!declared.exists(_.key == e.key), s"${e.key} is declared twice")
    declared += e
  })

  /** Conf docs are written as prose: line breaks and indentation read as single spaces. */
  private def prose(text: String): String = text.trim.split("\\s+").mkString(" ")

  private def switch(key: String, default: Boolean, doc: String): ConfEntry[Boolean] =
    buildConf(key).doc(prose(doc)).booleanConf.createWithDefault(default)

  val Enabled: ConfEntry[Boolean] = switch("spark.pyspark_ext.enabled", default = true, """
      Master kill switch. `false` leaves every plan exactly as stock Spark makes it.""")

  val NestedSchemaPruning: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.nestedSchemaPruning.enabled", default = true, """
      Whole-plan nested schema pruning of Parquet and ORC scans.""")

  /** Gates both layouts: spec-layout reads need this and [[SpecVariant]]. */
  val ShreddedVariant: ConfEntry[Boolean] = buildConf("spark.pyspark_ext.variant.enabled")
    .withAlternative("spark.pyspark_ext.variant.draftLayout.enabled")
    .doc(prose("""
      Read shredded variant columns as VARIANT, in the draft layout and (with
      `spark.pyspark_ext.variant.specLayout.enabled`) the Parquet spec layout, and turn path reads of
      them into reads of the shredded columns. `false` turns off every variant feature below. Formerly
      `spark.pyspark_ext.variant.draftLayout.enabled`, which is still read when this key is not set."""))
    .booleanConf.createWithDefault(true)

  val SpecVariant: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.variant.specLayout.enabled", default = true, """
      Read VARIANT columns that are shredded in the Parquet spec layout
      (`metadata`/`value`/`typed_value`) by their leaves: path reads read the shredded columns,
      filters on them skip row groups. Tables with no shredded file stay with Spark's reader. Needs
      `spark.pyspark_ext.variant.enabled`.""")

  val InferDraftLayout: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.variant.inferDraftLayout", default = true, """
      For Parquet paths read without a catalog table, show struct columns with the draft layout's
      shape as VARIANT. `false`: they stay structs unless the schema says VARIANT.""")

  val VariantSkipping: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.variant.skipping.enabled", default = true, """
      Next to filters on shredded variant paths, add predicates on the typed/untyped leaves that let
      Parquet skip row groups, only where that is safe.""")

  val PathReadsBeforeAggregates: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.variant.pathReadsBeforeAggregates.enabled", default = true, """
      Compute an aggregate's input that reads shredded variant paths, `sum(variant_get(v, '$.price',
      'decimal(10,2)'))`, in the projection below the aggregate. Generated code for an aggregate reads
      every input column of a row first; a projection reads a column used once only where it is used,
      so the spec layout's `metadata` (a binary in every row) is read only in rows whose residual is
      decoded. Only inputs the aggregate evaluates exactly once per row move (no `FILTER` clause, no
      `DISTINCT`), so no row is evaluated that was not before.""")

  val RowGroupMetrics: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.metrics.rowGroups.enabled", default = false, """
      Above each scan of shredded variant columns that pushes filters, a `RowGroupMetrics` node whose
      SQL metrics count the row groups the scan read and skipped (judged on statistics; Parquet may
      skip more with dictionaries). Shown in the Spark UI and by `explain_read_schema`. Off by default
      because it re-reads each file split's footer: on the 20M-row benchmark a selective draft-layout
      query took 0.84 s with it against 0.61 s without.""")

  val RowGroupMetricsAllScans: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.metrics.rowGroups.allScans", default = false, """
      The same metrics on every Parquet scan that pushes filters. Off by default: on very wide schemas
      (the benchmark's 1,000-leaf payload) the extra footer read costs as much as reading a few
      leaves.""")

  val NestedLeavesAsColumns: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.scan.nestedLeavesAsColumns.enabled", default = true, """
      Under a projection (and its filter) straight over a vectorized Parquet scan, read each nested
      struct field used (`v.a.b`) as a top-level column: a `NestedLeafColumns` node hands the field's
      own vector on, so generated code reads it like a flat column instead of building a struct row
      per level and row.""")

  val LeafColumnsReader: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.scan.leafColumnsReader.enabled", default = true, """
      When everything above such a scan uses only primitive leaves (no struct whole), read each leaf
      with Spark's own column decoder as if it were a top-level column (the format shows as `Parquet,
      leaf columns` in `EXPLAIN`): values and leaf nulls are exact, and Spark's per-level assembly of
      struct nulls, most of what a deep leaf costs over a flat column, is skipped. Row groups, pages
      and datetime rebasing are chosen as Spark's reader chooses them; a partitioned table's partition
      values follow as constant vectors, as Spark's reader appends them; a file whose path to a leaf
      is not a plain chain of groups is read by Spark's reader.""")

  val PackNarrowReads: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.scan.packNarrowReads.enabled", default = true, """
      Spark sizes scan tasks by whole-file bytes, so a scan of two leaves of a wide file gets as many
      tasks as a scan of all of them, each paying a task's fixed cost for little work. Where a scan
      whose nested leaves are read as columns (above) reads half of each file or less, estimated from
      the column-chunk sizes in up to three footers (cached per file, so a footer is parsed once),
      Spark's own split rule (`maxPartitionBytes`, `openCostInBytes`, the minimum partition number) is
      applied to the estimated bytes, rounded to whole waves over the cores. Consecutive splits are
      grouped and each is still read whole, so rows and their order do not change; a sum of doubles
      may differ in its last bits, as it does whenever Spark splits a scan differently.""")

  val SpecLayoutWriter: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.writer.specLayout.enabled", default = true, """
      Write VARIANT columns marked by `shred_variant(v, 'schema', 'spec')` (`pyspark_ext.shred(df,
      column, schema, layout="spec")`) in the Parquet spec layout with exactly that shredding
      schema, in every file, whatever Spark's own `spark.sql.variant.*` write settings say; other
      VARIANT columns of such a write are written unshredded. `false`: a marked column is written
      as Spark writes any VARIANT.""")

  val ColumnarSpecWriter: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.writer.columnar.enabled", default = true, """
      Write the columns the extension's writers shred straight into Parquet's column writers, leaf
      by leaf: each top-level VARIANT column marked for the spec layout (above), and, in the draft
      layout, `shred_variant(v, 'schema') AS name` where the last projections of a Parquet write
      pass it on (the column is written as the VARIANT and shredded as it is written). The
      row-by-row way builds a row per shredding level and hands it to Parquet field by field; on 1M
      events this takes about 0.5x its time. The files hold the same values in the same layout; the
      other columns, and a shredded VARIANT inside a struct, are written by Spark's Parquet writer
      as always. A file whose typed leaves the column writers do not take (millisecond
      timestamps), and every file of a write under the `LEGACY` or `EXCEPTION` date and timestamp
      rebase modes, is written the row-by-row way. `false`: every file is written the row-by-row
      way.""")

  val Strict: ConfEntry[Boolean] = switch("spark.pyspark_ext.strict", default = false, """
      `true`: an internal error in a rule fails the query. `false`: the rule logs a warning naming
      itself and the cause, and the query runs on Spark's own plan.""")

  val ForceFailure: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.test.forceRuleFailure", default = false, """
      Testing only: every rule throws, to exercise the fallback and strict mode.""")

  val FakeMissingInternals: ConfEntry[String] = buildConf("spark.pyspark_ext.test.missingSparkInternals")
    .doc(prose("""
      Testing only: names of Spark internals (comma-separated, as the compatibility probe's warning
      names them) to treat as missing, to exercise the probe's switching off of the features that need
      them."""))
    .stringConf.createWithDefault("")

  /** Every declared switch, in declaration order. */
  def all: Seq[ConfEntry[_]] = declared.toSeq

  /**
   * One line per switch, tab-separated: key, type, default, doc, older keys (comma-separated).
   * What the tests compare the README and settings.py with.
   */
  def listing: String = all.map { e =>
    Seq(e.key, e.valueType, e.defaultString, e.doc, e.alternatives.mkString(",")).mkString("\t")
  }.mkString("\n")

  def enabled: Boolean = Enabled.get
  def strict: Boolean = Strict.get
  def forceFailure: Boolean = ForceFailure.get
}
