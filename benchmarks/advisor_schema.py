"""``--suite advisor``: the workload advisor's shredding schema against the other choices.

The benchmark's variant events (``pyspark_ext.data.variant_events``: 14 scalar paths, ``price`` a
string in 1% of rows and ``user.id`` in 0.5%) are written three times in the Parquet spec layout,
all by Spark 4.3's own writer, so that the forms differ in their shredding schema only:

- ``recommended``: the schema ``recommend_shredding`` picks for ``WORKLOAD``, forced through
  ``spark.sql.variant.forceShreddingSchemaForTest``;
- ``inferred``: Spark's own choice (``spark.sql.variant.writeShredding.enabled``, schema inferred
  per file);
- ``everything``: every path of the sample (``infer_shredding_schema``), forced the same way.

Each form's row groups hold ``ROW_GROUP_ROWS`` rows, so the forms differ in nothing else.

The workload runs back over each form with the extension on and with stock Spark, alternating,
medians after a warm-up; every configuration must return the same rows. Per form it reports the
workload's bytes read and time (each query's median weighted by its count), the Parquet leaf
columns and footer bytes of the files, and their size.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession

import pyspark_ext
from pyspark_ext.advisor import Query, analyze_workload
from pyspark_ext.outcome import canonical_rows
from pyspark_ext.shredding import infer_shredding_schema
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext.data.variant_events import json_sql
from pyspark_ext import settings

from .alternating import alternate
from .datasets import _key
from .metrics import InputBytes, scan_totals
from .variant_data import ROW_GROUP_BYTES
from .variant_queries import queries
from .suites import SuiteOptions

#: The query mix: the variant suite's queries with how often each runs (an analyst's dashboard
#: sums user ids and breaks sales down by country most often). Together they touch 6 of the
#: events' 14 scalar paths (id, kind, price, user.id, user.name, user.geo.country), two of
#: which (price, user.id) hold another type in a small share of rows.
WORKLOAD = {"one_path_sum": 30, "group_by_two_paths": 25, "selective_filter": 20,
            "mismatched_path": 15, "two_strings": 10}
FORMS = ("recommended", "inferred", "everything")
MODES = ("ext", "stock")
TABLE = "events"
#: rows of the sample both schema choosers read (the first rows of the events)
SAMPLE_ROWS = 100_000
#: Every form's row groups hold the same rows (the byte limit, set above any form's row group, never
#: cuts first): with byte-sized row groups the larger form would get more, smaller row groups, and
#: its time would measure that as well as its schema.
ROW_GROUP_ROWS = 125_000
MAX_ROW_GROUP_BYTES = 256 * 1024 * 1024


def source(spark: SparkSession, rows: int) -> str:
    """The events as unshredded VARIANT column ``v``, sorted by id; written once and cached."""
    files = max(2, rows // 1_000_000)
    out = _key("advisor_events", rows=rows, files=files, version=1) / "variant"
    if not (out / "_SUCCESS").exists():
        events = spark.sql(json_sql(rows)).repartitionByRange(files, "id").sortWithinPartitions("id")
        with spark_shredding(spark, False):
            events.selectExpr("parse_json(j) AS v").write.option("parquet.block.size", str(ROW_GROUP_BYTES)) \
                .mode("overwrite").parquet(str(out))
    return str(out)


def workload(rows: int) -> list[Query]:
    """``WORKLOAD`` as the advisor reads it: SQL over table ``events`` with counts."""
    qs = queries(rows)
    return [Query(qs[name].variant.format(t=TABLE), count, name) for name, count in WORKLOAD.items()]


def schemas(spark: SparkSession, sample: DataFrame, rows: int) -> tuple[dict[str, str | None], list[dict]]:
    """Each form's forced spec-layout shredding schema (``None``: Spark infers it per file), and
    the advisor's report."""
    from pyspark_ext.advisor import recommend_shredding
    analysis = analyze_workload(workload(rows), {TABLE: "v variant"})
    if analysis.failures:
        raise RuntimeError(f"the advisor could not analyse the workload: {analysis.failures}")
    rec = recommend_shredding(analysis, sample, "v", table=TABLE, sample_rows=SAMPLE_ROWS)
    # infer_shredding_schema gives the whole value's type: struct<...> for objects
    everything = infer_shredding_schema(sample, "v", sample_rows=SAMPLE_ROWS)
    return {"recommended": rec.spec_schema, "inferred": None, "everything": everything}, rec.report


