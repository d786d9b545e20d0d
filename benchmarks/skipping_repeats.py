"""``python -m benchmarks.skipping_repeats [--rows N] [--repeat N]``: does the extension's skipping
make anything slower on files it cannot skip in?

The ``skipping`` suite's unsorted variant events (``--rows``, default 2M) are written by
``pyspark_ext.write_shredded`` in the spec layout twice, without bloom filters:

- ``plain``: Parquet's defaults (min/max statistics and page indexes), where the skip predicates
  find nothing to skip on these unsorted files;
- ``bare``: ``parquet.column.statistics.enabled=false``, no statistics, page indexes or bloom
  filters at all, so nothing can be skipped and the predicates are pure overhead.

Each of the ``skipping`` suite's queries then runs on each form with the extension on, with its
skipping (``spark.pyspark_ext.variant.skipping.enabled``) on and off, by the ``query_repeats``
method: ``--repeat`` runs per mode (default 30) alternating after a warm-up, every run with the
first run's rows, the ratio of medians with a 90% bootstrap interval. Writes
``benchmarks/out/skipping_repeats/<pyspark version>.json``.
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

import pyspark
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.settings import VARIANT_SKIPPING

from .query_repeats import alternate, interval, timed_collect
from .skipping import SCHEMA, queries, source
from .suites import session

OUT = Path(__file__).resolve().parent / "out" / "skipping_repeats"
SKIPPING = VARIANT_SKIPPING
FORMS = {"plain": {}, "bare": {"parquet.column.statistics.enabled": "false"}}
MODES = {"off": "false", "on": "true"}


def run_repeats(spark: SparkSession, rows: int, repeat: int, out: Path) -> dict[str, Any]:
    """Writes both forms under ``out`` and times each query on each; returns the results."""
    events = spark.read.schema("v VARIANT").parquet(source(spark, rows))

    results = []
    print("| query | form | skipping off ms | on ms | on / off | 90% interval |\n|---|---|---|---|---|---|",
          flush=True)
    try:
        for form, options in FORMS.items():
            path = out / "_files" / form
            pyspark_ext.write_shredded(events, str(path), {"v": SCHEMA}, layout="spec", mode="overwrite",
                                       **options)
            for name, template in queries(rows).items():
                sql = template.format(t=f"parquet.`{path}`")
                seconds = alternate(lambda mode: timed_collect(spark, sql, {SKIPPING: MODES[mode]}), ("off", "on"),
                                    repeat, f"{name}/{form}")
                off, on = statistics.median(seconds["off"]), statistics.median(seconds["on"])
                low, high = interval(seconds["off"], seconds["on"])
                results.append({"query": name, "form": form, "off_s": off, "on_s": on, "ratio": on / off,
                                "interval_90": [low, high], "seconds": seconds})
                print(f"| {name} | {form} | {off * 1000:.1f} | {on * 1000:.1f} | {on / off:.3f} | "
                      f"{low:.3f}-{high:.3f} |", flush=True)
    finally:
        spark.conf.unset(SKIPPING)
    return {"spark": pyspark.__version__, "rows": rows, "repeat": repeat, "results": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.skipping_repeats")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    spark = session()
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        result = run_repeats(spark, args.rows, args.repeat, OUT)
    finally:
        spark.stop()
    (OUT / f"{pyspark.__version__}.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
