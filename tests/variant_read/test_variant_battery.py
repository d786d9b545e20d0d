"""Independent battery for reading *draft-layout shredded Variant* Parquet as VARIANT.

Three draft-layout files (different shredding schemas, see tests/support/variant_battery/data.py) are read
with ``spark.read.schema("id BIGINT, v VARIANT")`` as view ``shredded``; the same JSON, stored as
text and parsed with ``parse_json``, is view ``truth``. Every query in
tests/support/variant_battery/queries.py must return the same rows on both, with ANSI on and off.

``-k truth`` runs only the checks of the battery itself (queries run on the truth view; the error
list raises there), which need no draft-layout support.
"""
from __future__ import annotations

import os
import re
from typing import Any

import pyarrow.parquet as pq
import pytest
from pyspark.sql import Row
from pyspark.sql.types import VariantVal

from tests.support.differential import ENABLED, confs
from tests.support.variant_battery import data as vdata
from tests.support.variant_battery.draft_writer import (
    MISSING, Arr, DraftFile, Obj, Options, Typed, Untyped, canonical, decode, draft_table, loads,
    reconstruct_row, write_draft, write_standard_variant, write_truth)
from tests.support.variant_battery.queries import DIMENSIONS, ERROR_QUERIES, QUERIES

pytestmark = pytest.mark.slow

ANSI = "spark.sql.ansi.enabled"
ANSI_MODES = ["ansi_on", "ansi_off"]
SCHEMA = "id BIGINT, v VARIANT"


def _ansi(mode: str) -> dict[str, str]:
    return {ANSI: "true" if mode == "ansi_on" else "false"}


def _norm(x: Any) -> Any:
    """Cells -> comparable values. A VARIANT cell is compared by its decoded value, with ints and
    decimals as one number kind (the draft lets a writer widen 123 into decimal(9,2)), so the
    Variant bytes (dictionary order, integer width, decimal scale) may differ."""
    if isinstance(x, VariantVal):
        return ("VARIANT", canonical(decode(x.metadata, x.value)))
    if isinstance(x, Row):
        return ("Row", tuple(x.__fields__) if hasattr(x, "__fields__") else (), tuple(_norm(c) for c in x))
    if isinstance(x, (list, tuple)):
        return [_norm(c) for c in x]
    if isinstance(x, dict):
        return sorted((repr(_norm(k)), _norm(v)) for k, v in x.items())
    return x


def _rows(spark, sql: str) -> list[str]:
    return sorted(repr(_norm(tuple(r))) for r in spark.sql(sql).collect())


class Views:
    def __init__(self, shredded_dir: str, truth_dir: str, rows: list[tuple[int, str | None]]):
        self.shredded_dir = shredded_dir
        self.truth_dir = truth_dir
        self.rows = rows
        self.shredded_error: Exception | None = None
        self.truth_cache: dict[tuple[str, str], list[str]] = {}

    def require_shredded(self) -> None:
        if self.shredded_error is not None:
            pytest.fail(f"could not register the shredded view: {self.shredded_error}")


@pytest.fixture(scope="session")
def variant_views(spark, tmp_path_factory) -> Views:
    base = tmp_path_factory.mktemp("variant_battery")
    shredded_dir, truth_dir = str(base / "shredded"), str(base / "truth")
    rows = vdata.write_all(shredded_dir, truth_dir)
    views = Views(shredded_dir, truth_dir, rows)
    spark.read.parquet(truth_dir).createOrReplaceTempView("truth_json")
    spark.sql("SELECT id, parse_json(j) AS v FROM truth_json").createOrReplaceTempView("truth")
    for name, sql in DIMENSIONS.items():
        spark.sql(sql).createOrReplaceTempView(name)
    try:
        spark.read.schema(SCHEMA).parquet(shredded_dir).createOrReplaceTempView("shredded")
    except Exception as exc:  # noqa: BLE001 -- reported by every shredded test
        views.shredded_error = exc
    return views


def _truth_rows(spark, views: Views, name: str, mode: str) -> list[str]:
    key = (name, mode)
    if key not in views.truth_cache:
        with confs(spark, _ansi(mode)):
            views.truth_cache[key] = _rows(spark, QUERIES[name].format(t="truth"))
    return views.truth_cache[key]