def write_forms(spark: SparkSession, source_path: str, forced: dict[str, str | None], base: Path,
                row_group_rows: int = ROW_GROUP_ROWS) -> tuple[dict[str, str], dict[str, float]]:
    """The events written once per form by Spark's writer; the paths and each write's seconds."""
    variant = spark.read.schema("v VARIANT").parquet(source_path)
    options = {"parquet.block.row.count.limit": str(row_group_rows),
               "parquet.block.size": str(MAX_ROW_GROUP_BYTES)}
    paths, seconds = {}, {}
    for form, schema in forced.items():
        out = base / form
        start = time.perf_counter()
        with spark_shredding(spark, True, schema):
            variant.write.options(**options).mode("overwrite").parquet(str(out))
        seconds[form] = time.perf_counter() - start
        paths[form] = str(out)
    return paths, seconds


def file_stats(path: str) -> dict:
    """Files, Parquet leaf columns per file (min and max: Spark's inferred schema may differ by
    file), row groups, footer and file bytes summed over the files, and the ``typed_value`` paths of column
    ``v`` in the first file (as ``$.a.b``)."""
    import pyarrow.parquet as pq
    files = sorted(Path(path).glob("*.parquet"))
    metas = [pq.ParquetFile(f).metadata for f in files]
    leaves = [m.num_columns for m in metas]
    first = metas[0].schema
    typed = sorted({_json_path(first.column(i).path) for i in range(len(first))} - {None})
    return {"files": len(files), "leaves_min": min(leaves), "leaves_max": max(leaves),
            "row_groups": sum(m.num_row_groups for m in metas),
            # serialized_size is the Thrift footer's length, as the file's last 8 bytes record it
            "footer_bytes": sum(m.serialized_size for m in metas),
            "file_bytes": sum(f.stat().st_size for f in files), "typed_paths": typed}


def _json_path(column_path: str) -> str | None:
    """``v.typed_value.user.typed_value.id.typed_value`` as ``$.user.id``; None for other leaves."""
    parts = column_path.split(".")
    if parts[-1] != "typed_value":
        return None
    names = [p for p in parts[1:-1] if p not in ("typed_value", "value", "list", "element")]
    return "$." + ".".join(names) if names else "$"


@dataclass
class QueryResult:
    query: str
    count: int
    seconds: dict[str, float] = field(default_factory=dict)       # config -> median seconds
    storage_bytes: dict[str, int] = field(default_factory=dict)   # config -> median bytes read
    column_bytes: dict[str, int] = field(default_factory=dict)    # config -> the scans' column bytes
    read_leaves: dict[str, int] = field(default_factory=dict)


def run_workload(spark: SparkSession, metrics: InputBytes, paths: dict[str, str], rows: int,
                 repeat: int) -> list[QueryResult]:
    configs = [f"{form}_{mode}" for form in FORMS for mode in MODES]
    results = []
    qs = queries(rows)
    for name, count in WORKLOAD.items():
        print(f"[advisor] {name}", flush=True)

        def sql(config: str) -> str:
            form, mode = config.rsplit("_", 1)
            spark.conf.set(settings.ENABLED, str(mode == "ext").lower())
            return qs[name].variant.format(t=f"parquet.`{paths[form]}`")

        def one(config: str):
            df = spark.sql(sql(config))
            rows_, elapsed, read = metrics.measure(df.collect, f"advisor-{name}-{config}")
            return canonical_rows(rows_), elapsed, read

        _, seconds, nbytes = alternate(configs, repeat, one, f"advisor/{name}")
        r = QueryResult(name, count, seconds, {c: nbytes[c]["storage"] for c in configs})
        for config in configs:
            totals = scan_totals(pyspark_ext.explain_read_schema(spark.sql(sql(config))))
            r.column_bytes[config], r.read_leaves[config] = totals["column_bytes"], totals["read_leaves"]
        results.append(r)
    spark.conf.set(settings.ENABLED, "true")
    return results


def totals(results: list[QueryResult]) -> dict[str, dict[str, float]]:
    """Per configuration, the workload's seconds and bytes: each query's median times its count."""
    configs = results[0].seconds
    return {c: {"seconds": sum(r.count * r.seconds[c] for r in results),
                "storage_bytes": sum(r.count * r.storage_bytes[c] for r in results),
                "column_bytes": sum(r.count * r.column_bytes[c] for r in results)} for c in configs}


