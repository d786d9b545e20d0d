"""``python -m benchmarks run [--suite quick|nested|variant|path-limit|spec|overhead|full|producers|peers|advisor|write] [--scale ROWS] [--out DIR]``."""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

from pyspark.sql import SparkSession

import pyspark_ext

from . import datasets, report, variant_data, variant_queries
from .metrics import InputBytes
from .nested_queries import NESTED_QUERIES
from .overhead import run_overhead
from .runner import run_query
from .variant_runner import CONFIGS, run_variant_query, time_writers

# suite: (variant rows, datasets, storage forms, repeats or None for the suite's);
# datasets are sorted/unsorted by the filter key. At 20M rows JSON parsing alone would take
# hours; one dataset (sorted, as the skipping targets ask) and one timed run per form after the
# warm-up keep it to about an hour (at 20M rows run-to-run noise is small next to the ratios).
# The quick suite must finish in 10 minutes on a fresh 2-core machine, data generation included:
# it leaves out the JSON form (parsing it is a third of its variant time; `--suite variant` has it).
# The unshredded VARIANT read with the extension on (`variant_ext`) checks that the extension costs
# nothing where it has nothing to do; at 20M rows it would add about 20 minutes, so `variant` and
# `spec` have it and `quick` and `full` do not.
VARIANT_SUITES = {
    "quick": (300_000, ["sorted"], [c for c in CONFIGS if c not in ("json", "flat_narrow", "variant_ext")], 2),
    "variant": (2_000_000, ["sorted", "unsorted"], list(CONFIGS), None),
    "full": (20_000_000, ["sorted"], [c for c in CONFIGS if c not in ("json", "variant_ext")], 1),
}
#: rows of the variant sample the writers are timed on
WRITER_ROWS = 2_000_000

SUITES = {
    # suite: (default rows, repeats, payload width, scaling row counts, scaling queries)
    "quick": (100_000, 2, 1000, [25_000, 50_000, 100_000], ["payload_two_leaves", "chained_explode_revenue"]),
    "nested": (1_000_000, 5, 1000, [], []),
    # 20M nested events with the sparse 1,000-leaf payload take about 17 GB; the scaling point
    # at 20M is the main run's own measurement.
    "full": (20_000_000, 1, 1000, [100_000, 1_000_000, 20_000_000],
             ["payload_two_leaves", "chained_explode_revenue", "hof_exists"]),
}


def session() -> SparkSession:
    builder = (SparkSession.builder.master("local[2]").appName("pyspark-ext benchmarks")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", os.environ.get("BENCH_DRIVER_MEMORY", "8g"))
               .config("spark.sql.shuffle.partitions", "8"))
    spark = pyspark_ext.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _variant_queries(spark: SparkSession, metrics: InputBytes, label: str, rows: int,
                     kinds: tuple[str, ...], configs: list[str], repeat: int) -> list:
    """Every variant query over `configs`, for each dataset kind (sorted/unsorted by id)."""
    results = []
    for kind in kinds:
        paths = variant_data.variant_events(spark, rows, sorted_by_id=kind == "sorted")
        paths["spec_forced"] = variant_data.spec_forced(spark, paths)
        if "flat_narrow" in configs:
            paths["flat_narrow"] = variant_data.flat_narrow(spark, paths)
        variant_data.register(spark, paths)
        for name, q in variant_queries.queries(rows).items():
            print(f"[{label}/{kind}] {name}", flush=True)
            results.append(run_variant_query(spark, metrics, kind, name, q, repeat, configs=configs))
    return results


