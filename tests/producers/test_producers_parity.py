"""What Parquet.Producers offers besides the basics: a stage's own key order, an update built from
an older version, Produce reading every value exactly once, and the order of a key's values."""
from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from pyspark.sql import Row
from pyspark.sql import functions as F

from pyspark_ext.producers import Add, Delete, Pipeline, ProducerError, Update

# Each test runs whole pipelines (several Spark jobs): in CI, not in the fast set
pytestmark = pytest.mark.slow


def rows(df):
    return [tuple(r) for r in df.collect()]


def stored_keys(p, name, kind="content"):
    """A stage's keys as stored: its files read in manifest order (no Spark)."""
    return [r["key"] for f in p.manifest()["stages"][name][kind]
            for r in pq.read_table(p.store.path(f["path"])).to_pylist()]


# -- key order ----------------------------------------------------------------------------------

def test_descending_key_order_through_run_and_updates(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"), rows_per_row_group=2, rows_per_file=3)
    src = p.source("src", key_order=F.col("key").desc())
    p.stage("mod", lambda k, vs: ((v % 7, k) for v in vs), src, key_type="int",
            value_type="int", key_order="key desc")
    p.run({"src": spark.createDataFrame([(i, i * 3) for i in range(20)], "key int, value int")})
    assert stored_keys(p, "src") == list(range(19, -1, -1))
    assert len(p.manifest()["stages"]["src"]["content"]) > 1  # the order spans files
    keys = stored_keys(p, "mod")
    assert keys == sorted(keys, reverse=True) and set(keys) == set(range(7))
    p.update({"src": spark.createDataFrame(
        [(Update, 4, 100), (Delete, 19, None), (Add, 25, 6), (Update, 10, 1)],
        "type string, key int, value int")})
    source = {i: i * 3 for i in range(20) if i != 19} | {4: 100, 25: 6, 10: 1}
    assert stored_keys(p, "src") == sorted(source, reverse=True)
    assert rows(p.content("src")) == sorted(source.items(), reverse=True)
    want = sorted(((v % 7, k) for k, v in source.items()), key=lambda r: (-r[0], r[1]))
    assert rows(p.content("mod")) == want
    keys = stored_keys(p, "mod")
    assert keys == sorted(keys, reverse=True)
    changed = [k for _, k, _ in rows(p.changes("mod"))]
    assert changed == sorted(changed, reverse=True)
    assert stored_keys(p, "mod", "update") == changed


def test_key_order_per_field_of_a_struct_key(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"), rows_per_row_group=2, rows_per_file=4)
    p.stage("by_day", lambda k, vs: ((Row(day=v % 3, n=k), v) for v in vs), p.source("src"),
            key_type="struct<day:int, n:int>", value_type="int",
            key_order=["key.day", F.col("key.n").desc()])
    p.run({"src": spark.createDataFrame([(i, i) for i in range(12)], "key int, value int")})
    p.update({"src": spark.createDataFrame([(Update, 5, 7), (Add, 20, 20)],
                                           "type string, key int, value int")})
    source = {i: i for i in range(12)} | {5: 7, 20: 20}
    want = sorted(((v % 3, k) for k, v in source.items()), key=lambda r: (r[0], -r[1]))
    assert [(k["day"], k["n"]) for k in stored_keys(p, "by_day")] == want
    assert [tuple(k) for k, _ in rows(p.content("by_day"))] == want


def test_key_order_errors(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"))
    with pytest.raises(ProducerError, match=r"stage 's' key_order: 'lower\(key\)' is not an "
                                            r"order on the key"):
        p.stage("s", lambda k, vs: vs, p.source("src"), key_order=F.lower("key"))
    p.stage("t", lambda k, vs: ((k, v) for v in vs), p.nodes["src"], key_order="key.nope")
    with pytest.raises(ProducerError, match=r"stage 't' key_order: the key \(bigint\) has no field "
                                            r"'nope'"):
        p.run({"src": spark.createDataFrame([(1, 1)], "key int, value int")})
    assert p.version is None
    # a committed key order cannot change
    q = Pipeline(spark, str(tmp_path / "q"))
    q.source("src", key_order=F.desc("key"))
    q.run({"src": spark.createDataFrame([(1, 1)], "key int, value int")})
    q2 = Pipeline(spark, str(tmp_path / "q"))
    q2.source("src")
    with pytest.raises(ProducerError, match=r"declared ascending, but the committed version "
                                            r"stores keys key desc nulls last"):
        q2.update({"src": spark.createDataFrame([(Add, 2, 2)], "type string, key int, value int")})
    assert q2.versions() == [1]


# -- an update based on an older version --------------------------------------------------------

def test_update_based_on_an_older_version(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"), rows_per_row_group=2, rows_per_file=3)
    p.stage("double", lambda k, vs: ((k, 2 * v) for v in vs), p.source("src"),
            key_type="int", value_type="int")
    p.run({"src": spark.createDataFrame([(i, i) for i in range(6)], "key int, value int")})
    schema = "type string, key int, value int"
    p.update({"src": spark.createDataFrame([(Update, 1, 100), (Delete, 2, None)], schema)})
    v2 = rows(p.content("double"))
    assert p.update({"src": spark.createDataFrame([(Update, 3, 30)], schema)},
                    based_on_version=1) == 3
    # version 3 is version 1 plus its change; version 2's changes are not in it
    assert rows(p.content("double")) == [(0, 0), (1, 2), (2, 4), (3, 60), (4, 8), (5, 10)]
    assert rows(p.changes("double")) == [(Update, 3, 60)]  # relative to version 1
    assert p.manifest()["parent"] == 1 and p.versions() == [1, 2, 3]
    assert rows(p.content("double", version=2)) == v2
    # and on from there
    p.update({"src": spark.createDataFrame([(Delete, 0, None)], schema)})
    assert rows(p.content("double"))[0] == (1, 2) and p.manifest()["parent"] == 3
    before = p.versions()
    with pytest.raises(ProducerError, match="cannot update based on version 9, which is not "
                                            "committed"):
        p.update({"src": spark.createDataFrame([(Delete, 0, None)], schema)},
                 based_on_version=9)
    assert p.versions() == before


# -- Produce reads every value exactly once -----------------------------------------------------

def source_of_pairs(spark, tmp_path, fn, name="p"):
    p = Pipeline(spark, str(tmp_path / name))
    p.stage("s", fn, p.source("src"), key_type="int", value_type="int")
    df = spark.createDataFrame([(1, 10), (1, 11), (2, 20)], "key int, value int")
    return p, df


def test_produce_leaving_values_unread_is_an_error(spark, tmp_path):
    p, df = source_of_pairs(spark, tmp_path, lambda k, vs: [(k, next(vs))])
    with pytest.raises(ProducerError, match=r"stage 's', key 1: produce returned without "
                                            r"reading all of the key's values"):
        p.run({"src": df})
    assert p.version is None
    p, df = source_of_pairs(spark, tmp_path, lambda k, vs: [(k, 0)], name="q")
    with pytest.raises(ProducerError, match=r"without reading all of the key's values"):
        p.run({"src": df})


def test_produce_reading_values_twice_is_an_error(spark, tmp_path):
    def twice(k, vs):
        n = sum(1 for _ in vs)
        yield k, n + sum(vs)  # the second pass would silently see nothing
    p, df = source_of_pairs(spark, tmp_path, twice)
    with pytest.raises(ProducerError, match=r"stage 's', key [12]: produce iterated the values "
                                            r"again after reading them all"):
        p.run({"src": df})


def test_skip_passes_over_values_on_purpose(spark, tmp_path):
    def first_only(k, vs):
        first = next(vs)
        vs.skip()
        yield k, first
    p, df = source_of_pairs(spark, tmp_path, first_only)
    p.run({"src": df})
    assert {k for k, _ in rows(p.content("s"))} == {1, 2}


def test_a_join_side_passed_over_unread_is_an_error(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"))
    a, b = p.source("a"), p.source("b")
    p.stage("j", lambda k, va, vb: ((k, v) for v in vb), a, b, key_type="int", value_type="int")
    with pytest.raises(ProducerError, match=r"stage 'j', key 1: produce returned without reading "
                                            r"all of the key's values of side 0"):
        p.run({"a": spark.createDataFrame([(1, 1)], "key int, value int"),
               "b": spark.createDataFrame([(1, 2)], "key int, value int")})


# -- the order of a key's values ----------------------------------------------------------------

def test_value_order_sorts_each_keys_values(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"), partitions=3)
    src = p.source("src")
    p.stage("asc", lambda k, vs: [(k, list(vs))], src, key_type="int", value_type="array<int>",
            value_order="value")
    p.stage("desc", lambda k, vs: [(k, [v.n for v in vs])], p.source("rows"), key_type="int",
            value_type="array<int>", value_order=[F.col("value.n").desc()])
    data = [(k, (k * 7919 + i * 104729) % 1000) for k in range(4) for i in range(50)]
    p.run({"src": spark.createDataFrame(data, "key int, value int").repartition(4),
           "rows": spark.createDataFrame([(k, Row(n=v)) for k, v in data],
                                         "key int, value struct<n:int>").repartition(4)})
    for k, values in rows(p.content("asc")):
        assert values == sorted(v for kk, v in data if kk == k)
    for k, values in rows(p.content("desc")):
        assert values == sorted((v for kk, v in data if kk == k), reverse=True)
    p.update({"src": spark.createDataFrame([(Update, 2, 5), (Update, 2, 3), (Update, 2, 4)],
                                           "type string, key int, value int")})
    assert dict(rows(p.content("asc")))[2] == [3, 4, 5]


def test_value_order_in_a_join_names_each_sides_value(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"))
    a, b = p.source("a"), p.source("b")
    p.stage("j", lambda k, va, vb: [(k, Row(a=list(va), b=list(vb)))], a, b, key_type="int",
            value_type="struct<a:array<int>, b:array<string>>",
            value_order=[F.col("value_0").desc(), "value_1"])
    p.run({"a": spark.createDataFrame([(1, i) for i in (3, 9, 1)], "key int, value int"),
           "b": spark.createDataFrame([(1, s) for s in "qza"], "key int, value string")})
    assert rows(p.content("j")) == [(1, ([9, 3, 1], ["a", "q", "z"]))]


def test_value_order_naming_no_column_is_an_error(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"))
    p.stage("s", lambda k, vs: [(k, sum(vs))], p.source("src"), key_type="int",
            value_type="bigint", value_order="value.nope")
    with pytest.raises(ProducerError, match=r"stage 's': value_order value.nope cannot sort the "
                                            r"values"):
        p.run({"src": spark.createDataFrame([(1, 1)], "key int, value int")})