# ---- the battery's own checks (pass without draft-layout support) ------------------------------

def test_truth_writer_files_are_the_intended_layout(variant_views):
    """Each draft file is readable Parquet whose ``v`` group is exactly the shredding schema, and
    the writer's own reconstruction (the draft's ConstructVariant) gives back every row."""
    for k, spec in enumerate(vdata.FILES):
        path = os.path.join(variant_views.shredded_dir, f"part-{k}.parquet")
        table = pq.read_table(path)
        part = [r for r in variant_views.rows if r[0] % 3 == k]
        assert table.num_rows == len(part) > 900
        assert table.schema.field("v").type == draft_table(part[:1], spec).schema.field("v").type
        for (rid, text), v in zip(part, table.column("v").to_pylist()):
            got = reconstruct_row(v, spec.schema)
            if text is None:
                assert got is MISSING, rid
            else:
                assert canonical(got) == canonical(loads(text)), rid


def test_truth_encoder_matches_parse_json(spark, tmp_path):
    """The writer's Variant encoding, stored in Spark's own unshredded layout (value, metadata),
    reads back in Spark exactly like parse_json of the same text."""
    rows = vdata.rows()
    extra = ['1', '-129', '40000', '3000000000', '9223372036854775808',
             '123456789012345678901234567890123456789', '1.50', '123.00', '-0.0', '1e10', '1.5E3',
             '12345678901234567890.123456789012345678', '"' + "x" * 70 + '"', '[[], {}, [null]]',
             '{"b": {"d": 1, "c": [1, {"a": true}]}, "a": "é✓🚀"}']
    rows += [(100000 + i, t) for i, t in enumerate(extra)]
    path = str(tmp_path / "standard")
    write_standard_variant(path, rows)
    truth = str(tmp_path / "truth")
    write_truth(truth, rows)
    with confs(spark, {ENABLED: "false"}):
        spark.read.schema(SCHEMA).parquet(path).createOrReplaceTempView("enc_standard")
        spark.read.parquet(truth).createOrReplaceTempView("enc_truth_json")
        sql = """SELECT a.id, to_json(a.v), to_json(parse_json(b.j)), schema_of_variant(a.v),
                 schema_of_variant(parse_json(b.j)) FROM enc_standard a JOIN enc_truth_json b ON a.id = b.id"""
        got = spark.sql(sql).collect()
    assert len(got) == len(rows)
    bad = [r for r in got if r[1] != r[2] or r[3] != r[4]]
    assert not bad, bad[:5]


@pytest.mark.parametrize("mode", ANSI_MODES)
@pytest.mark.parametrize("name", list(QUERIES))
def test_truth_query_runs(spark, variant_views, name, mode):
    _truth_rows(spark, variant_views, name, mode)


@pytest.mark.parametrize("name", list(ERROR_QUERIES))
def test_truth_error_query_raises(spark, variant_views, name):
    sql, try_sql = ERROR_QUERIES[name]
    with confs(spark, _ansi("ansi_on")):
        with pytest.raises(Exception):
            spark.sql(sql.format(t="truth")).collect()
        spark.sql(try_sql.format(t="truth")).collect()


# ---- shredded vs truth -------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ANSI_MODES)
@pytest.mark.parametrize("name", list(QUERIES))
def test_shredded_query(spark, variant_views, name, mode):
    variant_views.require_shredded()
    expected = _truth_rows(spark, variant_views, name, mode)
    with confs(spark, _ansi(mode)):
        got = _rows(spark, QUERIES[name].format(t="shredded"))
    assert len(got) == len(expected), f"{name}: {len(got)} rows, expected {len(expected)}"
    diff = [(g, e) for g, e in zip(got, expected) if g != e]
    assert not diff, f"{name}: {len(diff)} rows differ, first: {diff[:3]}"


def _outcome(spark, sql: str) -> tuple[str, Any]:
    try:
        return "rows", _rows(spark, sql)
    except Exception as exc:  # noqa: BLE001
        return "error", type(exc).__name__


