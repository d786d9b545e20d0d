package pysparkext

import java.util.Locale
import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.internal.Logging
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.ExtConfEntry

/**
 * The rows of `pyspark_ext/producers/settings.tsv` (key, type, default, minimum, doc, after a
 * header line), the one declaration of the producers' settings: `pyspark_ext/settings.py` reads
 * the file in the package, the jar build packs it at the same path.
 */
private object ProducersSettings {
  final case class Row(key: String, default: Long, minimum: Long, doc: String)

  val Resource = "pyspark_ext/producers/settings.tsv"

  def rows: Seq[Row] = {
    val in = Option(getClass.getClassLoader.getResourceAsStream(Resource)).getOrElse(
      throw new IllegalStateException(
        s"pyspark-ext: the jar has no $Resource (build it with python -m pyspark_ext build)"))
    val lines = try scala.io.Source.fromInputStream(in, "UTF-8").getLines().toList finally in.close()
    lines.drop(1).filter(_.trim.nonEmpty).map { line =>
      line.split("\t", -1) match {
        case Array(key, "long", default, minimum, doc) => Row(key, default.toLong, minimum.toLong, doc)
        case _ => throw new IllegalStateException(s"pyspark-ext: $Resource: not a row of a long setting: $line")
      }
    }
  }
}

/**
 * Every setting the extension reads, in the order docs/configuration.md lists them (the table
 * there is generated from [[listing]]: `python -m pyspark_ext conf --markdown`). They are
 * registered with Spark when this object is first used, which the session extension does before
 * a session's settings are read, so a bad value given to the session builder fails when the
 * session starts.
 */
object ExtConf {
  val Prefix = "spark.pyspark_ext."
  /** The version that introduced the settings, shown by `SET -v`. */
  private val Since = "0.1.0"

  private val declared = ArrayBuffer.empty[ConfEntry[_]]

  private def register[T](entry: ConfEntry[T]): ConfEntry[T] = {
    require(entry.key.startsWith(Prefix), s"${entry.key} does not start with $Prefix")
    // The settings table is generated from these docs row by row.
    require(!entry.doc.exists(c => c == '\t' || c == '\n' || c == '|'), s"doc of ${entry.key}: no tab, newline or |")
    declared += entry
    entry
  }

  /** Conf docs are written as prose: line breaks and indentation read as single spaces. */
  private def prose(text: String): String = text.trim.split("\\s+").mkString(" ")

  private def switch(key: String, default: Boolean, doc: String, alternatives: Seq[String] = Nil,
      internal: Boolean = false): ConfEntry[Boolean] =
    register(ExtConfEntry.boolean(key, prose(doc), default, alternatives, internal, Since))

  /** A whole number of at least `minimum` (1 unless given); the doc says the bound. */
  private def number(key: String, default: Long, doc: String, minimum: Long = 1): ConfEntry[Long] =
    register(ExtConfEntry.long(key, s"${prose(doc)} At least $minimum.", default, minimum, Nil,
      internal = false, Since))

  val Enabled: ConfEntry[Boolean] = switch("spark.pyspark_ext.enabled", default = true, """
      Master kill switch. `false` leaves every plan exactly as stock Spark makes it.""")

