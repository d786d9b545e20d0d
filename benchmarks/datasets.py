"""Benchmark datasets, deterministic from their parameters and written once to a cache dir."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from pyspark.sql import SparkSession

from pyspark_ext.data import adtech

CACHE_ENV = "PYSPARK_EXT_BENCH_DATA"


def data_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "pyspark_ext" / "bench")


def _key(name: str, **params) -> Path:
    digest = hashlib.sha1(json.dumps(params, sort_keys=True).encode()).hexdigest()[:10]
    return data_root() / f"{name}_{digest}"


def nested_events(spark: SparkSession, rows: int, payload_width: int = 1000, seed: int = 7) -> str:
    """The nested ad-tech event log (``pyspark_ext.data.adtech``) with a wide payload struct."""
    path = _key("nested_events", rows=rows, payload_width=payload_width, seed=seed, version=3)
    if not (path / "_SUCCESS").exists():
        partitions = max(2, min(64, rows // 250_000 + 2))
        adtech.write_events(spark, str(path), rows, payload_width, seed, partitions)
    return str(path)
