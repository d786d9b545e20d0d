"""Keys and values are checked against a source's or stage's types, never cast; repeated keys; the
types of array keys inferred from a sample."""
from __future__ import annotations

import decimal
import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import Row

from pyspark_ext.producers import Add, Delete, Pipeline, ProducerError, Update

# Each test runs whole pipelines (several Spark jobs): in CI, not in the fast set
pytestmark = pytest.mark.slow


def rows(df):
    return [tuple(r) for r in df.collect()]


def snapshot(root: Path) -> dict[str, str]:
    """Every file under the pipeline directory and a hash of its bytes."""
    return {str(f.relative_to(root)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(root.rglob("*")) if f.is_file()}


def int_pipeline(spark, path):
    p = Pipeline(spark, str(path), rows_per_row_group=2, rows_per_file=4)
    p.stage("tens", lambda k, vs: ((k // 10, v) for v in vs), p.source("src"),
            key_type="int", value_type="string")
    p.run({"src": spark.createDataFrame([(i, f"v{i}") for i in range(6)],
                                        "key int, value string")})
    return p


@pytest.mark.parametrize("key, ddl, shown", [
    pytest.param(3.7, "double", "3.7",           # was cast to 3: key 3 silently updated
                 marks=pytest.mark.producers_lines),
    (3.0, "double", "3.0"),                      # exact, but a double all the same
    ("abc", "string", "'abc'"),                  # was CAST_INVALID_INPUT from Spark
    (2 ** 40, "bigint", "1099511627776"),        # would overflow int
    (decimal.Decimal("3.50"), "decimal(4,2)", "Decimal('3.50')"),
])
def test_a_key_of_another_type_is_rejected_and_nothing_is_written(spark, tmp_path, key, ddl,
                                                                  shown):
    p = int_pipeline(spark, tmp_path / "p")
    before = snapshot(tmp_path / "p")
    bad = spark.createDataFrame([(Update, key, "x")], f"type string, key {ddl}, value string")
    with pytest.raises(ProducerError) as e:
        p.update({"src": bad})
    message = str(e.value)
    assert f"source 'src', key {shown}: the key has type {ddl}, but the source's keys are int" \
        in message and "Nothing was written" in message
    assert snapshot(tmp_path / "p") == before and p.version == 1
    assert rows(p.content("src")) == [(i, f"v{i}") for i in range(6)]


def test_a_value_of_another_type_is_rejected(spark, tmp_path):
    p = int_pipeline(spark, tmp_path / "p")
    bad = spark.createDataFrame([(Update, 3, 7)], "type string, key int, value int")
    with pytest.raises(ProducerError, match=r"source 'src', key 3: the value has type int, but "
                                            r"the source's values are string"):
        p.update({"src": bad})
    assert p.version == 1


def test_exact_widening_is_accepted(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"), rows_per_row_group=2, rows_per_file=4)
    p.source("src")
    p.run({"src": spark.createDataFrame([(1, 1.5), (2, 2.5)], "key bigint, value double")})
    p.update({"src": spark.createDataFrame([(Update, 2, 7), (Delete, 1, None)],
                                           "type string, key int, value int")})
    assert rows(p.content("src")) == [(2, 7.0)]
    assert p.content("src").schema.simpleString() == "struct<key:bigint,value:double>"


def test_declared_source_types_check_the_first_run(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"))
    p.source("src", key_type="int", value_type="string")
    with pytest.raises(ProducerError, match=r"source 'src', key 1.5: the key has type double, but "
                                            r"the source's keys are int \(declared\)"):
        p.run({"src": spark.createDataFrame([(1.5, "a")], "key double, value string")})
    assert p.version is None and not (tmp_path / "p" / "_versions").exists()
    p.run({"src": spark.createDataFrame([(1, "a")], "key smallint, value string")})
    assert p.content("src").schema["key"].dataType.simpleString() == "int"


@pytest.mark.parametrize("emitted, why", [
    (3.7, r"3.7 is a Python float, not a int"),
    ("3", r"'3' is a Python str, not a int"),
    (2 ** 40, r"1099511627776 is out of the range of int"),
    (True, r"True is a Python bool, not a int"),
])
def test_produce_emitting_a_key_of_another_type_is_rejected(spark, tmp_path, emitted, why):
    p = Pipeline(spark, str(tmp_path / "p"))
    p.stage("s", lambda k, vs: ((emitted, v) for v in vs), p.source("src"),
            key_type="int", value_type="string")
    with pytest.raises(ProducerError, match=r"stage 's', key 1: produce emitted .* which does not "
                                            r"fit the stage's types \(key int, value string\): "
                                            + why):
        p.run({"src": spark.createDataFrame([(1, "a")], "key int, value string")})
    assert p.version is None


def test_produce_emitting_a_value_of_another_type_is_rejected(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"))
    p.stage("s", lambda k, vs: ((k, Row(n=1.5)) for v in vs), p.source("src"),
            key_type="int", value_type="struct<n:int>")
    with pytest.raises(ProducerError, match=r"field n: 1.5 is a Python float, not a int"):
        p.run({"src": spark.createDataFrame([(1, "a")], "key int, value string")})


# -- the property: a wrongly typed key never changes a committed version ------------------------

#: (DDL type, a value of it) that an int key must refuse
wrong_keys = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: ("double", x)),
    st.text(max_size=5).map(lambda x: ("string", x)),
    st.integers(-(2 ** 63), 2 ** 63 - 1).map(lambda x: ("bigint", x)),
    st.decimals(min_value=-999, max_value=999, places=2).map(lambda x: ("decimal(5,2)", x)),
    st.booleans().map(lambda x: ("boolean", x)),
)


def test_wrongly_typed_keys_never_change_a_committed_version(spark, tmp_path):
    p = int_pipeline(spark, tmp_path / "p")
    root = tmp_path / "p"
    before, content = snapshot(root), rows(p.content("tens"))

    @settings(max_examples=5, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(key=wrong_keys, kind=st.sampled_from([Add, Update, Delete]),
           good=st.lists(st.integers(0, 9), max_size=2))
    def attempt(key, kind, good):
        ddl, value = key
        changes = [(kind, value, None if kind == Delete else "x")]
        changes += [(Update, float(k) if ddl == "double" else k, "y") for k in good
                    if ddl in ("double", "bigint")]  # well-meant keys beside the wrong one
        with pytest.raises(ProducerError, match=rf"the key has type {ddl}, but the source's keys "
                                                r"are int"):
            p.update({"src": spark.createDataFrame(changes,
                                                   f"type string, key {ddl}, value string")})
        assert snapshot(root) == before and p.versions() == [1]
    attempt()
    assert rows(p.content("tens")) == content


# -- repeated keys ------------------------------------------------------------------------------

def test_a_repeated_key_is_a_key_with_several_values(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"))
    p.source("src")
    p.run({"src": spark.createDataFrame([(1, "a"), (1, "a"), (2, "b")], "key int, value string")})
    assert sorted(rows(p.content("src"))) == [(1, "a"), (1, "a"), (2, "b")]
    p.update({"src": spark.createDataFrame([(Add, 2, "c"), (Add, 2, "d")],
                                           "type string, key int, value string")})
    assert sorted(rows(p.content("src"))) == [(1, "a"), (1, "a"), (2, "c"), (2, "d")]


def test_unique_keys_rejects_a_repeated_key_before_writing(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"))
    p.source("src", unique_keys=True)
    with pytest.raises(ProducerError, match=r"source 'src', key 1: the key has more than one "
                                            r"value, but the source was declared with "
                                            r"unique_keys=True"):
        p.run({"src": spark.createDataFrame([(1, "a"), (1, "b"), (2, "c")],
                                            "key int, value string")})
    assert p.version is None
    p.run({"src": spark.createDataFrame([(1, "a"), (2, "c")], "key int, value string")})
    before = snapshot(tmp_path / "p")
    with pytest.raises(ProducerError, match=r"source 'src', key 2: the key has more than one"):
        p.update({"src": spark.createDataFrame([(Add, 2, "x"), (Add, 2, "y"), (Delete, 1, None)],
                                               "type string, key int, value string")})
    assert snapshot(tmp_path / "p") == before
    p.update({"src": spark.createDataFrame([(Update, 2, "x"), (Delete, 1, None)],
                                           "type string, key int, value string")})
    assert rows(p.content("src")) == [(2, "x")]


# -- inferred array keys ------------------------------------------------------------------------

def test_array_keys_with_inferred_types(spark, tmp_path):
    p = Pipeline(spark, str(tmp_path / "p"), rows_per_row_group=2, rows_per_file=3)
    words = p.source("words")
    letters = p.stage("letters", lambda k, vs: ((sorted(set(v)), v) for v in vs), words)
    p.stage("count", lambda k, vs: [(k, sum(1 for _ in vs))], letters)
    data = ["ab", "ba", "abc", "cab", "x", "xx"]
    p.run({"words": spark.createDataFrame(list(enumerate(data)), "key int, value string")})
    assert p.content("letters").schema["key"].dataType.simpleString() == "array<string>"
    assert rows(p.content("count")) == [(["a", "b"], 2), (["a", "b", "c"], 2), (["x"], 2)]
    p.update({"words": spark.createDataFrame([(Update, 4, "ab")],
                                             "type string, key int, value string")})
    assert rows(p.content("count")) == [(["a", "b"], 3), (["a", "b", "c"], 2), (["x"], 1)]