def run_advisor(spark: SparkSession, rows: int, out: Path, repeat: int = 3,
                data: Path | None = None, row_group_rows: int = ROW_GROUP_ROWS) -> dict:
    """The whole suite: write ``advisor.json``, ``advisor.md`` and ``advisor.png`` under ``out``."""
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    src = source(spark, rows)
    sample = spark.read.schema("v VARIANT").parquet(src)
    forced, report = schemas(spark, sample, rows)
    print(f"[advisor] schemas: {forced}", flush=True)
    base = data or _key("advisor_forms", rows=rows, version=2)
    paths, write_seconds = write_forms(spark, src, forced, base, row_group_rows)
    results = run_workload(spark, InputBytes(spark), paths, rows, repeat)
    doc = {
        "meta": {"suite": "advisor", "rows": rows, "repeat": repeat, "sample_rows": SAMPLE_ROWS,
                 "row_group_rows": row_group_rows,
                 "command": f"python -m benchmarks run --suite advisor --scale {rows} --repeat {repeat}",
                 "cores": spark.sparkContext.defaultParallelism, "started": started,
                 "finished": time.strftime("%Y-%m-%d %H:%M:%S")},
        "workload": WORKLOAD, "schemas": forced, "advisor_report": report,
        "paths": paths, "files": {form: file_stats(p) for form, p in paths.items()},
        "write_seconds": write_seconds, "totals": totals(results),
        "queries": [asdict(r) for r in results]}
    out.mkdir(parents=True, exist_ok=True)
    (out / "advisor.json").write_text(json.dumps(doc, indent=2, default=str))
    (out / "advisor.md").write_text(markdown(doc))
    plot(doc, out / "advisor.png")
    return doc


def markdown(doc: dict) -> str:
    m, files, tot = doc["meta"], doc["files"], doc["totals"]
    mb = lambda n: f"{n / 1e6:,.1f}"  # noqa: E731
    lines = [f"Advisor suite at {m['rows']:,} rows, medians of {m['repeat']} alternating runs after a "
             f"warm-up (`{m['command']}`). Workload: "
             + ", ".join(f"{q} x{n}" for q, n in doc["workload"].items()) + ".", "",
             "| form | leaves | row groups | footer KB | file MB | write s | workload s, ext | workload s, stock "
             "| MB read, ext | MB read, stock | column MB, ext | column MB, stock |",
             "|---" * 12 + "|"]
    for form in FORMS:
        f = files[form]
        leaves = f"{f['leaves_min']}" if f["leaves_min"] == f["leaves_max"] else f"{f['leaves_min']}-{f['leaves_max']}"
        e, s = tot[f"{form}_ext"], tot[f"{form}_stock"]
        lines.append(f"| {form} | {leaves} | {f['row_groups']} | {f['footer_bytes'] / 1e3:,.1f} | {mb(f['file_bytes'])} | "
                     f"{doc['write_seconds'][form]:.1f} | {e['seconds']:.2f} | {s['seconds']:.2f} | "
                     f"{mb(e['storage_bytes'])} | {mb(s['storage_bytes'])} | {mb(e['column_bytes'])} | "
                     f"{mb(s['column_bytes'])} |")
    lines += ["", "Per query, median seconds (extension / stock):", "",
              "| query | count | " + " | ".join(FORMS) + " |", "|---" * (2 + len(FORMS)) + "|"]
    for q in doc["queries"]:
        cells = [f"{q['seconds'][f + '_ext']:.3f} / {q['seconds'][f + '_stock']:.3f}" for f in FORMS]
        lines.append(f"| {q['query']} | {q['count']} | " + " | ".join(cells) + " |")
    # double backticks: infer_shredding_schema quotes field names with backticks
    lines += ["", "Schemas: " + "; ".join(f"{form}: `` {s or 'inferred by Spark per file'} ``"
                                         for form, s in doc["schemas"].items())]
    return "\n".join(lines) + "\n"


def plot(doc: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tot, files = doc["totals"], doc["files"]
    # stock Spark reads whole variant groups (20x the bytes): a panel per mode keeps both readable
    panels = [("workload s, extension", lambda f: tot[f"{f}_ext"]["seconds"]),
              ("workload MB read, extension", lambda f: tot[f"{f}_ext"]["storage_bytes"] / 1e6),
              ("Parquet leaf columns per file", lambda f: files[f]["leaves_max"]),
              ("workload s, stock Spark", lambda f: tot[f"{f}_stock"]["seconds"]),
              ("workload MB read, stock Spark", lambda f: tot[f"{f}_stock"]["storage_bytes"] / 1e6),
              ("footer KB (all files)", lambda f: files[f]["footer_bytes"] / 1e3)]
    fig, axes = plt.subplots(2, 3, figsize=(12, 6.5))
    for ax, (title, value) in zip(axes.flat, panels):
        heights = [value(f) for f in FORMS]
        bars = ax.bar(FORMS, heights, color=["tab:green", "tab:orange", "tab:blue"])
        labels = [f"{h:,.0f}" if h >= 100 or float(h).is_integer() else f"{h:,.1f}" for h in heights]
        ax.bar_label(bars, labels, fontsize=8)
        ax.set_title(title, fontsize=10)
    fig.suptitle(f"Shredding schemas on the same events ({doc['meta']['rows']:,} rows, Spark's writer)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_suite(spark: SparkSession, o: SuiteOptions) -> None:
    run_advisor(spark, o.scale or 2_000_000, o.out, o.repeat or 3)
