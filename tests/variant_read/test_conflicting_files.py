"""Tables whose files shred the variant differently ("conflicting files"), which the extension
reads as a Union of per-file scans: correlated subqueries over them (Spark's
PushProjectionThroughUnion fails on a Project holding one over a Union; decorrelation copies a
scan with its ids, which nested pruning must not read with two types) return stock Spark's rows."""
from __future__ import annotations

import json
import random

import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.spark_shredding import spark_shredding
from tests.support.differential import ENABLED, confs
from tests.support.rows import row_strings

SPEC_FILES = ["struct<id: bigint, price: double, kind: string>",
              "struct<id: string, price: decimal(10,2), user: struct<age: bigint>>"]
DRAFT_FILES = ["id bigint, price double, kind string",
               "id string, price decimal(10,2), user struct<age: bigint>"]


def _events(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        e = {"id": rnd.choice([i, i, str(i)]), "price": rnd.choice([rnd.randrange(500) / 4, str(i), None]),
             "kind": rnd.choice(["view", "click", 3])}
        if rnd.random() < 0.7:
            e["user"] = {"age": rnd.choice([rnd.randrange(90), "old"])}
        out.append(json.dumps(e))
    return out


def write_truth_and_spec(spark: SparkSession, n: int, seed: int, paths: dict[str, str]):
    """``n`` events as ``id, v``, written unshredded to ``paths["truth"]`` and, half by
    ``SPEC_FILES[0]`` and half by ``SPEC_FILES[1]``, to ``paths["spec"]``; returns them."""
    truth = spark.createDataFrame(list(enumerate(_events(n, seed=seed))), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v")
    with spark_shredding(spark, False):
        truth.coalesce(1).write.parquet(paths["truth"])
    for i, schema in enumerate(SPEC_FILES):
        with spark_shredding(spark, True, schema):
            truth.where(f"id % 2 = {i}").coalesce(1).write.mode("append").parquet(paths["spec"])
    return truth


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("conflicting")
    paths = {name: str(base / name) for name in ("truth", "spec", "draft")}
    truth = write_truth_and_spec(spark, 240, 5, paths)
    for i, schema in enumerate(DRAFT_FILES):
        pyspark_ext.shred(truth.where(f"id % 2 = {i}"), "v", schema).coalesce(1) \
            .write.mode("append").parquet(paths["draft"])
    return paths


def _rows(spark: SparkSession, sql: str, enabled: bool) -> list[str]:
    with confs(spark, {ENABLED: str(enabled).lower()}):
        return row_strings(spark.sql(sql).collect(), fuzzer=True)


def _sql(template: str, path: str) -> str:
    return template.format(t=f"parquet.`{path}`")


def test_tables_are_read_as_unions(spark: SparkSession, tables) -> None:
    """The point of this module: the extension reads both tables as a Union of per-file scans."""
    for name in ("spec", "draft"):
        plan = spark.sql(_sql("SELECT * FROM {t}", tables[name]))._jdf.queryExecution().optimizedPlan()
        assert "Union" in plan.toString(), name


CORRELATED = [
    # equality correlation, the whole value
    "SELECT e.id, (SELECT to_json(x.v) FROM {t} AS x WHERE x.id = e.id) FROM {t} AS e",
    # non-equality correlation, a path read aggregated (seed 3 q97's shape)
    "SELECT e.id, (SELECT sum(try_variant_get(x.v, '$.price', 'double')) FROM {t} AS x "
    "WHERE x.id >= e.id) FROM {t} AS e",
    # count of whole values (seed 105 q100's shape)
    "SELECT (SELECT count(x.v) FROM {t} AS x WHERE x.id >= e.id) FROM {t} AS e",
    # the outer value whole beside a path filter (seed 105 q28's shape)
    "SELECT to_json(e.v), (SELECT sum(try_variant_get(x.v, '$.user.age', 'decimal(38,10)')) "
    "FROM {t} AS x WHERE x.id >= e.id) FROM {t} AS e "
    "WHERE try_variant_get(e.v, '$.price', 'float') < 60",
    # EXISTS and IN in the select list, equality and non-equality correlation
    "SELECT e.id, EXISTS (SELECT 1 FROM {t} AS x WHERE x.id = e.id + 1 "
    "AND variant_get(x.v, '$.kind', 'string') = 'view') FROM {t} AS e",
    "SELECT e.id, e.id IN (SELECT x.id FROM {t} AS x WHERE x.id > e.id - 3 "
    "AND try_variant_get(x.v, '$.user.age', 'int') < 50) FROM {t} AS e",
    # in WHERE
    "SELECT e.id FROM {t} AS e WHERE NOT EXISTS (SELECT 1 FROM {t} AS x WHERE x.id = e.id + 1 "
    "AND try_variant_get(x.v, '$.price', 'double') > 20)",
    "SELECT e.id, variant_get(e.v, '$.id', 'string') FROM {t} AS e "
    "WHERE try_variant_get(e.v, '$.price', 'double') > "
    "(SELECT avg(try_variant_get(x.v, '$.price', 'double')) FROM {t} AS x WHERE x.id < e.id)",
    # grouped by a correlated subquery's value
    "SELECT (SELECT count(*) FROM {t} AS x WHERE x.id < e.id AND x.v IS NOT NULL) AS c, count(*) "
    "FROM {t} AS e GROUP BY 1",
]


@pytest.mark.parametrize("template", CORRELATED)
def test_correlated_subqueries_over_spec_layout(spark: SparkSession, tables, template: str) -> None:
    sql = _sql(template, tables["spec"])
    assert _rows(spark, sql, enabled=True) == _rows(spark, sql, enabled=False)


@pytest.mark.parametrize("template", CORRELATED)
def test_correlated_subqueries_over_draft_layout(spark: SparkSession, tables, template: str) -> None:
    """Stock Spark cannot read the draft layout: its rows are stock's over the unshredded copy."""
    assert _rows(spark, _sql(template, tables["draft"]), enabled=True) == \
        _rows(spark, _sql(template, tables["truth"]), enabled=False)


def test_union_all_of_the_user_over_a_correlated_subquery(spark: SparkSession, tables) -> None:
    """Stock Spark 4.3 fails on this query (SPARK-59042); with the extension it returns the rows
    of its two branches each queried on its own."""
    t = f"parquet.`{tables['truth']}`"
    subquery = f"(SELECT max(x.id) FROM {t} AS x WHERE x.id >= e.id)"
    over_union = f"SELECT e.id, {subquery} FROM (SELECT * FROM {t} UNION ALL SELECT * FROM {t}) AS e"
    branches = f"SELECT e.id, {subquery} FROM {t} AS e UNION ALL SELECT e.id, {subquery} FROM {t} AS e"
    assert _rows(spark, over_union, enabled=True) == _rows(spark, branches, enabled=False)


def _duckdb_files(directory, rows: list[tuple[int, str]]) -> str:
    """Two DuckDB-written spec-layout files that shred `user.age` differently (int64 in one,
    string in the other), with an unrelated wide field `pad`."""
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE src (id BIGINT, j VARCHAR)")
    con.executemany("INSERT INTO src VALUES (?, ?)", rows)
    for part, age in enumerate(["BIGINT", "VARCHAR"]):
        shredding = f"STRUCT(id BIGINT, \"user\" STRUCT(age {age}), kind VARCHAR, pad VARCHAR)"
        con.execute(f"COPY (SELECT id, CAST(j AS JSON)::VARIANT AS v FROM src WHERE id % 2 = {part}) "
                    f"TO '{directory}/part{part}.parquet' (FORMAT parquet, SHREDDING {{v: '{shredding}'}})")
    con.close()
    return str(directory)


@pytest.fixture(scope="module")
def duckdb_tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    rnd = random.Random(3)
    rows = []
    for i in range(300):
        age = rnd.randrange(90) if i % 2 == 0 else str(rnd.randrange(90))
        rows.append((i, json.dumps({"id": i, "user": {"age": age}, "kind": rnd.choice(["a", "b", "c"]),
                                    "pad": "x" * rnd.randrange(40, 80)})))
    base = tmp_path_factory.mktemp("duckdb")
    (base / "shredded").mkdir()
    truth = str(base / "truth")
    with spark_shredding(spark, False):
        spark.createDataFrame(rows, "id bigint, j string").selectExpr("id", "parse_json(j) AS v") \
            .coalesce(1).write.parquet(truth)
    return {"shredded": _duckdb_files(base / "shredded", rows), "truth": truth}


AGGREGATES = [
    ("SELECT sum(variant_get(v, '$.id', 'bigint')) FROM {t}", {"id"}),
    ("SELECT variant_get(v, '$.kind', 'string') AS k, count(*), sum(variant_get(v, '$.id', 'bigint')) "
     "FROM {t} GROUP BY k", {"id", "kind"}),
    # A join condition, a generator's argument, a projection above a join: the variant at the
    # path moves into the Union's children, the cast stays above (it must not fail on rows the
    # join drops).
    ("SELECT count(*), max(variant_get(a.v, '$.kind', 'string')) FROM {t} a "
     "JOIN (SELECT id AS k FROM range(0, 300, 7)) r ON variant_get(a.v, '$.id', 'bigint') = r.k",
     {"id", "kind"}),
    ("SELECT count(*), count(e.value) FROM {t}, LATERAL variant_explode(v:user) e", {"user"}),
    ("SELECT count(DISTINCT variant_get(v, '$.kind', 'string')) FROM {t}", {"kind"}),
    ("SELECT min(variant_get(v, '$.kind', 'string')), max(variant_get(v, '$.kind', 'string')) FROM {t}",
     {"kind"}),
    ("SELECT count(*), sum(try_variant_get(v, '$.user.age', 'int')) FROM {t} "
     "WHERE variant_get(v, '$.kind', 'string') = 'a'", {"kind", "user"}),
]


@pytest.mark.parametrize("template,fields", AGGREGATES)
def test_aggregates_over_files_shredded_differently_read_only_their_paths(
        spark: SparkSession, duckdb_tables, template: str, fields: set[str]) -> None:
    """Issue 22's bug: an aggregate over a path of such a table read every column of every file's
    variant group, because the path read stayed in the aggregate above the Union (Spark pushes
    projections into a Union, never aggregates) and rebuilt the variant whole."""
    sql = _sql(template, duckdb_tables["shredded"])
    assert "Union" in spark.sql(sql)._jdf.queryExecution().optimizedPlan().toString()
    assert _rows(spark, sql, enabled=True) == _rows(spark, _sql(template, duckdb_tables["truth"]), enabled=False)
    schemas = [s["read_schema"] for s in pyspark_ext.explain_read_schema(spark.sql(sql))]
    assert len(schemas) == 2, schemas
    for schema in schemas:
        assert "pad" not in schema, schema
        for field in {"id", "kind", "user"} - fields:
            assert f"{field}:" not in schema.replace("typed_value:", ""), schema


GUARDED = [
    # The strict read of kind as an int fails on every row; the join drops every row first, so
    # the query never evaluates it, and neither may a read computed in the Union's children.
    # (Stock Spark's own pushdown casts in its scan for every row and fails here, unless told to
    # defer the cast's error. Inside a CASE branch or an aggregate's FILTER, Spark itself pulls
    # such reads out of the aggregate into a projection evaluated for every row, so there both
    # stock Spark, by default, and the extension fail.)
    "SELECT variant_get(a.v, '$.kind', 'int') FROM {t} a JOIN (SELECT id AS k FROM range(1000, 1010)) r "
    "ON variant_get(a.v, '$.id', 'bigint') = r.k",
]


@pytest.mark.parametrize("template", GUARDED)
def test_reads_that_can_fail_move_only_where_every_row_evaluates_them(
        spark: SparkSession, duckdb_tables, template: str) -> None:
    sql = _sql(template, duckdb_tables["shredded"])
    with confs(spark, {"spark.sql.variant.pushVariantIntoScan.deferCastError": "true"}):
        truth = _rows(spark, _sql(template, duckdb_tables["truth"]), enabled=False)
    assert _rows(spark, sql, enabled=True) == truth
    for schema in (s["read_schema"] for s in pyspark_ext.explain_read_schema(spark.sql(sql))):
        assert "pad" not in schema and "user" not in schema, schema
