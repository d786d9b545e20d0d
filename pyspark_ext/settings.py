"""The Spark confs the extension reads. Mirrors ``ExtConf.scala``; the README documents each."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    key: str
    default: str
    doc: str


ENABLED = Setting(
    "spark.pyspark_ext.enabled", "true",
    "Master kill switch. When false, every rule of the extension leaves the plan unchanged.")
NESTED_SCHEMA_PRUNING = Setting(
    "spark.pyspark_ext.nestedSchemaPruning.enabled", "true",
    "Whole-plan nested schema pruning of Parquet and ORC scans.")
DRAFT_VARIANT = Setting(
    "spark.pyspark_ext.variant.draftLayout.enabled", "true",
    "Read draft-layout shredded variant columns as VARIANT and turn path reads of them "
    "(variant_get, try_variant_get, v:path::type, casts) into reads of the shredded columns.")
SPEC_VARIANT = Setting(
    "spark.pyspark_ext.variant.specLayout.enabled", "true",
    "Read VARIANT columns shredded in the Parquet spec layout (metadata/value/typed_value, as "
    "Spark 4.x's writer makes them) by their leaves: path reads become reads of the shredded "
    "columns, and filters on them skip row groups. Tables with no shredded file stay with "
    "Spark's reader.")
INFER_DRAFT_LAYOUT = Setting(
    "spark.pyspark_ext.variant.inferDraftLayout", "true",
    "For Parquet paths read without a catalog table, show struct columns that have the draft "
    "shredded layout as VARIANT. When false they stay structs unless the schema says VARIANT.")
VARIANT_SKIPPING = Setting(
    "spark.pyspark_ext.variant.skipping.enabled", "true",
    "Add predicates on shredded typed/untyped leaves next to filters on variant paths, so Parquet "
    "skips row groups whose statistics rule the filter out (only where that is safe).")
PATH_READS_BEFORE_AGGREGATES = Setting(
    "spark.pyspark_ext.variant.pathReadsBeforeAggregates.enabled", "true",
    "Compute aggregate inputs that read shredded variant paths (sum(variant_get(...))) in the "
    "projection below the aggregate, where generated code reads a column used once only in the "
    "rows that need it (the spec layout's metadata: only where a residual is decoded). Only "
    "inputs an aggregate evaluates once per row move: no FILTER clause, no DISTINCT.")
ROW_GROUP_METRICS = Setting(
    "spark.pyspark_ext.metrics.rowGroups.enabled", "false",
    "Count, as SQL metrics on a RowGroupMetrics node above each scan of shredded variant columns "
    "that pushes filters, the row groups the scan read and skipped (judged on row-group "
    "statistics). Off by default: it re-reads each file split's footer, which costs a selective "
    "query over 20 wide files about 0.2 s.")
ROW_GROUP_METRICS_ALL_SCANS = Setting(
    "spark.pyspark_ext.metrics.rowGroups.allScans", "false",
    "Count row groups on every Parquet scan that pushes filters, not only on shredded variant "
    "scans. Off by default: for very wide schemas the extra footer read costs as much as reading "
    "a few leaves.")
NESTED_LEAVES_AS_COLUMNS = Setting(
    "spark.pyspark_ext.scan.nestedLeavesAsColumns.enabled", "true",
    "Read nested struct fields of vectorized Parquet scans (v.a.b under a projection or filter "
    "over the scan) as top-level columns: the field's own vector, so generated code reads it "
    "as fast as a flat column.")
LEAF_COLUMNS_READER = Setting(
    "spark.pyspark_ext.scan.leafColumnsReader.enabled", "true",
    "When everything above a vectorized Parquet scan uses only primitive leaves (no struct whole) "
    "and the table has no partition columns, decode each leaf with Spark's column reader as a "
    "flat column, skipping the per-level assembly of struct nulls. Row groups, pages and rebasing "
    "as Spark's reader; files whose leaf paths are not plain chains of groups use Spark's reader.")
PACK_NARROW_READS = Setting(
    "spark.pyspark_ext.scan.packNarrowReads.enabled", "true",
    "Where a scan whose nested leaves are read as columns reads half of each file or less "
    "(estimated from the column-chunk sizes in up to three footers, cached per file), apply "
    "Spark's split rule to the estimated bytes instead of whole-file bytes, so it runs as fewer "
    "tasks; consecutive splits are grouped, each still read whole, and every core still gets "
    "work. A sum of doubles may differ in its last bits, as with any other split of the scan.")
STRICT = Setting(
    "spark.pyspark_ext.strict", "false",
    "When true, an internal error in a rule fails the query. When false, the rule logs a warning "
    "and the query runs on the plan Spark made without it.")
FORCE_FAILURE = Setting(
    "spark.pyspark_ext.test.forceRuleFailure", "false",
    "Testing only: every rule throws, to exercise the fallback and strict mode.")

ALL: tuple[Setting, ...] = (
    ENABLED, NESTED_SCHEMA_PRUNING, DRAFT_VARIANT, SPEC_VARIANT, INFER_DRAFT_LAYOUT, VARIANT_SKIPPING,
    PATH_READS_BEFORE_AGGREGATES,
    ROW_GROUP_METRICS, ROW_GROUP_METRICS_ALL_SCANS, NESTED_LEAVES_AS_COLUMNS, LEAF_COLUMNS_READER, PACK_NARROW_READS,
    STRICT,
    FORCE_FAILURE)
