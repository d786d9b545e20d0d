"""The differential fuzzer in Iceberg mode (``--table-format iceberg``, ``fuzz_iceberg``): its
tables carry the history it promises, and a fixed sample of its random queries over them gives
stock Spark + Iceberg's outcome with the extension on. ``python -m devtools.fuzz
--table-format iceberg`` searches longer."""
from __future__ import annotations

import io

import pytest

import pyspark_ext
from pyspark_ext import jar
from devtools import fuzz, fuzz_iceberg
from tests.support.differential import ENABLED, confs

QUERIES = 20
SEED = 43


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory) -> dict[str, str]:
    return fuzz_iceberg.write_tables(spark, tmp_path_factory.mktemp("fuzz_iceberg"), rows=300,
                                     variant=jar.carries_variant())


def _delete_contents(spark, table: str) -> set[int]:
    """Kinds of the table's live delete files: 1 position (deletion vectors too), 2 equality."""
    return {r[0] for r in spark.sql(f"SELECT DISTINCT content FROM {table}.delete_files").collect()}


def test_tables_have_deletes_and_evolution(spark, tables):
    nested = tables["nested"]
    assert _delete_contents(spark, nested) == {1, 2}
    assert spark.sql(f"SELECT count(DISTINCT spec_id) FROM {nested}.files").first()[0] == 2
    geo = spark.table(nested).schema["user"].dataType["geo"].dataType
    assert geo.fieldNames() == ["country", "city", "lat", "lon", "zip"]
    # rows written while user.geo.city was named town read under its name again
    assert spark.sql(f"SELECT count(*) FROM {nested} WHERE user.geo.city LIKE '%+'").first()[0] > 0
    assert spark.sql(f"SELECT count(payload.f0015) FROM {nested} WHERE id < 200").first()[0] > 0
    _history_has_older_schemas(spark, nested)
    _branch_has_its_own_commit(spark, nested, ("first_insert", "side"))
    if not jar.carries_variant():
        return
    assert _delete_contents(spark, tables["variant_truth"]) == {1}
    assert _delete_contents(spark, tables["variant_spec"]) == {1, 2}
    # the files its UPDATE wrote have no deletes: the extension reads them, Iceberg's reader the rest
    report = pyspark_ext.explain_read_schema(spark.sql(f"SELECT id, v:kind::string FROM {tables['variant_spec']}"))
    assert fuzz.iceberg_readers(report) == "by both readers in one query", report
    draft = tables["variant_draft"]
    assert _delete_contents(spark, draft) == set()
    # no delete file, no column change: the one the extension reads itself, by shredded leaves
    report = pyspark_ext.explain_read_schema(spark.sql(f"SELECT id, v:kind::string FROM {draft}"))
    assert report and all(s["format"] != "SparkBatchQueryScan" and not s.get("left_to_format_reader")
                          for s in report), report
    assert ":variant" not in "".join(s["read_schema"] for s in report), report
    _branch_has_its_own_commit(spark, draft, ("inserted", "side"))
    # the branch too is read by the extension itself, with stock's rows
    query = f"SELECT id, v:kind::string AS kind FROM {draft} VERSION AS OF 'side' WHERE id % 19 < 3"
    report = pyspark_ext.explain_read_schema(spark.sql(query))
    assert report and not any(s.get("left_to_format_reader") for s in report), report
    with_ext = sorted(spark.sql(query).collect())
    with confs(spark, {ENABLED: "false"}):
        assert with_ext == sorted(spark.sql(query).collect())


def _branch_has_its_own_commit(spark, table, names) -> None:
    """The recorded branches and tags, and the branch's delete of every id % 19 = 1, which main keeps."""
    assert table.refs == names
    count = "SELECT count(*) FROM {t} {clause} WHERE id % 19 = 1"
    assert spark.sql(count.format(t=table, clause="VERSION AS OF 'side'")).first()[0] == 0
    assert spark.sql(count.format(t=table, clause="")).first()[0] > 0


def _history_has_older_schemas(spark, nested) -> None:
    """The recorded snapshots are the table's, oldest first, and time travel reads them with the
    schema they were written under: before the column changes, and with ``town`` after them."""
    history = nested.snapshots
    assert [s.id for s in history] == [r[0] for r in spark.sql(
        f"SELECT snapshot_id FROM {nested}.snapshots ORDER BY committed_at").collect()]
    assert len(history) >= 2

    def geo(clause: str) -> list[str]:
        return spark.sql(f"SELECT * FROM {nested} {clause}").schema["user"].dataType["geo"].dataType.fieldNames()

    first, last = history[0], history[-1]
    assert geo(f"VERSION AS OF {first.id}") == geo(f"TIMESTAMP AS OF '{first.committed_at}'") \
        == ["country", "city", "lat", "lon"]
    assert geo(f"FOR SYSTEM_VERSION AS OF {last.id}") == geo(f"FOR SYSTEM_TIME AS OF '{last.committed_at}'") \
        == ["country", "town", "lat", "lon", "zip"]


def test_random_queries_agree_with_stock_iceberg(spark, tables):
    kind = "all" if jar.carries_variant() else "nested"
    out = io.StringIO()
    summary = fuzz.fuzz(spark, tables, QUERIES, SEED, kind, reduce_limit=1, budget=30, progress=False,
                        out=out, table_format="iceberg")
    assert summary.queries == QUERIES
    assert summary.mismatches == 0, out.getvalue()
    # the queries ran, mostly to rows, over the Iceberg tables
    assert sum(summary.errors.values()) < QUERIES // 2, summary.lines()
    case = fuzz.draw(SEED, 0, kind, "iceberg")
    assert f"{fuzz_iceberg.NAMESPACE}." in case.sql(tables)
    # some of them read older snapshots, by id and by commit time, as the SQL they ran says
    travelled = [fuzz.draw(SEED, i, kind, "iceberg", tables) for i in range(QUERIES)]
    travelled = [c.sql(tables) for c in travelled if "travel" in c.notes]
    assert summary.travelled == len(travelled) > 0, summary.lines()
    assert all(" AS OF " in sql for sql in travelled), travelled
    # and some of those name a branch or tag
    assert any(f"AS OF '{name}'" in sql for sql in travelled for name in ("side", "first_insert", "inserted"))
