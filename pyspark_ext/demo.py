"""The main job: what queries read with the extension off (stock Spark) and on.

Two parts: generated nested ad-tech events under whole-plan nested schema pruning, and shredded
VARIANT events in both layouts (the draft layout written by ``shred``, the Parquet spec layout
written by Spark's own shredding writer) under a path read, a group-by over two paths and a
selective filter. Every query must return the same rows in every configuration."""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from pyspark.sql import SparkSession

from .data import adtech, variant_events
from .explain import explain_read_schema
from .jar import carries_variant
from .outcome import canonical_rows, same_rows
from .session import local_session
from .shredding import shred
from .spark_shredding import spark_shredding
from .data.variant_queries import queries
from .settings import ENABLED


#: The nested part's queries, as templates over the event table ``{t}`` (shown as ``events``).
QUERIES = {
    "clicked-item revenue (chained explode + filter)":
        "SELECT sum(item.cpc) FROM {t} LATERAL VIEW explode(page.views) v AS view "
        "LATERAL VIEW explode(view.items) i AS item WHERE item.clicked",
    "views per country (ROLLUP over nested fields)":
        "SELECT user.geo.country, sum(size(page.views)) FROM {t} GROUP BY ROLLUP(user.geo.country)",
    "pages with a sponsored item (higher-order function)":
        "SELECT count(*) FROM {t} WHERE exists(page.views, v -> exists(v.items, i -> i.cpc > 0.9))",
    "previous city per country (window over a struct)":
        "SELECT w.city FROM (SELECT lag(user.geo) OVER (PARTITION BY user.geo.country ORDER BY id) AS w "
        "FROM {t}) WHERE w IS NOT NULL",
}

#: The variant benchmark's queries the demo runs (``variant_queries``).
VARIANT_QUERIES = {
    "one_path_sum": "path read",
    "group_by_two_paths": "group-by over two paths",
    "selective_filter": "selective filter on the id (0.05% of rows)",
}
#: (label, form, extension on?). Stock Spark cannot read the draft layout as VARIANT; its
#: counterpart there is the unshredded VARIANT.
VARIANT_CONFIGS = [
    ("stock, unshredded VARIANT", "variant", False),
    ("stock, spec layout", "spec", False),
    ("pyspark-ext, spec layout", "spec", True),
    ("pyspark-ext, draft layout", "draft", True),
]
VARIANT_ROW_GROUP_BYTES = 512 * 1024  # several row groups per file, so a filter can skip
TIMED_RUNS = 1


def _session() -> SparkSession:
    return local_session("pyspark-ext demo", shuffle_partitions=4)


def run_demo(rows: int = 30_000, directory: str | None = None, variant_rows: int = 100_000,
             spark: SparkSession | None = None) -> dict[str, list[dict]]:
    """Write the data once (under ``directory``), run both parts and print them. ``spark``: an
    existing session to use (left running, its temp views and the extension's switch as they
    were); by default the demo starts its own and stops it. Queries name the demo's files by
    path, so the caller's catalog is never touched."""
    root = Path(directory or os.environ.get("PYSPARK_EXT_DEMO_DIR")
                or Path(tempfile.gettempdir()) / "pyspark_ext_demo")
    own = spark is None
    start = time.perf_counter()
    spark = spark or _session()
    enabled = spark.conf.get(ENABLED, None)
    try:
        nested = nested_part(spark, root, rows)
        middle = time.perf_counter()
        if not carries_variant(spark.version):
            print(f"\n(nested part {middle - start:.0f} s, session start included; the variant part "
                  f"is skipped: Spark {spark.version} carries the nested-pruning half only, see "
                  f"docs/spark-versions.md; data written once to {root})")
            return {"nested": nested, "variant": []}
        variant = variant_part(spark, root, variant_rows)
        print(f"\n(nested part {middle - start:.0f} s, session start included; variant part "
              f"{time.perf_counter() - middle:.0f} s; data written once to {root})")
        return {"nested": nested, "variant": variant}
    finally:
        spark.conf.unset(ENABLED) if enabled is None else spark.conf.set(ENABLED, enabled)
        if own:
            spark.stop()


def nested_part(spark: SparkSession, root: Path, rows: int) -> list[dict]:
    path = root / f"events_{rows}"
    if not (path / "_SUCCESS").exists():
        print(f"writing {rows:,} nested events to {path} ...")
        adtech.write_events(spark, str(path), rows=rows, payload_width=200, partitions=4)
    results = []
    for title, template in QUERIES.items():
        sql = template.format(t=f"parquet.`{path}`")
        measured = {}
        for label, enabled in (("stock", "false"), ("pyspark-ext", "true")):
            spark.conf.set(ENABLED, enabled)
            df = spark.sql(sql)
            measured[label] = (df.collect(), explain_read_schema(df)[0])
        spark.conf.set(ENABLED, "true")
        (stock_rows, stock), (ext_rows, ext) = measured["stock"], measured["pyspark-ext"]
        if sorted(map(repr, stock_rows)) != sorted(map(repr, ext_rows)):
            raise AssertionError(f"results differ with the extension on: {title}")
        print(f"\n== {title}\n   {template.format(t='events')}")
        for label, scan in (("stock", stock), ("pyspark-ext", ext)):
            print(f"   {label:<12} reads {scan['read_leaves']:>4} of {scan['full_leaves']} leaves, "
                  f"{scan['bytes_read'] / 2**20:8.2f} MiB of {scan['bytes_full'] / 2**20:.2f} MiB: "
                  f"{scan['read_schema']}")
        saved = 1 - ext["bytes_read"] / stock["bytes_read"]
        print(f"   bytes saved by the extension: {saved:.1%}  (same {len(ext_rows)} result rows)")
        results.append({"query": title, "stock": stock, "extension": ext})
    return results