@pytest.mark.parametrize("mode", ANSI_MODES)
@pytest.mark.parametrize("name", list(ERROR_QUERIES))
def test_shredded_error_query(spark, variant_views, name, mode):
    """ANSI on: the shredded view raises too. ANSI off: it raises iff the truth raises, else the
    same rows. Either way the try_ counterpart returns the same rows as on the truth."""
    variant_views.require_shredded()
    sql, try_sql = ERROR_QUERIES[name]
    with confs(spark, _ansi(mode)):
        truth_kind, truth_rows = _outcome(spark, sql.format(t="truth"))
        kind, rows = _outcome(spark, sql.format(t="shredded"))
        if mode == "ansi_on":
            assert truth_kind == "error"
        assert kind == truth_kind, f"{name}: shredded gave {kind}, truth gave {truth_kind}"
        if kind == "rows":
            assert rows == truth_rows
        assert _rows(spark, try_sql.format(t="shredded")) == _rows(spark, try_sql.format(t="truth"))


def test_shredded_scan_reads_only_needed_leaves(spark, variant_views):
    variant_views.require_shredded()
    with confs(spark, {"spark.sql.maxMetadataStringLength": "100000"}):
        df = spark.sql("SELECT variant_get(v, '$.user.id', 'bigint') FROM shredded")
        plan = df._jdf.queryExecution().executedPlan().toString()
    schemas = re.findall(r"ReadSchema: (\S+)", plan)
    assert schemas, plan
    read = " ".join(schemas)
    assert "typed_value" in read, read
    for unrelated in ("geo", "items", "score", "tags", "nested", "amount"):
        assert unrelated not in read, f"{unrelated} read for $.user.id: {read}"


SINGLE_FILE_QUERIES = ["to_json_v", "select_v", "proj_user_fields", "proj_price_decimal",
                       "variant_explode_items", "agg_counts", "schema_of_variant_safe"]


@pytest.mark.parametrize("k", [0, 1, 2])
def test_shredded_single_file(spark, variant_views, k):
    """Each draft file on its own (one shredding schema), to tell a per-file reading bug from one
    that only shows when files with different shredding schemas are read together."""
    path = os.path.join(variant_views.shredded_dir, f"part-{k}.parquet")
    spark.read.schema(SCHEMA).parquet(path).createOrReplaceTempView(f"shredded_file{k}")
    spark.sql(f"SELECT * FROM truth WHERE id % 3 = {k}").createOrReplaceTempView(f"reference_file{k}")
    failures = []
    for name in SINGLE_FILE_QUERIES:
        with confs(spark, _ansi("ansi_on")):
            expected = _rows(spark, QUERIES[name].format(t=f"reference_file{k}"))
            try:
                got = _rows(spark, QUERIES[name].format(t=f"shredded_file{k}"))
            except Exception as exc:  # noqa: BLE001
                failures.append(f"{name}: {str(exc).splitlines()[0][:300]}")
                continue
        if got != expected:
            diff = [(g, e) for g, e in zip(got, expected) if g != e]
            failures.append(f"{name}: {len(got)} vs {len(expected)} rows, first differences {diff[:2]}")
    assert not failures, f"file {k}:\n" + "\n".join(failures)


def test_shredded_create_table_location(spark, variant_views):
    """The SQL spelling: CREATE TABLE ... (id BIGINT, v VARIANT) USING parquet LOCATION."""
    spark.sql("DROP TABLE IF EXISTS variant_battery_tbl")
    spark.sql(f"CREATE TABLE variant_battery_tbl (id BIGINT, v VARIANT) USING parquet "
              f"LOCATION '{variant_views.shredded_dir}'")
    try:
        for name in ("to_json_v", "proj_user_fields", "agg_group_country", "variant_explode_items"):
            expected = _truth_rows(spark, variant_views, name, "ansi_on")
            with confs(spark, _ansi("ansi_on")):
                assert _rows(spark, QUERIES[name].format(t="variant_battery_tbl")) == expected, name
    finally:
        spark.sql("DROP TABLE IF EXISTS variant_battery_tbl")


# ---- small files for corners of the draft ------------------------------------------------------

EDGE_EXPRS = ["to_json(v)", "v IS NULL", "is_variant_null(v)"]


