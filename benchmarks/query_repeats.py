"""``python -m benchmarks.query_repeats [--repeat N] [--queries a,b]``: the quick suite's nested
queries, stock against the extension, many times each, with a confidence interval per query.

The quick suite keeps medians of 2 runs, and its queries take 0.05-0.3 s at its 100k rows, so one
query's ratio there moves by 10-40% from run to run. This runs each query ``--repeat`` times per
mode (default 30), alternating stock and extension after a warm-up, checks that every run returns
the first run's rows, and reports per query the ratio of medians with a 90% bootstrap interval.
Run it in the venv of each Spark line (as ``python -m benchmarks lines`` does). Writes
``benchmarks/out/query_repeats/<pyspark version>.json``.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Callable

import pyspark
from pyspark.sql import SparkSession

from benchmarks import datasets
from benchmarks.alternating import ResultMismatch, canonical_rows, same_rows
from benchmarks.nested_queries import NESTED_QUERIES
from benchmarks.suites import session
from pyspark_ext.settings import ENABLED

OUT = Path(__file__).resolve().parent / "out" / "query_repeats"
ROWS, PAYLOAD_WIDTH = 100_000, 1000  # the quick suite's nested data
MODES = {"stock": "false", "extension": "true"}


def interval(stock: list[float], ext: list[float], draws: int = 2000) -> tuple[float, float]:
    """The 5th and 95th percentiles of the ratio of medians over bootstrap resamples."""
    rnd = random.Random(7)
    ratios = sorted(statistics.median(rnd.choices(ext, k=len(ext)))
                    / statistics.median(rnd.choices(stock, k=len(stock))) for _ in range(draws))
    return ratios[int(0.05 * draws)], ratios[int(0.95 * draws) - 1]


def timed_collect(spark: SparkSession, sql: str, settings: dict[str, str]) -> tuple[float, list]:
    """``sql``'s collect under ``settings`` (set on the session first): its seconds (planning and
    running, not parsing) and its canonical rows."""
    for key, value in settings.items():
        spark.conf.set(key, value)
    df = spark.sql(sql)
    start = time.perf_counter()
    rows = df.collect()
    return time.perf_counter() - start, canonical_rows(rows)


def alternate(run: Callable[[str], tuple[float, list]], modes: tuple[str, str], repeat: int,
              name: str) -> dict[str, list[float]]:
    """Seconds of ``repeat`` runs per mode of ``run(mode)`` (which returns its seconds and
    canonical rows), after two warm-up runs of each, alternating which mode goes first; every run
    must return the first run's rows."""
    first, second = modes
    _, reference = run(first)
    for _ in range(2):
        run(first)
        run(second)
    seconds: dict[str, list[float]] = {m: [] for m in modes}
    for i in range(repeat):
        for mode in (modes if i % 2 == 0 else (second, first)):
            elapsed, rows = run(mode)
            if not same_rows(rows, reference):
                raise ResultMismatch(f"{name}: {mode} returns other rows")
            seconds[mode].append(elapsed)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.query_repeats")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--queries", default=",".join(NESTED_QUERIES))
    args = parser.parse_args(argv)
    spark = session()
    spark.read.parquet(datasets.nested_events(spark, ROWS, payload_width=PAYLOAD_WIDTH)) \
        .createOrReplaceTempView("events")

    results = []
    print("| query | stock ms | extension ms | ratio | 90% interval |\n|---|---|---|---|---|", flush=True)
    for name in args.queries.split(","):
        sql = NESTED_QUERIES[name]
        seconds = alternate(lambda mode: timed_collect(spark, sql, {ENABLED: MODES[mode]}),
                            ("stock", "extension"), args.repeat, name)
        stock, ext = statistics.median(seconds["stock"]), statistics.median(seconds["extension"])
        low, high = interval(seconds["stock"], seconds["extension"])
        results.append({"query": name, "stock_s": stock, "extension_s": ext, "ratio": ext / stock,
                        "interval_90": [low, high], "seconds": seconds})
        print(f"| {name} | {stock * 1000:.1f} | {ext * 1000:.1f} | {ext / stock:.3f} | "
              f"{low:.3f}-{high:.3f} |", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{pyspark.__version__}.json").write_text(json.dumps(
        {"spark": pyspark.__version__, "rows": ROWS, "repeat": args.repeat, "queries": results}, indent=1))
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
