"""Iceberg v2 and v3 tables, never wrong: position deletes (v2 delete files, v3 deletion vectors),
equality deletes, merge-on-read UPDATE and MERGE, schema evolution of nested fields, partition
evolution and time travel. Every query returns the rows stock Spark + Iceberg returns (strict
mode: the extension failing inside fails the test), and writes made with the extension on leave
the same table as writes made with it off."""
from __future__ import annotations

import pytest

from tests.support.differential import ENABLED, confs
from tests.tables.iceberg.conftest import compare
from devtools.fuzz_iceberg import equality_delete

MERGE_ON_READ = ("'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', "
                 "'write.merge.mode'='merge-on-read'")

#: nested queries over any copy of the event log; {t} is the table
QUERIES = [
    "SELECT id, user.geo.city FROM {t} WHERE user.geo.country = 'US'",
    "SELECT count(*) FROM {t} WHERE exists(page.views, v -> v.ts % 7 = 0)",
    "SELECT id, view.ts, view.ref FROM {t} LATERAL VIEW explode(page.views) v AS view",
    "SELECT user.geo.country, sum(payload.f0002), count(*) FROM {t} GROUP BY ROLLUP(user.geo.country)",
    "SELECT sum(size(page.views)), count(user), avg(attrs['ctr'].score) FROM {t}",
    "SELECT count(*) FROM {t} e WHERE EXISTS (SELECT 1 FROM {t} x WHERE x.id = e.payload.f0000 % 600)",
    "SELECT * FROM {t}",
]


def _rows(spark, table: str) -> list[str]:
    return sorted(repr(tuple(r)) for r in spark.table(table).collect())


def _same_as_stock(spark, table: str, queries=QUERIES) -> None:
    for q in queries:
        compare(spark, q.format(t=table))


def _copy(spark, source: str, table: str, version: int, props: str = "", where: str = "true") -> None:
    extra = f", {props}" if props else ""
    spark.sql(f"CREATE OR REPLACE TABLE {table} USING iceberg "
              f"TBLPROPERTIES ('format-version'='{version}'{extra}) AS SELECT * FROM {source} WHERE {where}")


def _delete_contents(spark, table: str) -> set[int]:
    """Content kinds of the table's live delete files: 1 position deletes, 2 equality deletes."""
    return {r[0] for r in spark.sql(f"SELECT content FROM {table}.delete_files").collect()}


@pytest.mark.parametrize("version", [2, 3])
def test_position_deletes(spark, events_source, version):
    t = f"ice.db.posdel_v{version}"
    _copy(spark, events_source, t, version, MERGE_ON_READ)
    spark.sql(f"DELETE FROM {t} WHERE id % 5 = 0")
    spark.sql(f"DELETE FROM {t} WHERE user.geo.country = 'US' AND exists(page.views, v -> v.ts % 2 = 0)")
    assert _delete_contents(spark, t) == {1}  # v3: deletion vectors, also position deletes
    _same_as_stock(spark, t)


@pytest.mark.parametrize("version", [2, 3])
def test_merge_on_read_update_and_merge_write_what_stock_writes(spark, events_source, version):
    source = (f"(SELECT id + CASE WHEN id % 50 = 0 THEN 1000 ELSE 0 END AS id, user, page, attrs, payload "
              f"FROM {events_source} WHERE id % 4 = 0)")
    ops = [
        "UPDATE {t} SET payload.f0000 = -1 WHERE id % 7 = 0",
        "UPDATE {t} SET user.geo.city = upper(user.geo.city) WHERE exists(page.views, v -> v.ts % 3 = 0)",
        f"MERGE INTO {{t}} t USING {source} s ON t.id = s.id "
        "WHEN MATCHED AND s.id % 8 = 0 THEN DELETE "
        "WHEN MATCHED THEN UPDATE SET t.page = s.page, t.user.geo.lat = 0.0 "
        "WHEN NOT MATCHED THEN INSERT *",
        "DELETE FROM {t} WHERE size(page.views) = 0",
    ]
    tables = {}
    for enabled in (False, True):
        t = f"ice.db.mor_v{version}_{'ext' if enabled else 'stock'}"
        _copy(spark, events_source, t, version, MERGE_ON_READ)
        with confs(spark, {ENABLED: str(enabled).lower()}):
            for op in ops:
                spark.sql(op.format(t=t))
        tables[enabled] = t
    assert _delete_contents(spark, tables[True]) == {1}
    assert _rows(spark, tables[True]) == _rows(spark, tables[False])
    _same_as_stock(spark, tables[True])