def run(suite: str, scale: int | None, out: Path, repeat: int | None,
        kinds: tuple[str, ...] = ("sorted", "unsorted"), baseline_rows: int | None = None,
        skip: frozenset[str] = frozenset()) -> Path:
    spark = session()
    if suite == "producers":  # incremental pipelines: a suite of their own (benchmarks/producers.py)
        from .producers import run_producers
        run_producers(spark, scale or 1_000_000, out, baseline_rows)
        spark.stop()
        return out
    if suite == "peers":  # DuckDB against Spark on DuckDB's files (benchmarks/peers.py)
        from .peers import run_peers
        run_peers(spark, scale or 2_000_000, out, repeat or 5, skip)
        spark.stop()
        return out
    if suite == "write":  # what shredding costs a VARIANT write (benchmarks/write_speed.py)
        from .write_speed import run_write
        run_write(spark, scale or 1_000_000, out, repeat or 3)
        spark.stop()
        return out
    if suite == "advisor":  # the advisor's shredding schema against the alternatives
        from .advisor_schema import run_advisor
        run_advisor(spark, scale or 2_000_000, out, repeat or 3)
        spark.stop()
        return out
    metrics = InputBytes(spark)
    results, overhead, scaling = [], [], []
    rows, reps, width, scale_rows, scale_queries = SUITES.get(suite, SUITES["quick"])
    rows, reps = scale or rows, repeat or reps
    variant, writers = [], {}
    if suite == "path-limit":
        # The extension's shredded forms against the flat table only: the physical-limit check.
        variant = _variant_queries(spark, metrics, "path-limit", scale or VARIANT_SUITES["variant"][0],
                                   kinds, ["draft_ext", "spec_forced_ext", "spec_ext", "flat", "flat_narrow"],
                                   repeat or 11)
    if suite == "spec":
        # Spark's own shredded files and the unshredded variants, stock Spark 4.3 against the
        # extension, and the flat table.
        variant = _variant_queries(
            spark, metrics, "spec", scale or VARIANT_SUITES["variant"][0], kinds,
            ["variant", "variant_ext", "spec_stock", "spec_ext", "spec_forced_stock", "spec_forced_ext", "flat"],
            repeat or 5)
    if suite in VARIANT_SUITES:
        variant_rows, variant_kinds, forms, variant_reps = VARIANT_SUITES[suite]
        variant_rows = scale if (scale and suite == "variant") else variant_rows
        variant = _variant_queries(spark, metrics, "variant", variant_rows, tuple(variant_kinds), forms,
                                   repeat or variant_reps or reps)
        print("[variant] writers", flush=True)
        sample_rows = min(variant_rows, WRITER_ROWS)
        sample = variant_data.variant_events(spark, sample_rows, True)
        writers = time_writers(spark, sample["variant"], str(out / "_writes"), variant_data.SHREDDING,
                               repeat=1 if suite == "quick" else 2)
        writers["rows"] = sample_rows
    if suite not in ("overhead", "variant", "path-limit", "spec"):
        path = datasets.nested_events(spark, rows, payload_width=width)
        spark.read.parquet(path).createOrReplaceTempView("events")
        for name, sql in NESTED_QUERIES.items():
            print(f"[nested] {name}", flush=True)
            r = run_query(spark, metrics, "nested", name, sql, reps)
            r.limit_bytes = r.column_bytes["extension"] if r.read_leaves["extension"] else None
            results.append(r)
        for n in scale_rows:
            if n == rows:  # the run above measured these already
                scaling += [{"rows": n, "query": r.query, "seconds": r.seconds}
                            for r in results if r.query in scale_queries]
                continue
            spark.read.parquet(datasets.nested_events(spark, n, payload_width=width)) \
                .createOrReplaceTempView("events")
            for q in scale_queries:
                print(f"[scaling] {n:,} rows: {q}", flush=True)
                r = run_query(spark, metrics, "scaling", q, NESTED_QUERIES[q], max(1, reps - 1))
                scaling.append({"rows": n, "query": q, "seconds": r.seconds})
    if suite not in ("variant", "path-limit", "spec"):
        print("[overhead]", flush=True)
        overhead = run_overhead(spark)
    meta = {"command": "python -m " + " ".join(["benchmarks", *sys.argv[1:]]),
            "suite": suite, "rows": rows, "repeat": reps,
            "machine": f"{os.cpu_count()} cores, {platform.platform()}, local[2]",
            "finished": time.strftime("%Y-%m-%d %H:%M:%S")}
    report.write(out, meta, results, overhead, scaling, variant, writers)
    spark.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--suite", default="quick", choices=[*SUITES, "variant", "path-limit", "spec", "overhead", "producers", "peers", "advisor", "write"])
    r.add_argument("--scale", type=int, default=None, help="rows of the nested event log")
    r.add_argument("--repeat", type=int, default=None, help="timed runs per query and mode")
    r.add_argument("--out", default=None, help="output directory (default benchmarks/out/<suite>)")
    r.add_argument("--dataset", default="both", choices=["sorted", "unsorted", "both"],
                   help="variant datasets of the path-limit and spec suites")
    r.add_argument("--baseline-rows", type=int, default=None,
                   help="producers: rows of the groupBy + applyInPandas baseline (default: "
                        "min(scale, 200000); 0 skips it); its rows/s/core compare across sizes")
    r.add_argument("--skip", action="append", default=[], metavar="ENGINE/FORM",
                   help="peers: a configuration not to run, e.g. duckdb/unshredded (repeatable)")
    args = parser.parse_args(argv)
    out = Path(args.out or Path(__file__).resolve().parent / "out" / args.suite)
    kinds = ("sorted", "unsorted") if args.dataset == "both" else (args.dataset,)
    print(f"results in {run(args.suite, args.scale, out, args.repeat, kinds, args.baseline_rows, frozenset(args.skip))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