def _compare_small(spark, tmp_path, name: str, texts: list[str | None], spec: DraftFile | list[DraftFile],
                   exprs: list[str], table: Any = None) -> None:
    rows = [(i, t) for i, t in enumerate(texts)]
    shredded = str(tmp_path / f"{name}.parquet")
    if table is not None:
        pq.write_table(table, shredded, store_schema=False)
    elif isinstance(spec, list):  # one file per spec in a directory, rows round-robin
        os.makedirs(shredded)
        for k, one in enumerate(spec):
            write_draft(os.path.join(shredded, f"part-{k}.parquet"),
                        [r for r in rows if r[0] % len(spec) == k], one)
    else:
        write_draft(shredded, rows, spec)
    truth = str(tmp_path / f"{name}_truth.parquet")
    write_truth(truth, rows)
    spark.read.parquet(truth).createOrReplaceTempView(f"{name}_json")
    spark.sql(f"SELECT id, parse_json(j) AS v FROM {name}_json").createOrReplaceTempView(f"{name}_truth")
    spark.read.schema(SCHEMA).parquet(shredded).createOrReplaceTempView(f"{name}_shredded")
    cols = ", ".join(EDGE_EXPRS + exprs)
    for mode in ANSI_MODES:
        with confs(spark, _ansi(mode)):
            expected = _rows(spark, f"SELECT id, {cols} FROM {name}_truth")
            got = _rows(spark, f"SELECT id, {cols} FROM {name}_shredded")
        assert got == expected, f"{name} ({mode}):\n{got}\n!=\n{expected}"


SEED_EXAMPLE = Obj({"a": Typed("int64"), "b": Obj({"c": Typed("string")})})


def test_edge_seed_parquet_example(spark, tmp_path):
    """The rows of the draft's "Parquet Example" table, with its schema."""
    texts = ['{"a": 123, "b": {"c": "hello"}}', '{"a": 1.23, "b": {"c": "123"}}',
             '{"a": [1,2,3], "b": {"c": null}}', '{"a": 123, "c": 456}',
             '{"a": 123, "b": {"c": "hello", "d": 456}}',
             '[{"a": 1, "b": {"c": 2}}, {"a": 3, "b": {"c": 4}}]', None, 'null', '{}', '{"b": {}}']
    for missing in ("null_fields", "null_group"):
        _compare_small(spark, tmp_path, f"seed_example_{missing}", texts,
                       DraftFile(SEED_EXAMPLE, Options(missing=missing)),
                       ["variant_get(v, '$.a', 'string')", "try_variant_get(v, '$.a', 'int')",
                        "to_json(v:b)", "variant_get(v, '$.b.c', 'string')", "to_json(v:b.d)",
                        "to_json(v:c)", "is_variant_null(v:b.c)", "v:b.c IS NULL",
                        "variant_get(v, '$[1].b.c', 'int')"])


def test_edge_seed_nested_example(spark, tmp_path):
    """The draft's "Nested Parquet Example": a top-level array of objects with an array field."""
    schema = Arr(Obj({"a": Arr(Typed("int64")), "b": Typed("int64")}))
    texts = ['[{"a": [1, 2, 3], "b": 100}, {"a": [4, 5, 6], "b": 200}]',
             '[{"a": [1, 2, 3], "b": 100, "c": "unexpected"}, {"a": [4, 5, 6], "b": 200}, "not an object"]',
             '[{"a": [1, "two", 3.5, null], "b": "x"}, {"a": "not an array"}, {}]',
             '{"a": [1], "b": 2}', '[]', '[[1, 2]]', None, 'null']
    _compare_small(spark, tmp_path, "seed_nested", texts, DraftFile(schema),
                   ["try_variant_get(v, '$[0].a[1]', 'int')", "variant_get(v, '$[0].a[0]', 'int')", "to_json(v:[1])", "to_json(v:[0].a)",
                    "variant_get(v, '$[0].c', 'string')", "variant_get(v, '$[2]', 'string')",
                    "variant_get(v, '$.a[0]', 'int')", "variant_get(v, '$[1].a', 'string')"])