@pytest.mark.parametrize("version", [2, 3])
def test_equality_deletes(spark, events_source, version):
    t = f"ice.db.eqdel_v{version}"
    spark.sql(f"CREATE OR REPLACE TABLE {t} USING iceberg TBLPROPERTIES ('format-version'='{version}') "
              f"AS SELECT CAST(id AS INT) AS k, * FROM {events_source}")
    equality_delete(spark, t, "k", list(range(0, 600, 3)))
    assert _delete_contents(spark, t) == {2}
    assert spark.table(t).count() == 400
    _same_as_stock(spark, t)
    # the deletes' column is read by Iceberg, not asked for by the plan
    _, ext = compare(spark, f"SELECT user.geo.city FROM {t}")
    assert ext.read_schemas == ["struct<user:struct<geo:struct<city:string>>>"]


@pytest.mark.parametrize("version", [2, 3])
def test_nested_schema_evolution(spark, events_source, version):
    t = f"ice.db.evolve_v{version}"
    _copy(spark, events_source, t, version)
    for ddl in [
        "ADD COLUMN user.geo.zip string",
        "RENAME COLUMN user.geo.city TO town",
        "DROP COLUMN page.url",
        "ADD COLUMN page.url string",            # a new field under an old name: old rows are null
        "ADD COLUMN page.views.element.dwell int",
        "RENAME COLUMN attrs.value.label TO tag",
        "DROP COLUMN payload.f0001",
    ]:
        spark.sql(f"ALTER TABLE {t} {ddl}")
    spark.sql(f"INSERT INTO {t} SELECT id + 1000, user, page, attrs, payload FROM {t} WHERE id < 100")
    spark.sql(f"UPDATE {t} SET user.geo.zip = concat('z', id), page.url = 'u' WHERE id >= 1000")
    queries = [q for q in QUERIES if "city" not in q] + [
        "SELECT user.geo.town, user.geo.zip FROM {t} WHERE user.geo.country = 'US'",
        "SELECT page.url, size(page.views) FROM {t}",
        "SELECT view.dwell, view.ts FROM {t} LATERAL VIEW explode(page.views) v AS view",
        "SELECT attrs['ctr'].tag, map_values(attrs).score FROM {t}",
        "SELECT count(user.geo.zip), count(page.url), count(payload) FROM {t}",
    ]
    _same_as_stock(spark, t, queries)
    _, ext = compare(spark, f"SELECT count(*) FROM {t} WHERE exists(page.views, v -> v.dwell IS NULL)")
    assert ext.read_schemas == ["struct<page:struct<views:array<struct<dwell:int>>>>"]


@pytest.mark.parametrize("version", [2, 3])
def test_partition_evolution(spark, events_source, version):
    t = f"ice.db.partitions_v{version}"
    spark.sql(f"CREATE OR REPLACE TABLE {t} USING iceberg PARTITIONED BY (bucket(4, id)) "
              f"TBLPROPERTIES ('format-version'='{version}') AS SELECT * FROM {events_source} WHERE id < 200")
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD user.geo.country")
    spark.sql(f"INSERT INTO {t} SELECT * FROM {events_source} WHERE id >= 200 AND id < 400")
    spark.sql(f"ALTER TABLE {t} DROP PARTITION FIELD bucket(4, id)")
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD truncate(2, user.user_id)")
    spark.sql(f"INSERT INTO {t} SELECT * FROM {events_source} WHERE id >= 400")
    assert spark.sql(f"SELECT count(DISTINCT spec_id) FROM {t}.files").first()[0] == 3
    _same_as_stock(spark, t, QUERIES + [
        "SELECT id, page.views[0].ref FROM {t} WHERE user.geo.country = 'GB' AND id % 3 = 0",
        "SELECT user.geo.country, count(*) FROM {t} WHERE user.user_id LIKE 'u1%' GROUP BY 1",
    ])


def test_time_travel(spark, events_source):
    t = "ice.db.travel"
    _copy(spark, events_source, t, 2, MERGE_ON_READ)
    first = spark.sql(f"SELECT snapshot_id FROM {t}.snapshots ORDER BY committed_at").first()[0]
    spark.sql(f"DELETE FROM {t} WHERE id % 2 = 0")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN user.geo.city TO town")
    compare(spark, f"SELECT count(*), count(user.geo.city) FROM {t} VERSION AS OF {first} "
                   "WHERE exists(page.views, v -> v.ts % 7 = 0)")
    compare(spark, f"SELECT count(*), count(user.geo.town) FROM {t} WHERE exists(page.views, v -> v.ts % 7 = 0)")
