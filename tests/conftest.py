"""One Spark session for the whole run, with the extension loaded, strict mode on and Spark's own
plan-change validation on, so a rule that breaks plan integrity fails the test that triggers it."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyspark.sql import SparkSession  # noqa: E402

import pyspark_ext  # noqa: E402
from pyspark_ext import adtech_data  # noqa: E402
from tests.differential import ENABLED  # noqa: E402


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("pyspark-ext-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.planChangeValidation", "true")
        .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("warehouse")))
        .config("spark.driver.memory", "2g")
        .config("spark.ui.showConsoleProgress", "false")
    )
    session = pyspark_ext.configure(builder, strict=True).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _extension_on(spark):
    spark.conf.set(ENABLED, "true")
    yield
    spark.conf.set(ENABLED, "true")


@pytest.fixture(scope="session")
def events(spark, tmp_path_factory):
    """The nested ad-tech event log as temp view ``events`` (2,000 rows in 4 files)."""
    path = str(tmp_path_factory.mktemp("data") / "events")
    adtech_data.write_events(spark, path, rows=2000, payload_width=24)
    spark.read.parquet(path).createOrReplaceTempView("events")
    return path
