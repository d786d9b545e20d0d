"""Delta Lake tables for the differential tests: a strict session with Delta's jars and extension
(Spark 4.2 and 3.5, deps/delta/spark-<line>/pom.xml), and small tables that exercise what Delta's
reader adds to Parquet: deletion vectors, column mapping, time travel, MERGE, partitions, schema
evolution, OPTIMIZE / Z-order, and shredded VARIANT columns (not on 3.5, which has no VARIANT)."""
from __future__ import annotations

import glob
import os
import uuid

import pytest

from pyspark_ext.data import adtech as adtech_data
from tests.tables.sessions import PRODUCTS, table_session

# Each test module skips itself unless this is Delta's Spark line (skip_unless_line).
DELTA = PRODUCTS["delta"]


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    # Delta rebuilds a table's snapshot in 50 partitions by default: at test sizes that is 50
    # tasks per commit and per read, where 2 do (Delta's own tests lower it too)
    session = table_session(DELTA, str(tmp_path_factory.mktemp("warehouse")),
                            **{"spark.databricks.delta.snapshotPartitions": "2"})
    yield session
    session.stop()


def location(spark, table: str) -> str:
    return spark.sql(f"DESCRIBE DETAIL {table}").collect()[0]["location"].removeprefix("file:")


def log_has_deletion_vectors(spark, table: str) -> bool:
    """Whether some commit of ``table`` added a file with a deletion vector."""
    for commit in glob.glob(os.path.join(location(spark, table), "_delta_log", "*.json")):
        with open(commit) as f:
            if '"deletionVector":{' in f.read():
                return True
    return False


def spark_jobs(spark, query: str) -> int:
    """How many Spark jobs ``query`` runs, planning included, with the extension on."""
    sc = spark.sparkContext
    tag = f"spark-jobs-{uuid.uuid4().hex}"  # a tag of its own: a tag's jobs accumulate
    sc.addJobTag(tag)
    try:
        spark.sql(query).collect()
    finally:
        sc.removeJobTag(tag)
    sc._jsc.sc().listenerBus().waitUntilEmpty()  # the status store learns of jobs from it
    return len(sc._jsc.sc().statusTracker().getJobIdsForTag(tag))


def sql(spark, *statements: str) -> None:
    for statement in statements:
        spark.sql(statement)


@pytest.fixture(scope="session")
def events(spark, tmp_path_factory):
    """The ad-tech event log (tests/support/nested_shapes.py's ``events``) as a Delta table with deletion
    vectors, after a DELETE and an UPDATE of a nested field."""
    path = str(tmp_path_factory.mktemp("data") / "events_parquet")
    adtech_data.write_events(spark, path, rows=1200, payload_width=8)
    spark.read.parquet(path).write.format("delta") \
        .option("delta.enableDeletionVectors", "true").saveAsTable("events")
    sql(spark, "DELETE FROM events WHERE id % 5 = 0",
        "UPDATE events SET user.geo.city = 'Updated' WHERE id % 7 = 1")
    assert log_has_deletion_vectors(spark, "events")
    return "events"


def _column_mapped(spark, mode: str) -> str:
    table = f"cm_{mode}"
    sql(spark,
        f"CREATE TABLE {table} (id BIGINT, x INT, s STRUCT<a: INT, b: STRUCT<c: STRING, d: INT>, "
        "arr: ARRAY<STRUCT<e: INT, f: STRING>>>) USING DELTA TBLPROPERTIES "
        f"('delta.columnMapping.mode' = '{mode}', 'delta.enableDeletionVectors' = 'true')",
        f"INSERT INTO {table} SELECT id, CAST(id % 50 AS INT), named_struct('a', CAST(id AS INT), "
        "'b', named_struct('c', concat('c', id), 'd', CAST(id * 2 AS INT)), "
        "'arr', array(named_struct('e', CAST(id AS INT), 'f', concat('f', id)))) FROM range(300)",
        # renamed (the files keep the old physical names), dropped, then a column of the dropped
        # one's name added back (a new physical name: the old files' values must not reappear)
        f"ALTER TABLE {table} RENAME COLUMN s.a TO a2",
        f"ALTER TABLE {table} RENAME COLUMN x TO y",
        f"ALTER TABLE {table} DROP COLUMN s.b.d",
        f"ALTER TABLE {table} ADD COLUMNS (s.b.d STRING)",
        f"INSERT INTO {table} SELECT id, CAST(id % 50 AS INT), named_struct('a2', CAST(id AS INT), "
        "'b', named_struct('c', concat('c', id), 'd', concat('new', id)), "
        "'arr', array(named_struct('e', CAST(id AS INT), 'f', concat('f', id)))) "
        "FROM range(300, 450)",
        f"DELETE FROM {table} WHERE id % 4 = 0")
    assert log_has_deletion_vectors(spark, table)
    return table


