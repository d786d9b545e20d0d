"""Iceberg tables (Iceberg's runtime for Spark 4.1 or 3.5,
deps/iceberg/spark-<line>/pom.xml) in a Hadoop catalog ``ice``.

Run as its own pytest process in the Spark 4.1 or 3.5 venv (``.ci/run-lines`` does); on any other
line the module skips, saying where it runs.
"""
from __future__ import annotations

import pytest

from tests.tables.sessions import PRODUCTS, skip_unless_line, table_session

ICEBERG = PRODUCTS["iceberg"]
skip_unless_line(ICEBERG)


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    warehouse = tmp_path_factory.mktemp("iceberg")
    session = table_session(ICEBERG, str(warehouse / "spark"), **{
        "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.ice.type": "hadoop",
        "spark.sql.catalog.ice.warehouse": str(warehouse / "ice"),
    })
    session.sql("CREATE NAMESPACE IF NOT EXISTS ice.db")
    yield session
    session.stop()


def on_table(sql: str, table: str) -> str:
    """A query over the ``events`` view, run over ``table`` instead."""
    import re
    return re.sub(r"\bevents\b", table, sql)


@pytest.fixture(scope="session")
def events_source(spark, tmp_path_factory):
    """The nested ad-tech event log (600 rows) as temp view ``events_src``."""
    from pyspark_ext.data import adtech
    path = str(tmp_path_factory.mktemp("data") / "events")
    adtech.write_events(spark, path, rows=600, payload_width=8, partitions=2)
    spark.read.parquet(path).createOrReplaceTempView("events_src")
    return "events_src"


@pytest.fixture(scope="session")
def iceberg_events(spark, events_source):
    """The event log as Iceberg tables ``ice.db.events_v2`` and ``ice.db.events_v3``, two files each."""
    for version in (2, 3):
        spark.sql(f"CREATE OR REPLACE TABLE ice.db.events_v{version} USING iceberg "
                  f"TBLPROPERTIES ('format-version'='{version}') "
                  f"AS SELECT * FROM {events_source} WHERE id < 300")
        spark.sql(f"INSERT INTO ice.db.events_v{version} SELECT * FROM {events_source} WHERE id >= 300")
    return {2: "ice.db.events_v2", 3: "ice.db.events_v3"}


def compare(spark, query: str, leaves: bool = True):
    """``tests.support.differential.compare`` with rows compared by ``pyspark_ext.outcome`` (doubles
    to a relative tolerance): Iceberg plans a table's files in parallel, so two runs of one query,
    stock or not, may read them in another order and sum doubles in another order. The runs' rows
    are normalised by ``outcome.normalise``. ``leaves=False``: the read leaves are not compared (a
    whole VARIANT counts as one leaf, its shredded leaves as many)."""
    import pyspark_ext
    from tests.support.differential import ENABLED, Run, assert_same_rows, rows_of

    def run(enabled: bool) -> Run:
        spark.conf.set(ENABLED, str(enabled).lower())
        try:
            df = spark.sql(query)
            return Run(rows_of(spark, df), pyspark_ext.explain_read_schema(df))
        finally:
            spark.conf.set(ENABLED, "true")

    stock, ext = run(False), run(True)
    assert_same_rows(ext.rows, stock.rows, f"with the extension on, for: {query}")
    assert not leaves or ext.leaves <= stock.leaves, (
        f"the extension reads more leaves than stock Spark: {ext.read_schemas} vs {stock.read_schemas}")
    return stock, ext