def test_edge_numbers_widened(spark, tmp_path):
    """Ints into decimal columns, decimals of a smaller scale into larger-scale columns; decimals
    that do not fit, doubles and numeric strings stay untyped."""
    schema = Obj({"d": Typed("decimal(9,2)"), "i": Typed("int64"), "x": Typed("double"),
                  "big": Typed("decimal(38,0)")})
    texts = ['{"d": 123, "i": 1, "x": 1.5e0, "big": 12345678901234567890}',
             '{"d": 1.5, "i": -129, "x": 2, "big": 1}',
             '{"d": 1.125, "i": 1.0, "x": 2.50, "big": 1.5}',
             '{"d": "3", "i": "3", "x": "3", "big": "3"}',
             '{"d": 1e2, "i": 9223372036854775807, "x": 1e300, "big": 99999999999999999999999999999999999999}',
             '{"d": 9999999.99, "i": -9223372036854775808, "x": -0.0e0, "big": -0.0}']
    _compare_small(spark, tmp_path, "numbers", texts, DraftFile(schema),
                   [f"try_variant_get(v, '$.{f}', '{ty}')" for f in ("d", "i", "x", "big")
                    for ty in ("string", "double", "decimal(38,2)")]
                   + ["try_variant_get(v, '$.d', 'int')", "try_variant_get(v, '$.i', 'smallint')"])


def test_edge_underscore_fields_ignored(spark, tmp_path):
    """Fields starting with '_' next to typed_value/untyped_value must be ignored by readers."""
    schema = Obj({"a": Typed("int64")})
    texts = ['{"a": 1}', '{"a": "x", "b": 2}', '[1]', None]
    _compare_small(spark, tmp_path, "underscore", texts,
                   DraftFile(schema, Options(extra_fields=("_ext_note",))),
                   ["variant_get(v, '$.a', 'string')", "to_json(v:b)"])


def test_edge_levels_without_untyped_value(spark, tmp_path):
    """A writer may omit untyped_value (always null) where every value fits, or typed_value."""
    schema = Obj({"a": Typed("int64", untyped=False), "b": Untyped(),
                  "c": Obj({"d": Typed("string", untyped=False)}, untyped=False)})
    texts = ['{"a": 1, "b": [1, "x"], "c": {"d": "y"}}', '{"b": null, "c": {}}', '{"a": 2}',
             '"top-level string"', None]
    _compare_small(spark, tmp_path, "no_untyped", texts, DraftFile(schema),
                   ["variant_get(v, '$.a', 'int')", "to_json(v:b)", "to_json(v:c)",
                    "variant_get(v, '$.c.d', 'string')"])


def test_edge_field_order_across_files(spark, tmp_path):
    """Two files with the same shredding schema, one with untyped_value first and one with it
    last, read together: fields are matched by name, not position."""
    schema = Obj({"a": Typed("int64"), "b": Obj({"c": Typed("string")})})
    texts = ['{"a": 1, "b": {"c": "x"}}', '{"a": 2, "b": {"c": "y"}, "z": 0}', '{"a": "s", "b": 3}',
             '[1, 2]', None, 'null', '{"b": {"c": "w", "d": 4}}', '{}']
    specs = [DraftFile(schema, Options(untyped_first=True)), DraftFile(schema, Options(untyped_first=False))]
    _compare_small(spark, tmp_path, "field_order", texts, specs,
                   ["variant_get(v, '$.a', 'string')", "variant_get(v, '$.b.c', 'string')", "to_json(v:b)"])


def test_edge_different_schemas_across_files(spark, tmp_path):
    """Two files whose shredding schemas disagree (a path typed in one, an object or untyped in the
    other, a field only in one), read together."""
    texts = ['{"a": 1, "b": {"c": "x"}}', '{"a": 2, "b": {"c": "y"}, "z": 0}', '{"a": "s", "b": 3}',
             '[1, 2]', None, 'null', '{"b": {"c": "w", "d": 4}}', '{}']
    specs = [DraftFile(Obj({"a": Typed("int64"), "b": Obj({"c": Typed("string")})})),
             DraftFile(Obj({"a": Typed("string"), "b": Untyped(), "z": Typed("decimal(5,2)")}))]
    _compare_small(spark, tmp_path, "schema_mix", texts, specs,
                   ["variant_get(v, '$.a', 'string')", "variant_get(v, '$.b.c', 'string')", "to_json(v:b)",
                    "variant_get(v, '$.z', 'int')"])
