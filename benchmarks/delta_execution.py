"""``python -m benchmarks.delta_execution``: where a query's execution time goes on a Delta table
beside a Parquet path of the same files (the data of ``python -m benchmarks tables``).

Runs in the Spark 4.2.1 venv (Delta 4.4). Per query and mode (stock, extension), alternating after
a warm-up, medians of ``--repeat`` runs of ``collect()``:

- ``collect``: the wall-clock seconds of ``collect()`` (analysis is done before it);
- ``planning``: optimisation plus physical planning of that same run, from Spark's
  ``QueryPlanningTracker`` (Delta's snapshot and file listing for ``PrepareDeltaScan`` happen
  here, in a job described "Delta: Filtering files for query");
- ``log jobs``: the seconds of the Spark jobs of the run, after planning, that work over Delta's
  log state rather than the table's files. They are told apart by their task count: Delta's log
  state has ``spark.databricks.delta.snapshotPartitions`` (50) partitions; the table's scans here
  have 2 tasks and the queries' shuffles 8 or fewer. Such a job comes from
  ``PreparedDeltaFileIndex.matchingFiles`` when the filters of the physical scan differ from those
  ``PrepareDeltaScan`` listed the files with ("Prepared scan does not match actual filters.
  Reselecting files to query.", logged at INFO);
- ``execution``: ``collect - planning``; ``execution less log jobs``: that less ``log jobs``;
- ``mib``: what the process read through read system calls during ``collect()``
  (``benchmarks.metrics.InputBytes``), Delta's log included.

``--delta-first`` lists the extension after Delta in ``spark.sql.extensions``, the order
``pyspark_ext.configure`` used before it listed the extension first.

Every run's rows must equal the first run's. Prints one line per query and the suites' ratios
(sum over queries, extension over stock); writes
``benchmarks/out/delta_execution.json``.
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from pathlib import Path

from . import datasets, tables, variant_data
from .alternating import canonical_rows, same_rows
from .metrics import InputBytes
from .nested_queries import NESTED_QUERIES
from pyspark_ext import settings

LOG_STATE_TASKS = 50
OUT = Path(__file__).resolve().parent / "out"


def main(argv: list[str] | None = None) -> int:
    from pyspark_ext.data.variant_queries import queries as variant_queries

    parser = argparse.ArgumentParser(prog="python -m benchmarks.delta_execution")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", default=None, help="comma-separated query names")
    parser.add_argument("--delta-first", action="store_true",
                        help="the extension after Delta in spark.sql.extensions")
    args = parser.parse_args(argv)
    warehouse = OUT / "_delta_execution_warehouse"
    shutil.rmtree(warehouse, ignore_errors=True)
    spark = tables._session("delta", warehouse, delta_first=args.delta_first)
    print("spark.sql.extensions =", spark.conf.get("spark.sql.extensions"), flush=True)
    io = InputBytes(spark)
    sc = spark.sparkContext
    tracker, store = sc._jsc.sc().statusTracker(), sc._jsc.sc().statusStore()
    counter = iter(range(10**9))

    def one(sql: str, mode: str) -> dict:
        spark.conf.set(settings.ENABLED, "true" if mode == "extension" else "false")
        df = spark.sql(sql)
        qe = df._jdf.queryExecution()
        tag = f"delta-execution-{next(counter)}"
        before = io._bytes_read()
        sc.addJobTag(tag)
        try:
            start = time.perf_counter()
            rows = df.collect()
            collect = time.perf_counter() - start
        finally:
            sc.removeJobTag(tag)
        mib = (io._bytes_read() - before) / 2**20
        phases = qe.tracker().phases()
        planning = sum(phases.get(p).get().durationMs() for p in ("optimization", "planning")
                       if phases.get(p).isDefined()) / 1000
        log_jobs = 0.0
        deadline = time.monotonic() + 10
        for job in tracker.getJobIdsForTag(tag):
            data = store.job(job)
            while not data.completionTime().isDefined() and time.monotonic() < deadline:
                time.sleep(0.01)
                data = store.job(job)
            description = data.description().get() if data.description().isDefined() else ""
            if data.numTasks() >= LOG_STATE_TASKS and not description.startswith("Delta: Filtering files"):
                ms = data.completionTime().get().getTime() - data.submissionTime().get().getTime()
                log_jobs += ms / 1000
        measures = {"collect": collect, "planning": planning, "execution": collect - planning,
                    "log_jobs": log_jobs, "execution_less_log_jobs": collect - planning - log_jobs,
                    "mib": mib}
        return measures, canonical_rows(rows)

    def suite(label: str, view_sql: str, view: str, queries: dict[str, str]) -> list[dict]:
        spark.sql(view_sql).createOrReplaceTempView(view)
        rows = []
        for name, sql in queries.items():
            runs: dict[str, list[dict]] = {"stock": [], "extension": []}
            reference = None
            for i in range(args.repeat + 1):  # round 0 warms up
                for mode in (("stock", "extension") if i % 2 == 0 else ("extension", "stock")):
                    r, got = one(sql, mode)
                    reference = got if reference is None else reference
                    if not same_rows(got, reference):
                        raise AssertionError(f"{label}/{name}: {mode} returns other rows")
                    if i:
                        runs[mode].append(r)
            row = {"suite": label, "query": name}
            for mode, rs in runs.items():
                row[mode] = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
            s, e = row["stock"], row["extension"]
            print(f"{label:15s} {name:25s} " + "  ".join(
                f"{k} {s[k]:.2f}/{e[k]:.2f}"
                for k in ("collect", "planning", "log_jobs", "execution", "mib")),
                flush=True)
            rows.append(row)
        return rows

    only = set(args.only.split(",")) if args.only else None
    nested = {k: v for k, v in NESTED_QUERIES.items() if not only or k in only}
    variant = {k: q.variant.format(t="variant_events")
               for k, q in variant_queries(tables.VARIANT_ROWS).items() if not only or k in only}
    try:
        path = datasets.nested_events(spark, tables.NESTED_ROWS, payload_width=tables.PAYLOAD_WIDTH)
        table = tables._copy_table(spark, "delta", path, "nested_events", variant=False)
        vpaths = variant_data.variant_events(spark, tables.VARIANT_ROWS, sorted_by_id=True)
        vtable = tables._copy_table(spark, "delta", vpaths["spec"], "variant_events", variant=True)
        rows = []
        if nested:
            rows += suite("nested-parquet", f"SELECT * FROM parquet.`{path}`", "events", nested)
            rows += suite("nested-delta", f"SELECT * FROM {table}", "events", nested)
        if variant:
            rows += suite("variant-parquet", f"SELECT * FROM parquet.`{vpaths['spec']}`",
                          "variant_events", variant)
            rows += suite("variant-delta", f"SELECT * FROM {vtable}", "variant_events", variant)
    finally:
        spark.stop()
        shutil.rmtree(warehouse, ignore_errors=True)
    print("\n| over | measure | stock s | extension s | ratio |\n|---|---|---|---|---|")
    for label in dict.fromkeys(r["suite"] for r in rows):
        chosen = [r for r in rows if r["suite"] == label]
        for key in ("collect", "execution", "log_jobs", "execution_less_log_jobs", "mib"):
            s = sum(r["stock"][key] for r in chosen)
            e = sum(r["extension"][key] for r in chosen)
            print(f"| {label} | {key} | {s:.2f} | {e:.2f} | {e / s if s else float('nan'):.2f} |")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "delta_execution.json").write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
