"""``--suite skipping``: skipping on shredded paths where the data is not sorted by them.

The variant events (``pyspark_ext.data.variant_events``, ``--scale`` rows, default 20M) in their
unsorted order (ids shuffled, so neither ``meta.session`` nor ``ts`` follows the file order)
are shredded in the Parquet spec layout by ``pyspark_ext.write_shredded`` with one schema (the
events' shredding schema plus ``meta``) three ways:

- ``plain``: as they come, no bloom filters (page indexes are Parquet's default);
- ``bloom``: the same rows with a bloom filter on ``meta.session`` (a SHA-1 per event: every
  value distinct, so min/max statistics and dictionaries never exclude one);
- ``clustered``: bloom filter and each file sorted by ``ts``, the advisor's choice for a workload
  that filters ``ts`` by range (``write_shredded(sort_by=...)``).

The range query filters ``ts``, whose values are all numbers. On ``user.id`` (a string in 0.5% of
rows) no row group could be skipped even when sorted: every row group holds some strings in the
residual, and the soundness rule keeps a row group whose residual can hold the path.

Each query runs on each form with the extension on and off (stock Spark reading the same files),
by the suites' runner (``benchmarks.runner.run_query``: alternating after a warm-up, medians of
``--repeat``, default 5, input bytes); every form must return the first form's rows. Row groups
read are the run-time metric (``row_groups_read_metric``), from one more run with it on; pages
read are ``explain_read_schema``'s ``pages_read`` (what the page index lets the reader decode, in
the row groups read) of ``pages``. Writes are timed
once each, after a warm-up write. Writes ``skipping.json`` and ``skipping.md``.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.data.variant_events import SHREDDING, json_sql
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext import settings

from .alternating import ResultMismatch, canonical_rows, same_rows
from .datasets import _key
from .metrics import InputBytes
from .runner import run_query
from .suites import SuiteOptions

SCHEMA = SHREDDING + ", meta struct<agent: string, ref: string, session: string>"
BLOOM = {"v": ["meta.session"]}
SORT = ["try_variant_get(v, '$.ts', 'bigint')"]
TS0, TS_STEP = 1_700_000_000_000, 37  # ts = TS0 + id * TS_STEP (variant_events)
FORMS = ("plain", "bloom", "clustered")
ROW_GROUP_BYTES = 16 * 1024 * 1024
METRICS = settings.ROW_GROUP_METRICS


def queries(rows: int) -> dict[str, str]:
    """Per query, its SQL over ``{t}``. The looked-up sessions are events spread over the rows; the
    range holds 0.01% of them."""
    sessions = [f"'{hashlib.sha1(str(i * rows // 7 + 3).encode()).hexdigest()}'" for i in range(5)]
    low = TS0 + TS_STEP * (rows // 3)
    high = low + TS_STEP * (max(1, rows // 10_000) - 1)
    return {
        "lookup": "SELECT count(*), max(v:ts::bigint) FROM {t} WHERE v:meta.session::string = " + sessions[0],
        "lookup_in": "SELECT count(*), max(v:ts::bigint) FROM {t} "
                     f"WHERE v:meta.session::string IN ({', '.join(sessions)})",
        "range": "SELECT count(*), sum(v:price::decimal(10,2)) FROM {t} "
                 f"WHERE v:ts::bigint BETWEEN {low} AND {high}",
    }


def source(spark: SparkSession, rows: int) -> str:
    """The unshredded events in shuffled id order; written once."""
    from pyspark.sql import functions as F
    files = max(2, rows // 1_000_000)
    path = _key("skipping_source", rows=rows, files=files, version=1)
    if not (path / "_SUCCESS").exists():
        events = spark.sql(json_sql(rows)).repartition(files, F.expr("hash(id, 98)")) \
            .sortWithinPartitions(F.expr("hash(id, 99)"))
        with spark_shredding(spark, False):
            events.selectExpr("parse_json(j) AS v").write.mode("overwrite").parquet(str(path))
    return str(path)


def write_form(spark: SparkSession, src: str, form: str, out: Path, rows_per_group: int,
               row_group_bytes: int = ROW_GROUP_BYTES) -> float:
    """Writes ``form`` to ``out``; returns the seconds the write took."""
    events = spark.read.schema("v VARIANT").parquet(src)
    extra: dict[str, Any] = {"bloom_filters": BLOOM, "bloom_ndv": rows_per_group} if form != "plain" else {}
    if form == "clustered":
        extra["sort_by"] = SORT
    start = time.perf_counter()
    pyspark_ext.write_shredded(events, str(out), {"v": SCHEMA}, layout="spec", mode="overwrite",
                               **extra, **{"parquet.block.size": str(row_group_bytes)})
    return time.perf_counter() - start


def row_groups_at_run_time(spark: SparkSession, sql: str) -> tuple[list, int, int, int | None, int | None]:
    """``sql``'s rows with the extension on, the row groups its scans read at run time (bloom
    filters and dictionaries are judged there, not at planning), the row groups they hold, and
    the pages of the columns read that the page index lets the reader decode, of those in the
    row groups read (None where no scan counts pages: no page index, or no filter reaches it)."""
    spark.conf.set(METRICS, "true")
    try:
        df = spark.sql(sql)
        got = canonical_rows(df.collect())
        scans = pyspark_ext.explain_read_schema(df)
    finally:
        spark.conf.unset(METRICS)
    read = sum(s["row_groups"] if s.get("row_groups_read_metric") is None else s["row_groups_read_metric"]
               for s in scans)
    paged = [s for s in scans if s.get("pages") is not None]
    pages_read = sum(s["pages_read"] for s in paged) if paged else None
    pages = sum(s["pages"] for s in paged) if paged else None
    return got, read, sum(s.get("row_groups") or 0 for s in scans), pages_read, pages


def _bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.glob("*.parquet"))


def run_skipping(spark: SparkSession, rows: int, out: Path, repeat: int = 5,
                 row_group_bytes: int = ROW_GROUP_BYTES) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    work = out / "_forms"
    src = source(spark, rows)
    # about the rows a row group holds (Parquet sizes row groups before compression, so fewer):
    # the distinct sessions each bloom filter is sized for
    rows_per_group = max(100, rows * row_group_bytes // max(1, _bytes(Path(src))))
    write_form(spark, src, "plain", work / "_warmup", rows_per_group, row_group_bytes)  # JVM warm-up
    writes = {form: write_form(spark, src, form, work / form, rows_per_group, row_group_bytes)
              for form in FORMS}
    results: dict[str, Any] = {"rows": rows, "repeat": repeat, "queries": {},
                               "write_seconds": {f: round(s, 2) for f, s in writes.items()},
                               "bytes": {f: _bytes(work / f) for f in FORMS}}
    metrics = InputBytes(spark)
    for name, template in queries(rows).items():
        q: dict[str, Any] = {"seconds": {}, "input_bytes": {}, "row_groups_read": {}, "row_groups": {},
                             "pages_read": {}, "pages": {}}
        reference: list | None = None
        for form in FORMS:
            sql = template.format(t=f"parquet.`{work / form}`")
            timed = run_query(spark, metrics, "skipping", f"{name}/{form}", sql, repeat)
            for mode, key in (("stock", "stock"), ("extension", "ext")):
                q["seconds"][f"{form}:{key}"] = round(timed.seconds[mode], 3)
                q["input_bytes"][f"{form}:{key}"] = timed.input_bytes[mode]
            got, q["row_groups_read"][f"{form}:ext"], q["row_groups"][form], \
                q["pages_read"][f"{form}:ext"], q["pages"][form] = row_groups_at_run_time(spark, sql)
            reference = got if reference is None else reference
            if not same_rows(got, reference):
                raise ResultMismatch(f"skipping {name}: {form} returns other rows than {FORMS[0]}")
        q["rows"] = [str(r) for r in reference or []]
        results["queries"][name] = q
    results["ratios"] = ratios(results)
    (out / "skipping.json").write_text(json.dumps(results, indent=2))
    text = markdown(results)
    (out / "skipping.md").write_text(text)
    print(text)
    return results


def ratios(r: dict[str, Any]) -> dict[str, float]:
    """The issue's figures: speed-ups against stock, skipped shares, and the cost of the forms."""
    q = r["queries"]

    def speedup(query: str, stock: str, ext: str) -> float:
        return round(q[query]["seconds"][stock] / q[query]["seconds"][ext], 2)

    def skipped(query: str, config: str) -> float:
        form = config.split(":")[0]
        total = q[query]["row_groups"][form]
        return round(1 - q[query]["row_groups_read"][config] / total, 4) if total else 0.0

    return {
        "lookup_bloom_speedup_vs_stock_same_files": speedup("lookup", "bloom:stock", "bloom:ext"),
        "lookup_bloom_row_groups_skipped": skipped("lookup", "bloom:ext"),
        "lookup_in_bloom_row_groups_skipped": skipped("lookup_in", "bloom:ext"),
        "range_clustered_speedup_vs_stock_unclustered": speedup("range", "plain:stock", "clustered:ext"),
        "range_clustered_row_groups_skipped": skipped("range", "clustered:ext"),
        "plain_lookup_ext_over_stock": round(1 / speedup("lookup", "plain:stock", "plain:ext"), 2),
        "plain_range_ext_over_stock": round(1 / speedup("range", "plain:stock", "plain:ext"), 2),
        "bloom_bytes_over_plain": round(r["bytes"]["bloom"] / r["bytes"]["plain"], 3),
        "bloom_write_time_over_plain": round(r["write_seconds"]["bloom"] / r["write_seconds"]["plain"], 2),
        "clustered_bytes_over_plain": round(r["bytes"]["clustered"] / r["bytes"]["plain"], 3),
        "clustered_write_time_over_plain": round(r["write_seconds"]["clustered"] / r["write_seconds"]["plain"], 2),
    }