  val NestedSchemaPruning: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.nestedSchemaPruning.enabled", default = true, """
      Whole-plan nested schema pruning of Parquet and ORC scans.""")

  val NarrowPrunedGenerators: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.nestedSchemaPruning.narrowGenerators.enabled", default = true, """
      Where a generator (`explode`, `posexplode`, `inline`, outer or not) reads a column the
      pruning narrowed, generate from the narrow array and widen each element above the generator
      instead of the whole array below it; reads of the element's fields then read the narrow
      element, so the widening disappears when only fields are read. Needs
      `spark.pyspark_ext.nestedSchemaPruning.enabled`.""")

  val IcebergPruning: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.nestedSchemaPruning.iceberg.enabled", default = true, """
      Whole-plan nested schema pruning of Iceberg table scans (format versions 1 to 3, read through
      Iceberg's own scan builder, which is asked for the pruned columns). Needs
      `spark.pyspark_ext.nestedSchemaPruning.enabled`.""")

  val IcebergVariantReads: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.variant.iceberg.enabled", default = true, """
      Shredded VARIANT path reads of Iceberg tables (format versions 2 and 3): the data files
      Iceberg plans for a relation that are Parquet files without delete files, whose columns have
      the table's names, field ids and types, are read with Spark's Parquet reader, by their
      shredded leaves; Iceberg's reader reads the relation's other files in the same query. Needs
      `spark.pyspark_ext.variant.enabled`.""")

  val DeltaTables: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.delta.enabled", default = true, """
      The extension's work on Delta Lake table scans: whole-plan nested schema pruning, shredded
      variant path reads through Delta's own file format, and nested leaves as columns. `false`
      leaves every Delta scan as Delta plans it; other tables in the same query are still
      optimised.""")

  /** Gates both layouts: spec-layout reads need this and [[SpecVariant]]. */
  val ShreddedVariant: ConfEntry[Boolean] = switch("spark.pyspark_ext.variant.enabled", default = true,
    alternatives = Seq("spark.pyspark_ext.variant.draftLayout.enabled"), doc = """
      Read shredded variant columns as VARIANT, in the draft layout and (with
      `spark.pyspark_ext.variant.specLayout.enabled`) the Parquet spec layout, and turn path reads of
      them into reads of the shredded columns. `false` turns off every variant feature below. Formerly
      `spark.pyspark_ext.variant.draftLayout.enabled`, which is still read when this key is not set.""")

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
      Parquet skip row groups, only where that is safe, and read only the row groups those
      predicates leave when statistics, dictionaries and bloom filters are judged together, leaf by
      leaf.""")

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
      SQL metrics count the row groups the scan read and skipped (judged on statistics, dictionaries
      and bloom filters, as the scan reads them). Shown in the Spark UI and by `explain_read_schema`.
      Off by default because it reads each file split's footer once more.""")

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
      row-by-row way builds a row per shredding level and hands it to Parquet field by field. The
      files hold the same values in the same layout; the
      other columns, and a shredded VARIANT inside a struct, are written by Spark's Parquet writer
      as always. A file whose typed leaves the column writers do not take (millisecond
      timestamps), and every file of a write under the `LEGACY` or `EXCEPTION` date and timestamp
      rebase modes, is written the row-by-row way. `false`: every file is written the row-by-row
      way.""")

  val Strict: ConfEntry[Boolean] = switch("spark.pyspark_ext.strict", default = false, """
      `true`: an internal error in a rule fails the query. `false`: the rule logs a warning naming
      itself and the cause, and the query runs on Spark's own plan.""")

  /**
   * The producers pipelines' settings (`spark.pyspark_ext.producers.*`). Only the Python side
   * (`pyspark_ext.producers`) reads them, so they are declared beside it, as data, in
   * `pyspark_ext/producers/settings.tsv`, which the jar carries as a resource; they are
   * registered here, in that file's order, so that Spark checks them and lists them as it does
   * the rest.
   */
  val Producers: Seq[ConfEntry[Long]] = ProducersSettings.rows.map { row =>
    number(row.key, row.default, row.doc, row.minimum)
  }

  val ForceFailure: ConfEntry[Boolean] =
    switch("spark.pyspark_ext.test.forceRuleFailure", default = false, internal = true, doc = """
      Testing only: every rule throws, to exercise the fallback and strict mode.""")

  val FakeMissingInternals: ConfEntry[String] = register(ExtConfEntry.string(
    "spark.pyspark_ext.test.missingSparkInternals", prose("""
      Testing only: names of Spark internals (comma-separated, as the compatibility probe's warning
      names them) to treat as missing, to exercise the probe's switching off of the features that need
      them."""), "", Nil, internal = true, Since))

  /** Every declared setting, in declaration order. */
  def all: Seq[ConfEntry[_]] = declared.toSeq

  /**
   * One line per setting, tab-separated: key, type, default, doc, older keys (comma-separated),
   * `public` or `internal`. `python -m pyspark_ext conf --markdown` makes the settings table of
   * docs/configuration.md from it, and the tests compare `pyspark_ext/settings.py` with it.
   */
  def listing: String = all.map { e =>
    Seq(e.key, e.valueType, e.defaultString, e.doc, e.alternatives.mkString(","),
      if (e.isPublic) "public" else "internal").mkString("\t")
  }.mkString("\n")

