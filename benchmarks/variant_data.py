"""The variant event log (``pyspark_ext.data.variant_events``), one logical dataset stored in five forms.

- ``json``: the events as JSON strings;
- ``variant``: unshredded VARIANT (``parse_json``);
- ``draft``: shredded in the Spark shredding proposal's draft layout by ``pyspark_ext.shred``;
- ``spec``: shredded in the Parquet spec layout by Spark 4.3's own writer, schema inferred per file;
- ``flat``: a relational table holding the same values, every event field a column (the physical
  limit). ``flat_narrow`` (written on request) keeps only the columns the queries read: a stricter
  bar than the limit, since its row groups hold about 3x the rows of any form of the whole events.

``sorted=True`` orders rows by ``id`` (the filter key); otherwise rows are shuffled
deterministically. Deterministic from the parameters; cached on disk.
"""
from __future__ import annotations

from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding  # noqa: F401 - variant_runner's too
from pyspark_ext.data.variant_events import (SHREDDING, check_variant_layouts, json_sql,  # noqa: F401
                                        variant_layout)

from .datasets import _key

#: The columns the queries read.
QUERIED_COLUMNS = {
    "id": "variant_get(v, '$.id', 'bigint')",
    "ts": "variant_get(v, '$.ts', 'bigint')",
    "kind": "variant_get(v, '$.kind', 'string')",
    "price": "try_variant_get(v, '$.price', 'decimal(10,2)')",
    "user_id": "try_variant_get(v, '$.user.id', 'int')",
    "user_name": "variant_get(v, '$.user.name', 'string')",
    "country": "variant_get(v, '$.user.geo.country', 'string')",
    "city": "variant_get(v, '$.user.geo.city', 'string')",
}
#: Every value of an event as a relational column (``price`` and ``user.id`` by their majority
#: type, as the shredding schema types them).
FLAT_COLUMNS = {
    **QUERIED_COLUMNS,
    "user_tier": "variant_get(v, '$.user.tier', 'string')",
    "items": "variant_get(v, '$.items', 'array<struct<sku: string, qty: bigint>>')",
    "meta_agent": "variant_get(v, '$.meta.agent', 'string')",
    "meta_ref": "variant_get(v, '$.meta.ref', 'string')",
    "meta_session": "variant_get(v, '$.meta.session', 'string')",
}


ROW_GROUP_BYTES = 16 * 1024 * 1024  # several row groups per file, so skipping has a choice


def variant_events(spark: SparkSession, rows: int, sorted_by_id: bool = True,
                   files: int | None = None) -> dict[str, str]:
    """Paths of the five forms, each written once (an interrupted generation resumes at the first
    missing form). ``files`` output files (default: ~1M rows each)."""
    files = files or max(2, rows // 1_000_000)
    # version 3: the variant form is unshredded (versions 1-2 wrote it with Spark's default,
    # shredded with an inferred schema, the same files as the spec form)
    base = _key("variant_events", rows=rows, sorted=sorted_by_id, files=files, version=3)
    paths = {form: str(base / form) for form in ("json", "variant", "draft", "spec", "flat")}
    missing = [form for form in paths if not (base / form / "_SUCCESS").exists()]
    if not missing:
        check_variant_layouts(paths)
        return paths
    events = spark.sql(json_sql(rows))
    if sorted_by_id:
        events = events.repartitionByRange(files, "id").sortWithinPartitions("id")
    else:
        events = events.repartition(files, F.expr("hash(id, 98)")) \
            .sortWithinPartitions(F.expr("hash(id, 99)"))
    write = {"parquet.block.size": str(ROW_GROUP_BYTES)}
    if "json" in missing:
        events.write.options(**write).mode("overwrite").parquet(paths["json"])
    variant = _parsed(spark, paths)
    if "variant" in missing:
        with spark_shredding(spark, False):
            variant.write.options(**write).mode("overwrite").parquet(paths["variant"])
    if "draft" in missing:
        pyspark_ext.shred(variant, "v", SHREDDING).write.options(**write).mode("overwrite") \
            .parquet(paths["draft"])
    if "spec" in missing:
        with spark_shredding(spark, True):
            variant.write.options(**write).mode("overwrite").parquet(paths["spec"])
    if "flat" in missing:
        _write_flat(variant, FLAT_COLUMNS, paths["flat"])
    check_variant_layouts(paths)
    return paths


def _parsed(spark: SparkSession, paths: dict[str, str]) -> DataFrame:
    """The JSON form parsed into one VARIANT column ``v``."""
    return spark.read.parquet(paths["json"]).selectExpr("parse_json(j) AS v")


def _write_flat(variant: DataFrame, columns: dict[str, str], out: str) -> None:
    variant.selectExpr(*[f"{e} AS {c}" for c, e in columns.items()]) \
        .write.option("parquet.block.size", str(ROW_GROUP_BYTES)).mode("overwrite").parquet(out)


def flat_narrow(spark: SparkSession, paths: dict[str, str]) -> str:
    """A relational table of only the queried columns, next to the given forms; written once."""
    out = str(Path(paths["variant"]).parent / "flat_narrow")
    if not (Path(out) / "_SUCCESS").exists():
        variant = _parsed(spark, paths)
        _write_flat(variant, QUERIED_COLUMNS, out)
    return out


def spec_forced(spark: SparkSession, paths: dict[str, str]) -> str:
    """The spec layout written by Spark's own writer with a forced shredding schema (the one the
    draft layout uses), next to the given forms; written once. Spark's inferred schema leaves
    paths with a few mismatched rows (``user.id``, ``price``) untyped; a forced schema types them
    and keeps the mismatches in ``value``."""
    out = str(Path(paths["variant"]).parent / "spec_forced")
    if (Path(out) / "_SUCCESS").exists():
        return out
    with spark_shredding(spark, True, SHREDDING):
        spark.read.schema("v VARIANT").parquet(paths["variant"]) \
            .write.option("parquet.block.size", str(ROW_GROUP_BYTES)).mode("overwrite").parquet(out)
    return out


#: What a query names for each view. Forms that stock Spark reads are named by their files, not
#: a temp view: a temp view keeps the plan analyzed when it was made, so "extension off" would not
#: be stock Spark for it (the extension takes shredded files over at analysis).
SOURCES: dict[str, str] = {}


def register(spark: SparkSession, paths: dict[str, str]) -> None:
    """Views ``v_json`` and ``v_draft`` (one VARIANT column ``v``), ``flat`` (and ``flat_narrow``
    where written), and ``SOURCES`` for the forms stock Spark reads as they are."""
    _parsed(spark, paths).createOrReplaceTempView("v_json")
    spark.read.schema("v VARIANT").parquet(paths["draft"]).createOrReplaceTempView("v_draft")
    SOURCES["v_variant"] = f"parquet.`{paths['variant']}`"
    SOURCES["v_spec"] = f"parquet.`{paths['spec']}`"
    if "spec_forced" in paths:
        SOURCES["v_spec_forced"] = f"parquet.`{paths['spec_forced']}`"
    for form in ("flat", "flat_narrow"):
        if form in paths:
            spark.read.parquet(paths[form]).createOrReplaceTempView(form)
