"""Shredded VARIANT path reads on Iceberg tables with a history: time travel by snapshot id and by
timestamp, a tag and a branch, on a table whose schema and files changed between snapshots;
top-level equality deletes; partition evolution over hidden transforms. Rows equal stock Spark +
Iceberg every time; a relation whose planned files all qualify is read by the extension, by its
shredded leaves, and any other by Iceberg's reader, with the reason in ``explain_read_schema``."""
from __future__ import annotations


import pyspark_ext
from pyspark_ext import settings
import pytest

from devtools.fuzz_iceberg import equality_delete
from tests.tables.iceberg.test_iceberg_variant_reads import (OBJECT, OTHER, QUERIES, _by_extension, _create,
                                                             _insert, _warnings, compare, mixed_readers)

#: a path read whose read schema shows whether the shredded leaves were read
PATH_READ = "SELECT id, v:b::string, v:c.d::double FROM {t} WHERE v:b::string >= 's000100'"


def _left_to_iceberg(spark, query: str) -> list:
    """``left_to_format_reader`` of each scan of ``query``."""
    return [s.get("left_to_format_reader") for s in pyspark_ext.explain_read_schema(spark.sql(query))]


@pytest.fixture(scope="module")
def history(spark):
    """``ice.db.vr_history``: snapshot 1 (rows 0-399, tag ``snap1``); then column ``k`` dropped and
    rows 400-599 written shredding ``a`` as a string; branch ``dev`` from there, with rows 600-699
    on it; then, on main only, a merge-on-read DELETE (delete files). Returns the table, the first
    snapshot and its commit time as a string."""
    t = "ice.db.vr_history"
    _create(spark, t, ", 'write.delete.mode'='merge-on-read'")
    first = _insert(spark, t, 0, 400)
    committed = spark.sql(f"SELECT cast(committed_at AS string) FROM {t}.snapshots "
                          f"WHERE snapshot_id = {first}").first()[0]
    spark.sql(f"ALTER TABLE {t} CREATE TAG snap1 AS OF VERSION {first}")
    spark.sql(f"ALTER TABLE {t} DROP COLUMN k")
    spark.sql(f"INSERT INTO {t} SELECT id, {OTHER}, named_struct('n', id, 'w', parse_json('1')) "
              f"FROM range(400, 600) ORDER BY id")
    spark.sql(f"ALTER TABLE {t} CREATE BRANCH dev")
    spark.sql(f"INSERT INTO {t}.branch_dev SELECT id, {OBJECT}, named_struct('n', id, 'w', parse_json('2')) "
              f"FROM range(600, 700) ORDER BY id")
    spark.sql(f"DELETE FROM {t} WHERE id % 10 = 0")
    return t, first, committed


@pytest.mark.parametrize("form", ["VERSION AS OF {first}", "TIMESTAMP AS OF '{committed}'",
                                  "VERSION AS OF 'snap1'", "VERSION AS OF 'dev'"])
def test_time_travel_tags_and_branches_read_by_their_leaves(spark, history, form):
    """A snapshot before the schema change (by id, by timestamp, by tag) is read with its own
    schema, ``k`` included; the branch, which has no delete files, with the table's schema. All
    four are read by the extension, by their shredded leaves."""
    t, first, committed = history
    source = f"{t} {form.format(first=first, committed=committed)}"
    for query in ["SELECT * FROM {t} WHERE id % 50 = 1", QUERIES[2]]:
        compare(spark, query.format(t=source))
    stock, ext = compare(spark, PATH_READ.format(t=source))
    assert len(stock.rows) == (300 if "dev" not in form else 600)
    assert _by_extension(ext), ext.read_schemas
    assert any("b:struct<" in s for s in ext.read_schemas), ext.read_schemas
    assert all("a:struct<" not in s for s in ext.read_schemas), ext.read_schemas
    assert _left_to_iceberg(spark, PATH_READ.format(t=source)) == [None] * len(ext.scans)
    if "dev" not in form:
        assert [f.name for f in spark.sql(f"SELECT * FROM {source}").schema] == ["id", "k", "v", "s"]


def test_main_with_delete_files_stays_with_iceberg_and_explain_says_why(spark, history):
    t, _, _ = history
    stock, ext = compare(spark, PATH_READ.format(t=t))
    assert len(stock.rows) == 450
    assert not _by_extension(ext), ext.read_schemas
    (reason,) = _left_to_iceberg(spark, PATH_READ.format(t=t))
    assert reason.startswith(f"Iceberg's reader reads the variant columns of Iceberg table {t}, because ")
    assert "have delete files" in reason, reason
    assert any("have delete files" in w for w in _warnings(spark, t))
    text = pyspark_ext.format_report(pyspark_ext.explain_read_schema(spark.sql(PATH_READ.format(t=t))))
    assert f"reader      : {reason}" in text


def test_explain_says_why_a_switched_off_or_unshredded_relation_stays_with_iceberg(spark):
    t = "ice.db.vr_unshredded"
    _create(spark, t)
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ('write.parquet.shred-variants'='false')")
    _insert(spark, t, 0, 100)
    (reason,) = _left_to_iceberg(spark, f"SELECT v:b::string FROM {t}")
    assert reason == (f"Iceberg's reader reads the variant columns of Iceberg table {t}, because none of "
                      "its data files shreds a variant column")
    spark.conf.set(settings.ICEBERG_VARIANT_READS, "false")
    try:
        (reason,) = _left_to_iceberg(spark, f"SELECT v:b::string FROM {t} WHERE id > 3")
    finally:
        spark.conf.unset(settings.ICEBERG_VARIANT_READS)
    assert reason.endswith("because spark.pyspark_ext.variant.iceberg.enabled is false"), reason
    # a table without VARIANT columns: nothing to say
    assert _left_to_iceberg(spark, "SELECT 1 AS x") == []


