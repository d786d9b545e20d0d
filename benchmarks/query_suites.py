"""The query suites: nested queries over the ad-tech event log, variant queries over every
storage form, and the planning overhead, mixed as each suite names (see ``benchmarks.suites``)."""
from __future__ import annotations

import os
import platform
import sys
import time

import pyspark
from pyspark.sql import SparkSession

from pyspark_ext.jar import carries_variant

from . import datasets, report, variant_data, variant_queries
from .metrics import InputBytes
from .nested_queries import NESTED_QUERIES
from .overhead import run_overhead
from .runner import run_query
from .suites import SuiteOptions
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

NESTED_SUITES = {
    # suite: (default rows, repeats, payload width, scaling row counts, scaling queries)
    "quick": (100_000, 2, 1000, [25_000, 50_000, 100_000], ["payload_two_leaves", "chained_explode_revenue"]),
    "nested": (1_000_000, 5, 1000, [], []),
    # 20M nested events with the sparse 1,000-leaf payload take about 17 GB; the scaling point
    # at 20M is the main run's own measurement.
    "full": (20_000_000, 1, 1000, [100_000, 1_000_000, 20_000_000],
             ["payload_two_leaves", "chained_explode_revenue", "hof_exists"]),
}


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


def run_suite(spark: SparkSession, o: SuiteOptions) -> None:
    """The query suites (`quick`, `nested`, `full`, `variant`, `path-limit`, `spec`, `overhead`):
    nested queries, variant queries and the planning overhead, in the mix each suite names."""
    suite, scale, out, repeat, kinds = o.suite, o.scale, o.out, o.repeat, o.kinds
    metrics = InputBytes(spark)
    results, overhead, scaling = [], [], []
    rows, reps, width, scale_rows, scale_queries = NESTED_SUITES.get(suite, NESTED_SUITES["quick"])
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
    if suite in VARIANT_SUITES and not carries_variant(spark.version):
        print(f"[variant] skipped: Spark {spark.version} carries the nested-pruning half only "
              "(docs/spark-versions.md)", flush=True)
    elif suite in VARIANT_SUITES:
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
            "spark": pyspark.__version__,
            "finished": time.strftime("%Y-%m-%d %H:%M:%S")}
    report.write(out, meta, results, overhead, scaling, variant, writers)
