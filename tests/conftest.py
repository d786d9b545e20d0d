"""One strict Spark session for the whole run (see ``tests.differential.strict_session``)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from pyspark_ext import adtech_data  # noqa: E402
from tests.differential import ENABLED, strict_session  # noqa: E402


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    session = strict_session("pyspark-ext-tests", str(tmp_path_factory.mktemp("warehouse")))
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