  /**
   * The one check of the session's settings, run before every rule of the extension: a value of
   * the wrong type fails the query with Spark's message naming the key (the same message `SET`
   * gives), wherever it was set; an unknown `spark.pyspark_ext.*` key is warned about once, naming
   * the nearest known key.
   *
   * Rules run many times per query, and the settings seldom change between them, so the
   * settings are validated once per change: each session's conf remembers the extension's
   * settings it last passed with, and a call whose settings are the same returns at once. The
   * comparison is of the values themselves, not of a hash, so any change (a bad value under an
   * older key, which Spark's check at `SET` does not see) is validated; a failed validation
   * remembers nothing, so every query fails until the value is fixed.
   */
  def check(): Unit = {
    val conf = SQLConf.get
    val ours = ExtConfEntry.settingsUnder(conf, Prefix)
    if (!(Validated.get(conf) contains ours)) {
      validations.incrementAndGet()
      all.foreach(_.check(ours.get))
      UnknownKeys.warn(ours.keysIterator)
      Validated.put(conf, ours)
    }
  }

  /** The extension's settings of each session's conf when they last passed [[check]]; a conf
   * no longer used is dropped with it. */
  private object Validated {
    private val byConf = java.util.Collections.synchronizedMap(new java.util.WeakHashMap[SQLConf, Map[String, String]])
    def get(conf: SQLConf): Option[Map[String, String]] = Option(byConf.get(conf))
    def put(conf: SQLConf, settings: Map[String, String]): Unit = byConf.put(conf, settings)
  }

  private val validations = new java.util.concurrent.atomic.AtomicLong

  /** How many times [[check]] has validated settings in this JVM (for tests). */
  private[pysparkext] def validationCount: Long = validations.get

  /**
   * Checks the settings a session starts with (`--conf`, spark-defaults.conf, and the builder's
   * settings when it starts the Spark context: all in the context's `SparkConf`), and fails with
   * the extension's own message naming every key with a bad value, the value and the values it
   * takes. The session extension runs it when a session is created, before Spark copies these
   * settings into the session's. Spark would check them there too, but only when the session's
   * state is first built, at the first query or `spark.conf` call, and on Spark 4.1 PySpark then
   * never returns: converting that error to a Python one builds the state again, which fails again
   * (docs/troubleshooting.md). Failing here, before the session exists, avoids that. Only the
   * extension's settings are checked: a bad value of Spark's own settings is Spark's to report.
   */
  def checkAtStart(conf: org.apache.spark.SparkConf): Unit = {
    val bad = all.flatMap(_.badValues(conf.getOption))
    if (bad.nonEmpty) {
      throw new IllegalArgumentException(s"pyspark-ext: the session cannot start: ${bad.mkString("; ")} " +
        "(docs/configuration.md lists the settings)")
    }
  }

  /** Every key the extension reads, older keys included. */
  def knownKeys: Seq[String] = all.flatMap(e => e.key +: e.alternatives)

  /** Warns once per unknown key, naming the known key nearest to it. */
  private object UnknownKeys extends Logging {
    private val warned = ConcurrentHashMap.newKeySet[String]()
    private val issued = ArrayBuffer.empty[String]

    def warn(keys: Iterator[String]): Unit = keys.foreach { key =>
      if (!knownKeys.contains(key) && warned.add(key)) {
        val message = s"pyspark-ext: unknown setting $key is ignored; the nearest known setting is " +
          s"${nearest(key)} (docs/configuration.md lists them all)"
        issued.synchronized(issued += message)
        logWarning(message)
      }
    }

    def warnings: Seq[String] = issued.synchronized(issued.toList)

    private def nearest(key: String): String = knownKeys.minBy(k => distance(key.toLowerCase(Locale.ROOT),
      k.toLowerCase(Locale.ROOT)))

    /** Levenshtein distance: transposed or missing letters in a key are one or two edits. */
    private def distance(a: String, b: String): Int = {
      var previous = Array.range(0, b.length + 1)
      for (i <- 1 to a.length) {
        val current = new Array[Int](b.length + 1)
        current(0) = i
        for (j <- 1 to b.length) {
          val substitution = previous(j - 1) + (if (a(i - 1) == b(j - 1)) 0 else 1)
          current(j) = math.min(substitution, math.min(previous(j), current(j - 1)) + 1)
        }
        previous = current
      }
      previous(b.length)
    }
  }

  /** The unknown-key warnings issued so far in this JVM (for tests). */
  def unknownKeyWarnings: Seq[String] = UnknownKeys.warnings

  def enabled: Boolean = Enabled.get
  def strict: Boolean = Strict.get
  def forceFailure: Boolean = ForceFailure.get
}