def test_top_level_equality_deletes_leave_their_files_to_iceberg(spark):
    """Equality deletes on a top-level column apply to the files written before them: those files
    go to Iceberg's reader, and the files written after the deletes are read by the extension, by
    their shredded leaves, in the same query; the snapshot before the deletes is read by the
    extension alone."""
    t = "ice.db.vr_eqdel"
    spark.sql(f"CREATE OR REPLACE TABLE {t} (id BIGINT, e INT, v VARIANT, s STRUCT<n: BIGINT, w: VARIANT>) "
              "USING iceberg TBLPROPERTIES ('format-version'='3', 'write.parquet.shred-variants'='true', "
              "'read.parquet.vectorization.enabled'='false', 'write.parquet.row-group-size-bytes'='8192')")
    insert = (f"INSERT INTO {t} SELECT id, CAST(id % 7 AS INT), {OBJECT}, named_struct('n', id, 'w', "
              "parse_json(to_json(named_struct('k', id % 3)))) FROM range({lo}, {hi}) ORDER BY id")
    spark.sql(insert.format(lo=0, hi=300))
    before = spark.sql(f"SELECT snapshot_id FROM {t}.snapshots ORDER BY committed_at DESC LIMIT 1").first()[0]
    equality_delete(spark, t, "e", [0, 3])
    spark.sql(insert.format(lo=300, hi=500))  # written after the deletes: they do not apply to it
    assert spark.sql(f"SELECT count(*) FROM {t} WHERE e IN (0, 3)").first()[0] == sum(
        1 for i in range(300, 500) if i % 7 in (0, 3))
    files = spark.sql(f"SELECT count(*) FROM {t}.files WHERE content = 0").first()[0]
    deleted = spark.sql(f"SELECT count(*) FROM {t}.files VERSION AS OF {before} WHERE content = 0").first()[0]
    for query in QUERIES[1:3] + [PATH_READ]:
        stock, ext = compare(spark, query.format(t=t))
        assert mixed_readers(ext), ext.read_schemas
    reasons = [r for r in _left_to_iceberg(spark, PATH_READ.format(t=t)) if r]
    assert len(reasons) == 1 and reasons[0].startswith(
        f"Iceberg's reader reads {deleted} of the {files} data files of Iceberg table {t}, because they "
        "have delete files (rows Iceberg's reader drops): its data file "), reasons
    assert any(w.startswith(f"pyspark-ext reads the data files of Iceberg table {t} that have delete files")
               for w in _warnings(spark, t))
    _, old = compare(spark, PATH_READ.format(t=f"{t} VERSION AS OF {before}"))
    assert _by_extension(old), old.read_schemas
    # Iceberg's reader of a set of files reads with the current schema: a column added since
    # changes no column the snapshot reads, a renamed field does, and a snapshot that needs
    # Iceberg's reader for some files is then read by it whole
    after = spark.sql(f"SELECT snapshot_id FROM {t}.snapshots ORDER BY committed_at DESC LIMIT 1").first()[0]
    travel = PATH_READ.format(t=f"{t} VERSION AS OF {after}")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN z INT")
    _, added = compare(spark, travel)
    assert mixed_readers(added), added.read_schemas
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN s.n TO m")
    _, whole = compare(spark, travel)
    assert not _by_extension(whole) and not mixed_readers(whole), whole.read_schemas
    (reason,) = _left_to_iceberg(spark, travel)
    assert reason.endswith("and the relation reads a snapshot whose schema is not the table's current one, "
                           "which Iceberg's reader of a set of files reads with"), reason


def test_partition_evolution_with_hidden_transforms(spark):
    """``days(ts)``, then ``bucket(4, id)`` instead: the files hold the transforms' source columns,
    so every file is read by the extension, partition pruning by Iceberg included."""
    t = "ice.db.vr_partitions"
    spark.sql(f"CREATE OR REPLACE TABLE {t} (id BIGINT, ts TIMESTAMP, v VARIANT) USING iceberg "
              "PARTITIONED BY (days(ts)) TBLPROPERTIES ('format-version'='3', "
              "'write.parquet.shred-variants'='true', 'read.parquet.vectorization.enabled'='false')")
    insert = (f"INSERT INTO {t} SELECT id, timestamp'2026-01-01 00:00:00' + make_interval(0, 0, 0, "
              "CAST(id % 3 AS INT)), {value} FROM range({lo}, {hi}) ORDER BY id")
    spark.sql(insert.format(value=OBJECT, lo=0, hi=300))
    spark.sql(f"ALTER TABLE {t} ADD PARTITION FIELD bucket(4, id)")
    spark.sql(f"ALTER TABLE {t} DROP PARTITION FIELD days(ts)")
    spark.sql(insert.format(value=OTHER, lo=300, hi=600))
    assert spark.sql(f"SELECT count(DISTINCT spec_id) FROM {t}.files").first()[0] == 2
    for query in [PATH_READ, "SELECT id, ts, v:a::string FROM {t} WHERE ts = timestamp'2026-01-02 00:00:00'",
                  "SELECT count(*), max(v:b::string) FROM {t} WHERE id IN (5, 305, 599)",
                  "SELECT date(ts), count(v:c.d::double) FROM {t} GROUP BY 1", QUERIES[0]]:
        stock, ext = compare(spark, query.format(t=t))
        assert _by_extension(ext), (query, ext.read_schemas)
    assert _warnings(spark, t) == []