def write_variant_events(spark: SparkSession, root: Path, rows: int) -> dict[str, str]:
    """The variant benchmark's events (``variant_events``), sorted by id in two files,
    as unshredded VARIANT, the draft layout (``shred``) and the spec layout (Spark's writer with
    the draft's shredding schema); written once."""
    base = root / f"variant_events_{rows}"
    paths = {form: str(base / form) for form in ("variant", "draft", "spec")}
    if all((Path(p) / "_SUCCESS").exists() for p in paths.values()):
        return paths
    print(f"writing {rows:,} variant events to {base} (unshredded, draft and spec layouts) ...")
    write = {"parquet.block.size": str(VARIANT_ROW_GROUP_BYTES)}
    events = spark.sql(variant_events.json_sql(rows)).repartitionByRange(2, "id") \
        .sortWithinPartitions("id").selectExpr("parse_json(j) AS v")
    with spark_shredding(spark, False):
        events.write.options(**write).mode("overwrite").parquet(paths["variant"])
    variant = spark.read.schema("v VARIANT").parquet(paths["variant"])
    shred(variant, "v", variant_events.SHREDDING).write.options(**write).mode("overwrite") \
        .parquet(paths["draft"])
    with spark_shredding(spark, True, variant_events.SHREDDING):
        variant.write.options(**write).mode("overwrite").parquet(paths["spec"])
    variant_events.check_variant_layouts(paths)
    return paths


def _leaf_columns(path: str) -> int:
    import pyarrow.parquet as pq
    return pq.ParquetFile(min(Path(path).glob("*.parquet"))).metadata.num_columns


def _measure(spark: SparkSession, sql: str, enabled: bool) -> tuple[list, dict, float]:
    """Rows, the scan report (summed over scans) and the time of the last of a first run and
    ``TIMED_RUNS`` more (the first warms up)."""
    spark.conf.set(ENABLED, str(enabled).lower())
    df = spark.sql(sql)
    start = time.perf_counter()
    result = df.collect()
    seconds = time.perf_counter() - start
    for _ in range(TIMED_RUNS):
        start = time.perf_counter()
        spark.sql(sql).collect()
        seconds = time.perf_counter() - start
    scans = explain_read_schema(df)
    total = {k: sum(s.get(k) or 0 for s in scans)
             for k in ("read_leaves", "full_leaves", "bytes_read", "bytes_full", "row_groups",
                       "row_groups_read", "row_groups_skipped")}
    return result, total, seconds


def variant_part(spark: SparkSession, root: Path, rows: int) -> list[dict]:
    paths = write_variant_events(spark, root, rows)
    print(f"\n#### Shredded VARIANT: {rows:,} events, sorted by id, two files per layout")
    results = []
    all_queries = queries(rows)
    for name, title in VARIANT_QUERIES.items():
        template = all_queries[name].variant
        print(f"\n== {title}\n   {template.format(t='events')}")
        print(f"   {'':<27}{'leaves':>12}{'MiB read':>20}{'row groups':>22}{'time':>9}")
        first = None
        measured = {}
        for label, form, enabled in VARIANT_CONFIGS:
            # Named by path, not a view: a view keeps the analysis of the setting it was made with.
            result, scan, seconds = _measure(spark, template.format(t=f"parquet.`{paths[form]}`"),
                                             enabled)
            if not enabled:
                # Stock Spark's report shows the VARIANT column as one leaf; its Parquet reader
                # reads every leaf of the column's group (the bytes say so too).
                scan["read_leaves"] = scan["full_leaves"] = _leaf_columns(paths[form])
            result = canonical_rows(result)
            if first is None:
                first = result
            elif not same_rows(first, result):
                raise AssertionError(f"results differ ({label}): {title}")
            measured[label] = {**scan, "seconds": seconds}
            print(f"   {label:<27}{scan['read_leaves']:>5} of {scan['full_leaves']:<4}"
                  f"{scan['bytes_read'] / 2**20:>9.2f} of {scan['bytes_full'] / 2**20:<7.2f}"
                  f"{scan['row_groups_read']:>6} read, {scan['row_groups_skipped']:>3} skipped"
                  f"{seconds:>8.2f} s")
        stock, ext = measured["stock, spec layout"], measured["pyspark-ext, spec layout"]
        print(f"   spec layout, extension against stock: {ext['bytes_read'] / stock['bytes_read']:.1%} "
              f"of the bytes, {ext['seconds'] / stock['seconds']:.2f} of the time "
              f"(same {len(first)} result rows everywhere)")
        results.append({"query": name, "title": title, "configs": measured})
    return results
