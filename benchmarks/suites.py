"""Every benchmark suite, one registration line each.

A suite is a module with ``run_suite(spark, options)``; ``python -m benchmarks run --suite NAME``
starts one Spark session with the extension loaded and calls it. Commands that start processes of
their own (one per Spark line, one per table format) are in ``COMMANDS``: ``python -m benchmarks
NAME ...`` calls their module's ``main(argv)``. A new suite is a module and a line here.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pyspark.sql import SparkSession

from pyspark_ext.session import local_session

#: suite -> (module under benchmarks/, what it measures)
SUITES: dict[str, tuple[str, str]] = {
    "quick": ("query_suites", "nested and variant queries at 100k/300k rows, about 3 minutes"),
    "nested": ("query_suites", "nested queries at 1M rows"),
    "full": ("query_suites", "nested and variant queries at 20M rows, about an hour"),
    "variant": ("query_suites", "variant queries over every storage form at 2M rows"),
    "path-limit": ("query_suites", "the extension's shredded forms against the flat table"),
    "spec": ("query_suites", "Spark's own shredded files, stock against the extension"),
    "overhead": ("query_suites", "planning time the extension adds"),
    "producers": ("producers", "incremental key-sorted pipelines"),
    "peers": ("peers", "DuckDB against Spark on DuckDB's files"),
    "write": ("write_speed", "what shredding costs a VARIANT write"),
    "advisor": ("advisor_schema", "the advisor's shredding schema against the alternatives"),
    "skipping": ("skipping", "bloom filters and clustering on unsorted variant events"),
}

#: command -> (module under benchmarks/ with main(argv), what it does)
COMMANDS: dict[str, tuple[str, str]] = {
    "lines": ("lines", "the quick suite on every supported Spark line, a table per release"),
    "tables": ("tables", "a Parquet path against a Delta table, an Iceberg table, and with Comet"),
}


@dataclass(frozen=True)
class SuiteOptions:
    suite: str
    out: Path
    scale: int | None = None
    repeat: int | None = None
    kinds: tuple[str, ...] = ("sorted", "unsorted")
    baseline_rows: int | None = None
    skip: frozenset[str] = field(default_factory=frozenset)


class Suite(Protocol):
    def run_suite(self, spark: SparkSession, options: SuiteOptions) -> None: ...


def module(name: str) -> Suite:
    return importlib.import_module(f"benchmarks.{name}")  # type: ignore[return-value]


def session() -> SparkSession:
    return local_session("pyspark-ext benchmarks", shuffle_partitions=8,
                         confs={"spark.driver.memory": os.environ.get("BENCH_DRIVER_MEMORY", "8g")})


def run(options: SuiteOptions) -> Path:
    spark = session()
    try:
        module(SUITES[options.suite][0]).run_suite(spark, options)
    finally:
        spark.stop()
    return options.out
