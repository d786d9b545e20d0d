"""The Spark confs the extension reads, as ``ExtConf.scala`` declares them.

``tests/test_switches.py`` checks every field here against the jar's own declarations
(``ExtConf.listing``), and the README's settings table against :func:`markdown_table`, which
``python -m pyspark_ext conf --markdown`` prints.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    key: str
    type: str
    default: str
    doc: str
    alternatives: tuple[str, ...] = ()
    """Older keys, read when ``key`` is not set."""


ENABLED = Setting(
    "spark.pyspark_ext.enabled", "boolean", "true",
    "Master kill switch. `false` leaves every plan exactly as stock Spark makes it.")
NESTED_SCHEMA_PRUNING = Setting(
    "spark.pyspark_ext.nestedSchemaPruning.enabled", "boolean", "true",
    "Whole-plan nested schema pruning of Parquet and ORC scans.")
SHREDDED_VARIANT = Setting(
    "spark.pyspark_ext.variant.enabled", "boolean", "true",
    "Read shredded variant columns as VARIANT, in the draft layout and (with "
    "`spark.pyspark_ext.variant.specLayout.enabled`) the Parquet spec layout, and turn path reads"
    " of them into reads of the shredded columns. `false` turns off every variant feature below. "
    "Formerly `spark.pyspark_ext.variant.draftLayout.enabled`, which is still read when this key "
    "is not set.",
    alternatives=("spark.pyspark_ext.variant.draftLayout.enabled",))
SPEC_VARIANT = Setting(
    "spark.pyspark_ext.variant.specLayout.enabled", "boolean", "true",
    "Read VARIANT columns that are shredded in the Parquet spec layout "
    "(`metadata`/`value`/`typed_value`) by their leaves: path reads read the shredded columns, "
    "filters on them skip row groups. Tables with no shredded file stay with Spark's reader. "
    "Needs `spark.pyspark_ext.variant.enabled`.")
INFER_DRAFT_LAYOUT = Setting(
    "spark.pyspark_ext.variant.inferDraftLayout", "boolean", "true",
    "For Parquet paths read without a catalog table, show struct columns with the draft layout's "
    "shape as VARIANT. `false`: they stay structs unless the schema says VARIANT.")
VARIANT_SKIPPING = Setting(
    "spark.pyspark_ext.variant.skipping.enabled", "boolean", "true",
    "Next to filters on shredded variant paths, add predicates on the typed/untyped leaves that "
    "let Parquet skip row groups, only where that is safe.")
PATH_READS_BEFORE_AGGREGATES = Setting(
    "spark.pyspark_ext.variant.pathReadsBeforeAggregates.enabled", "boolean", "true",
    "Compute an aggregate's input that reads shredded variant paths, `sum(variant_get(v, "
    "'$.price', 'decimal(10,2)'))`, in the projection below the aggregate. Generated code for an "
    "aggregate reads every input column of a row first; a projection reads a column used once "
    "only where it is used, so the spec layout's `metadata` (a binary in every row) is read only "
    "in rows whose residual is decoded. Only inputs the aggregate evaluates exactly once per row "
    "move (no `FILTER` clause, no `DISTINCT`), so no row is evaluated that was not before.")
ROW_GROUP_METRICS = Setting(
    "spark.pyspark_ext.metrics.rowGroups.enabled", "boolean", "false",
    "Above each scan of shredded variant columns that pushes filters, a `RowGroupMetrics` node "
    "whose SQL metrics count the row groups the scan read and skipped (judged on statistics; "
    "Parquet may skip more with dictionaries). Shown in the Spark UI and by "
    "`explain_read_schema`. Off by default because it re-reads each file split's footer: on the "
    "20M-row benchmark a selective draft-layout query took 0.84 s with it against 0.61 s without.")
ROW_GROUP_METRICS_ALL_SCANS = Setting(
    "spark.pyspark_ext.metrics.rowGroups.allScans", "boolean", "false",
    "The same metrics on every Parquet scan that pushes filters. Off by default: on very wide "
    "schemas (the benchmark's 1,000-leaf payload) the extra footer read costs as much as reading "
    "a few leaves.")
NESTED_LEAVES_AS_COLUMNS = Setting(
    "spark.pyspark_ext.scan.nestedLeavesAsColumns.enabled", "boolean", "true",
    "Under a projection (and its filter) straight over a vectorized Parquet scan, read each "
    "nested struct field used (`v.a.b`) as a top-level column: a `NestedLeafColumns` node hands "
    "the field's own vector on, so generated code reads it like a flat column instead of building"
    " a struct row per level and row.")
LEAF_COLUMNS_READER = Setting(
    "spark.pyspark_ext.scan.leafColumnsReader.enabled", "boolean", "true",
    "When everything above such a scan uses only primitive leaves (no struct whole), read each "
    "leaf with Spark's own column decoder as if it were a top-level column (the format shows as "
    "`Parquet, leaf columns` in `EXPLAIN`): values and leaf nulls are exact, and Spark's per-"
    "level assembly of struct nulls, most of what a deep leaf costs over a flat column, is "
    "skipped. Row groups, pages and datetime rebasing are chosen as Spark's reader chooses them; "
    "a partitioned table's partition values follow as constant vectors, as Spark's reader appends"
    " them; a file whose path to a leaf is not a plain chain of groups is read by Spark's reader.")
PACK_NARROW_READS = Setting(
    "spark.pyspark_ext.scan.packNarrowReads.enabled", "boolean", "true",
    "Spark sizes scan tasks by whole-file bytes, so a scan of two leaves of a wide file gets as "
    "many tasks as a scan of all of them, each paying a task's fixed cost for little work. Where "
    "a scan whose nested leaves are read as columns (above) reads half of each file or less, "
    "estimated from the column-chunk sizes in up to three footers (cached per file, so a footer "
    "is parsed once), Spark's own split rule (`maxPartitionBytes`, `openCostInBytes`, the minimum"
    " partition number) is applied to the estimated bytes, rounded to whole waves over the cores."
    " Consecutive splits are grouped and each is still read whole, so rows and their order do not"
    " change; a sum of doubles may differ in its last bits, as it does whenever Spark splits a "
    "scan differently.")
SPEC_LAYOUT_WRITER = Setting(
    "spark.pyspark_ext.writer.specLayout.enabled", "boolean", "true",
    "Write VARIANT columns marked by `shred_variant(v, 'schema', 'spec')` (`pyspark_ext.shred(df, "
    "column, schema, layout=\"spec\")`) in the Parquet spec layout with exactly that shredding "
    "schema, in every file, whatever Spark's own `spark.sql.variant.*` write settings say; other "
    "VARIANT columns of such a write are written unshredded. `false`: a marked column is written "
    "as Spark writes any VARIANT.")
COLUMNAR_SPEC_WRITER = Setting(
    "spark.pyspark_ext.writer.columnar.enabled", "boolean", "true",
    "Write the columns the extension's writers shred straight into Parquet's column writers, "
    "leaf by leaf: each top-level VARIANT column marked for the spec layout (above), and, in "
    "the draft layout, `shred_variant(v, 'schema') AS name` where the last projections of a "
    "Parquet write pass it on (the column is written as the VARIANT and shredded as it is "
    "written). The row-by-row way builds a row per shredding level and hands it to Parquet "
    "field by field; on 1M events this takes about 0.5x its time. The files hold the same "
    "values in the same layout; the other columns, and a shredded VARIANT inside a struct, "
    "are written by Spark's Parquet writer as always. A file whose typed leaves the column "
    "writers do not take (millisecond timestamps), and every file of a write under the "
    "`LEGACY` or `EXCEPTION` date and timestamp rebase modes, is written the row-by-row way. "
    "`false`: every file is written the row-by-row way.")
STRICT = Setting(
    "spark.pyspark_ext.strict", "boolean", "false",
    "`true`: an internal error in a rule fails the query. `false`: the rule logs a warning naming"
    " itself and the cause, and the query runs on Spark's own plan.")
FORCE_FAILURE = Setting(
    "spark.pyspark_ext.test.forceRuleFailure", "boolean", "false",
    "Testing only: every rule throws, to exercise the fallback and strict mode.")
FAKE_MISSING_INTERNALS = Setting(
    "spark.pyspark_ext.test.missingSparkInternals", "string", "",
    "Testing only: names of Spark internals (comma-separated, as the compatibility probe's "
    "warning names them) to treat as missing, to exercise the probe's switching off of the "
    "features that need them.")

ALL: tuple[Setting, ...] = (
    ENABLED, NESTED_SCHEMA_PRUNING, SHREDDED_VARIANT, SPEC_VARIANT, INFER_DRAFT_LAYOUT, VARIANT_SKIPPING,
    PATH_READS_BEFORE_AGGREGATES, ROW_GROUP_METRICS, ROW_GROUP_METRICS_ALL_SCANS, NESTED_LEAVES_AS_COLUMNS,
    LEAF_COLUMNS_READER, PACK_NARROW_READS, SPEC_LAYOUT_WRITER, COLUMNAR_SPEC_WRITER, STRICT, FORCE_FAILURE, FAKE_MISSING_INTERNALS)


def markdown_table(settings: tuple[Setting, ...] = ALL) -> str:
    """The README's settings table."""
    rows = ["| conf | default | meaning |", "|---|---|---|"]
    rows += [f"| `{s.key}` | {f'`{s.default}`' if s.default else '(empty)'} | {s.doc} |" for s in settings]
    return "\n".join(rows)