@pytest.fixture(scope="session")
def cm_name(spark):
    return _column_mapped(spark, "name")


@pytest.fixture(scope="session")
def cm_id(spark):
    return _column_mapped(spark, "id")


@pytest.fixture(scope="session")
def evolved(spark):
    """A partitioned table over five versions: insert (1), MERGE (2), an append that adds nested
    fields through mergeSchema (3), OPTIMIZE ZORDER BY (4)."""
    sql(spark,
        "CREATE TABLE evolved (id BIGINT, p STRING, s STRUCT<a: INT, b: STRUCT<c: STRING, d: DOUBLE>>) "
        "USING DELTA PARTITIONED BY (p)",
        "INSERT INTO evolved SELECT id, concat('p', id % 3), named_struct('a', CAST(id AS INT), "
        "'b', named_struct('c', concat('c', id), 'd', id / 200D)) FROM range(200)",
        "MERGE INTO evolved t USING (SELECT id, concat('p', id % 3) AS p, named_struct('a', "
        "CAST(-id AS INT), 'b', named_struct('c', concat('m', id), 'd', id / 100D)) AS s "
        "FROM range(150, 260)) src ON t.id = src.id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    spark.sql("SELECT id, concat('p', id % 4) AS p, named_struct('a', CAST(id AS INT), 'b', "
              "named_struct('c', concat('e', id), 'd', id / 300D, 'e', concat('new', id)), "
              "'n', named_struct('x', CAST(id % 9 AS INT))) AS s FROM range(260, 330)") \
        .write.format("delta").mode("append").option("mergeSchema", "true").saveAsTable("evolved")
    sql(spark, "OPTIMIZE evolved ZORDER BY (id)")
    return "evolved"


VARIANT_ROW = ("parse_json(concat('{\"a\":', id, ',\"b\":\"s', id, '\",\"c\":{\"d\":', id * 1.5, "
               "'},\"arr\":[', id, ',', id + 1, ']}'))")


def _variant_table(spark, table: str, properties: str, *more: str) -> str:
    sql(spark,
        f"CREATE TABLE {table} (id BIGINT, p INT, v VARIANT) USING DELTA PARTITIONED BY (p) "
        f"TBLPROPERTIES ('delta.enableVariantShredding' = 'true'{properties})",
        f"INSERT INTO {table} SELECT id, CAST(id % 2 AS INT), {VARIANT_ROW} FROM range(240)",
        *more)
    return table


@pytest.fixture(scope="session")
def variants(spark):
    """Shredded VARIANT with deletion vectors: files written by INSERT, MERGE (another shape:
    fields missing, others added, a null), then DELETE and UPDATE."""
    table = _variant_table(
        spark, "variants", ", 'delta.enableDeletionVectors' = 'true'",
        "MERGE INTO variants t USING (SELECT id, CAST(id % 2 AS INT) AS p, "
        "if(id % 11 = 0, NULL, parse_json(concat('{\"a\":', id, ',\"e\":true}'))) AS v "
        "FROM range(200, 320)) s ON t.id = s.id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
        "DELETE FROM variants WHERE id % 3 = 0",
        "UPDATE variants SET v = parse_json('{\"a\": -1, \"b\": \"upd\"}') WHERE id % 10 = 1")
    assert log_has_deletion_vectors(spark, table)
    return table