def markdown(r: dict[str, Any]) -> str:
    lines = [f"# Skipping on unsorted data: {r['rows']:,} variant events, medians of {r['repeat']}", "",
             "| query | form | stock s | extension s | stock / extension | row groups read (ext) | of "
             "| pages read (ext) | of, in the row groups read |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, q in r["queries"].items():
        for form in FORMS:
            stock, ext = q["seconds"][f"{form}:stock"], q["seconds"][f"{form}:ext"]
            lines.append(f"| {name} | {form} | {stock:.3f} | {ext:.3f} | {stock / ext:.1f} | "
                         f"{q['row_groups_read'][f'{form}:ext']} | {q['row_groups'][form]} | "
                         f"{_or_na(q.get('pages_read', {}).get(f'{form}:ext'))} | "
                         f"{_or_na(q.get('pages', {}).get(form))} |")
    lines += ["", "| form | MiB | x plain | write s | x plain |", "|---|---|---|---|---|"]
    for form in FORMS:
        size, secs = r["bytes"][form], r["write_seconds"][form]
        lines.append(f"| {form} | {size / 2**20:.1f} | {size / r['bytes']['plain']:.3f} | {secs:.1f} | "
                     f"{secs / r['write_seconds']['plain']:.2f} |")
    lines += ["", "| figure | value |", "|---|---|"] + [f"| {k} | {v} |" for k, v in r["ratios"].items()]
    return "\n".join(lines) + "\n"


def _or_na(n: int | None) -> str:
    return "n/a" if n is None else str(n)


def run_suite(spark: SparkSession, o: SuiteOptions) -> None:
    run_skipping(spark, o.scale or 20_000_000, o.out, o.repeat or 5)
