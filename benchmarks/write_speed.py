"""``--suite write``: what shredding costs a VARIANT write, side by side.

The variant events (``pyspark_ext.data.variant_events``, ``--scale`` rows, default 1M, sorted by id,
two files) are stored once unshredded; each writer then reads them and writes them again:

- ``unshredded``: Spark's writer, shredding off (the baseline every ratio divides by);
- ``spark_forced``: Spark 4.3's own shredding writer with the events' shredding schema forced
  (its test conf ``spark.sql.variant.forceShreddingSchemaForTest``: one VARIANT column, so its
  three-column limit does not bite);
- ``spark_inferred``: Spark's writer inferring a schema per file (its default);
- ``spec``: ``pyspark_ext.shred(df, "v", schema, layout="spec")``, the same schema, written
  column by column (``spark.pyspark_ext.writer.columnar.enabled``, the default);
- ``spec_rows``: the same with that switch off: Spark's write support shreds row by row;
- ``draft``: ``pyspark_ext.shred(df, "v", schema)``, the draft layout, column by column;
- ``draft_rows``: the same with the switch off: ``shred_variant`` makes the draft struct per row
  and Spark's Parquet writer writes it.

Writers alternate (forward, then reverse order) after a warm-up round; medians of ``--repeat``
runs (default 3). It writes ``write.json`` and ``write.md``.
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path
from typing import Any, Callable

from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding
from pyspark_ext.data.variant_events import SHREDDING, json_sql
from pyspark_ext import settings

from .datasets import _key
from .suites import SuiteOptions

WRITERS = ("unshredded", "spark_forced", "spark_inferred", "spec", "spec_rows", "draft", "draft_rows")
COLUMNAR = settings.COLUMNAR_SPEC_WRITER


def source(spark: SparkSession, rows: int, files: int = 2) -> str:
    """The events as unshredded VARIANT, sorted by id; written once."""
    path = _key("write_source", rows=rows, files=files, version=1)
    if not (path / "_SUCCESS").exists():
        events = spark.sql(json_sql(rows)).repartitionByRange(files, "id").sortWithinPartitions("id")
        with spark_shredding(spark, False):
            events.selectExpr("parse_json(j) AS v").write.mode("overwrite").parquet(str(path))
    return str(path)


def writers(spark: SparkSession, src: str, out: Path) -> dict[str, Callable[[], None]]:
    variant = spark.read.schema("v VARIANT").parquet(src)

    def spark_writer(name: str, shred: bool, schema: str | None = None) -> Callable[[], None]:
        def write() -> None:
            with spark_shredding(spark, shred, schema):
                variant.write.mode("overwrite").parquet(str(out / name))
        return write

    def ours(name: str, layout: str, columnar: bool = True) -> Callable[[], None]:
        def write() -> None:
            with spark_shredding(spark, False):  # ours ignores Spark's settings either way
                spark.conf.set(COLUMNAR, str(columnar).lower())
                try:
                    pyspark_ext.shred(variant, "v", SHREDDING, layout=layout).write \
                        .mode("overwrite").parquet(str(out / name))
                finally:
                    spark.conf.unset(COLUMNAR)
        return write

    return {
        "unshredded": spark_writer("unshredded", False),
        "spark_forced": spark_writer("spark_forced", True, SHREDDING),
        "spark_inferred": spark_writer("spark_inferred", True),
        "spec": ours("spec", "spec"),
        "spec_rows": ours("spec_rows", "spec", columnar=False),
        "draft": ours("draft", "draft"),
        "draft_rows": ours("draft_rows", "draft", columnar=False),
    }


def _bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.glob("*.parquet"))


def run_write(spark: SparkSession, rows: int, out: Path, repeat: int = 3,
              only: tuple[str, ...] = WRITERS) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    work = out / "_writes"
    src = source(spark, rows)
    write = writers(spark, src, work)
    names = [n for n in WRITERS if n in only]
    samples: dict[str, list[float]] = {n: [] for n in names}
    for i in range(repeat + 1):  # round 0 warms every writer
        for name in (names if i % 2 == 0 else list(reversed(names))):
            print(f"[write] round {i} {name}", flush=True)
            started = time.perf_counter()
            write[name]()
            if i > 0:
                samples[name].append(time.perf_counter() - started)
    seconds = {n: statistics.median(v) for n, v in samples.items()}
    base = seconds.get("unshredded")
    result = {
        "rows": rows, "repeat": repeat, "seconds": {n: round(s, 2) for n, s in seconds.items()},
        "ratio": {n: round(s / base, 2) for n, s in seconds.items()} if base else {},
        "bytes": {n: _bytes(work / n) for n in names},
        "runs": {n: [round(s, 2) for s in v] for n, v in samples.items()},
    }
    (out / "write.json").write_text(json.dumps(result, indent=2))
    lines = [f"# VARIANT write speed: {rows:,} variant events, median of {repeat} (alternating)", "",
             "| writer | seconds | x unshredded | MiB written |", "|---|---|---|---|"]
    for n in names:
        lines.append(f"| {n} | {seconds[n]:.2f} | {result['ratio'].get(n, float('nan')):.2f} | "
                     f"{result['bytes'][n] / 2**20:.1f} |")
    (out / "write.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return result


def run_suite(spark: SparkSession, o: SuiteOptions) -> None:
    run_write(spark, o.scale or 1_000_000, o.out, o.repeat or 3)
