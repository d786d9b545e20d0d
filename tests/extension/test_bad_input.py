"""Hostile input, all in one place (the README's "Bad input" table lists every case).

Each case either reads correctly or fails with an error that names the file and the column;
never a wrong answer and never a bare internal error. Cases already tested elsewhere are listed
in the README table with their test; this module holds the rest: bit-flipped and truncated
variant binaries compared with stock Spark, the spec layout's malformed groups with their
messages checked, non-standard LISTs, conflicting files, and files that hold no rows.
"""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from tests.support import draft_files
from tests.support.differential import ENABLED, assert_same_rows, compare, confs, rows_of
from tests.support.variant_codec import EMPTY_METADATA
from pyspark_ext import settings


def _spark_variant(spark: SparkSession, text: str) -> tuple[bytes, bytes]:
    """(metadata, value) of `parse_json(text)`."""
    [r] = spark.sql(f"SELECT parse_json('{text}') AS v").collect()
    return bytes(r.v.metadata), bytes(r.v.value)


def _spec_file(path, metadata: list, value: list, typed: pa.Array) -> str:
    """A spec-layout file: `v` = struct<metadata, value, typed_value> (one row per item)."""
    n = len(metadata)
    v = pa.StructArray.from_arrays([pa.array(metadata, pa.binary()), pa.array(value, pa.binary()), typed],
                                   names=["metadata", "value", "typed_value"])
    pq.write_table(pa.table({"id": pa.array(range(n), pa.int64()), "v": v}), str(path))
    return str(path)


def _error(spark: SparkSession, path: str, query: str = "SELECT id, to_json(v) FROM bad") -> str:
    with pytest.raises(Exception) as info:
        # Layout errors are found at analysis (here), data errors when the rows are read.
        spark.read.schema("id BIGINT, v VARIANT").parquet(path).createOrReplaceTempView("bad")
        spark.sql(query).collect()
    return str(info.value)


def _names_file_and_column(message: str, file: str, column: str = "v") -> None:
    assert file in message, message[:2000]
    assert f"`{column}`" in message, message[:2000]
    assert "Invalid shredded variant" in message, message[:2000]


# --- truncated and bit-flipped variant binaries ---------------------------------------------

TEXT = '{"k": [1, "two", 3.5], "n": -7}'


def _mutations(value: bytes) -> list[tuple[str, bytes]]:
    out = [(f"truncated_to_{n}", value[:n]) for n in (1, 2, len(value) // 2, len(value) - 1)]
    for pos in sorted({0, 1, 2, 3, len(value) // 2, len(value) - 1}):
        for bit in (0x01, 0x10, 0x80):
            flipped = bytearray(value)
            flipped[pos] ^= bit
            out.append((f"flip_{pos}_{bit:#04x}", bytes(flipped)))
    return out


@pytest.fixture(scope="module")
def mutated_residuals(spark: SparkSession, tmp_path_factory) -> tuple[str, list[str]]:
    """One spec-layout file per mutation of a residual object's value bytes (the top-level
    `typed_value` is a bigint that does not hold it)."""
    base = tmp_path_factory.mktemp("mutated")
    metadata, value = _spark_variant(spark, TEXT)
    names = []
    for name, bad in _mutations(value):
        _spec_file(base / f"{name}.parquet", [metadata, metadata], [bad, None],
                   pa.array([None, 5], pa.int64()))
        names.append(name)
    return str(base), names


MUTATION_QUERIES = ["SELECT id, to_json(v) FROM {t}", "SELECT id, v:k[1]::string, v:n::int FROM {t}"]


@pytest.mark.slow
@pytest.mark.parametrize("query", MUTATION_QUERIES)
def test_mutated_residual_errors_or_reads_as_stock(spark: SparkSession, mutated_residuals, query: str) -> None:
    """Where stock Spark reads a mutated binary, the extension returns the same rows or fails
    naming the file and column; where Spark fails, so does the extension (never a value)."""
    base, names = mutated_residuals
    outcomes = {}
    for name in names:
        t = f"parquet_{name}"
        spark.read.schema("id BIGINT, v VARIANT").parquet(f"{base}/{name}.parquet").createOrReplaceTempView(t)
        sql = query.format(t=t)
        outcomes[name] = _judge(spark, sql, sql, f"{name}.parquet")
    assert "error" in outcomes.values() and "same" in outcomes.values()


def _condition(error: str) -> str:
    return error.split("]")[0] + "]" if error.startswith("[") else ""


def _judge(spark: SparkSession, stock_sql: str, ext_sql: str, file: str) -> str:
    """'same' (the rows, or the very error condition, stock Spark gives) or 'error' (the
    extension's own error, naming the file and the column)."""
    try:
        with confs(spark, {ENABLED: "false"}):
            stock, stock_error = rows_of(spark, stock_sql), ""
    except Exception as e:  # noqa: BLE001 - Spark rejects the binary
        stock, stock_error = None, str(e)
    try:
        ext, error = rows_of(spark, ext_sql), None
    except Exception as e:  # noqa: BLE001
        ext, error = None, str(e)
    if error is None:
        assert stock is not None, f"{file}: stock Spark fails ({stock_error[:300]}), the extension returned {ext}"
        assert_same_rows(ext, stock, file)
        return "same"
    if stock is None and _condition(error) and _condition(error) == _condition(stock_error):
        return "same"  # Spark's own error, e.g. a cast of what the flipped bits now say
    _names_file_and_column(error, file)
    return "error"


@pytest.mark.slow
def test_mutated_draft_value_errors_or_reads_as_stock(spark: SparkSession, tmp_path) -> None:
    """The draft layout's untyped_value (metadata then value) with the value mutated: the rows
    stock Spark reads from the same two binaries (an unshredded variant), or an error naming the
    file and the column."""
    metadata, value = _spark_variant(spark, TEXT)
    assert draft_files.variant_bytes(spark, [TEXT])[TEXT] == metadata + value
    outcomes = {}
    for name, bad in _mutations(value):
        draft, plain = str(tmp_path / f"draft_{name}.parquet"), str(tmp_path / f"plain_{name}.parquet")
        draft_files.write_raw(draft, pa.struct([pa.field("untyped_value", pa.binary())]),
                              [{"untyped_value": metadata + bad}])
        pq.write_table(pa.table({"id": [0], "v": pa.StructArray.from_arrays(
            [pa.array([bad]), pa.array([metadata])], names=["value", "metadata"])}), plain)
        for path, view in ((draft, "mut_draft"), (plain, "mut_plain")):
            spark.read.schema("id BIGINT, v VARIANT").parquet(path).createOrReplaceTempView(view)
        for query in MUTATION_QUERIES:
            outcomes[(name, query)] = _judge(spark, query.format(t="mut_plain"), query.format(t="mut_draft"),
                                             f"draft_{name}.parquet")
    assert "error" in outcomes.values() and "same" in outcomes.values()


# --- malformed spec-layout groups -----------------------------------------------------------

def _field(value: list, typed: pa.Array) -> pa.StructArray:
    return pa.StructArray.from_arrays([pa.array(value, pa.binary()), typed], names=["value", "typed_value"])


def _same_rows_as_stock(spark: SparkSession, path: str, query: str) -> list:
    """The extension's rows of ``query`` over the file at ``path`` (view ``bad``); fails unless
    stock Spark gives the same rows."""
    spark.read.schema("id BIGINT, v VARIANT").parquet(path).createOrReplaceTempView("bad")
    with confs(spark, {ENABLED: "false"}):
        stock = rows_of(spark, query)
    ext = rows_of(spark, query)
    assert_same_rows(ext, stock, query)
    return ext


@pytest.mark.parametrize("query", ["SELECT id, to_json(v) FROM bad", "SELECT id, v:a::int FROM bad",
                                   "SELECT id, to_json(v:b) FROM bad", "SELECT id, v:b[0]::int FROM bad"])
def test_spec_value_and_typed_value_both_set_reads_typed_value(spark: SparkSession, tmp_path, query) -> None:
    """The spec forbids writers to set both `value` and a non-object `typed_value`, and lets
    readers fail or take `typed_value`. Stock Spark takes `typed_value`, so the extension does
    (it must not fail a query stock Spark runs); the draft layout still fails."""
    a = _field([b"\x0c\x07"], pa.array([1], pa.int64()))  # value int8 7 and typed 1
    element = pa.struct([pa.field("value", pa.binary()), pa.field("typed_value", pa.int64())])
    b = pa.StructArray.from_arrays(
        [pa.array([b"\x0c\x07"], pa.binary()),  # value int8 7 beside a typed array [2]
         pa.array([[{"value": None, "typed_value": 2}]], pa.list_(element))], names=["value", "typed_value"])
    path = _spec_file(tmp_path / "both.parquet", [EMPTY_METADATA], [None],
                      pa.StructArray.from_arrays([a, b], names=["a", "b"]))
    ext = _same_rows_as_stock(spark, path, query)
    assert "7" not in repr(ext)


def test_spec_null_shredded_field_group(spark: SparkSession, tmp_path) -> None:
    """A shredded field's group is required by the spec (a missing field is a group of two
    nulls): a null one fails the rebuilt value, naming the file, the column and the field, where
    stock Spark raises MALFORMED_VARIANT."""
    a = pa.StructArray.from_arrays([pa.array([None], pa.binary()), pa.array([None], pa.int64())],
                                   names=["value", "typed_value"], mask=pa.array([True]))
    path = _spec_file(tmp_path / "null_group.parquet", [EMPTY_METADATA], [None],
                      pa.StructArray.from_arrays([a], names=["a"]))
    message = _error(spark, path)
    _names_file_and_column(message, "null_group.parquet")
    assert "$.a" in message and "group is null" in message
    with confs(spark, {ENABLED: "false"}):
        assert "MALFORMED_VARIANT" in _error(spark, path)


@pytest.mark.parametrize("query", ["SELECT id, to_json(v:a) FROM bad", "SELECT id, v:a::int FROM bad",
                                   "SELECT id FROM bad WHERE v:a::int = 1"])
def test_spec_null_shredded_field_group_path_read(spark: SparkSession, tmp_path, query) -> None:
    """A path read into a field whose group is null fails too (it checks the enclosing object's
    null-ness), naming the file, the column and the field, where stock Spark raises
    MALFORMED_VARIANT; a null enclosing object (the value is no object) reads on."""
    a = pa.StructArray.from_arrays([pa.array([None, None], pa.binary()), pa.array([None, None], pa.int64())],
                                   names=["value", "typed_value"], mask=pa.array([False, True]))
    typed = pa.StructArray.from_arrays([a], names=["a"], mask=pa.array([True, False]))
    path = _spec_file(tmp_path / "null_group_path.parquet", [EMPTY_METADATA] * 2, [b"\x0c\x07", None], typed)
    message = _error(spark, path, query)
    _names_file_and_column(message, "null_group_path.parquet")
    assert "at path $.a:" in message and "group is null" in message
    with confs(spark, {ENABLED: "false"}):
        assert "MALFORMED_VARIANT" in _error(spark, path, query)


def test_spec_null_group_check_reads_no_more_leaves(spark: SparkSession, tmp_path) -> None:
    """The check of an optional field group costs no column: the group's and its object's
    null-ness come from the definition levels of the one leaf the path reads, not from the rest
    of the variant (field `b`, the residuals, the metadata)."""
    a = pa.StructArray.from_arrays([pa.nulls(3, pa.binary()), pa.array([1, 2, None], pa.int64())],
                                   names=["value", "typed_value"])
    b = pa.StructArray.from_arrays([pa.nulls(3, pa.binary()), pa.array(["x", "y", "z"])],
                                   names=["value", "typed_value"])
    typed = pa.StructArray.from_arrays([a, b], names=["a", "b"], mask=pa.array([False, False, True]))
    path = _spec_file(tmp_path / "optional_groups.parquet", [EMPTY_METADATA] * 3, [None, None, b"\x00"], typed)
    spark.read.schema("id BIGINT, v VARIANT").parquet(path).createOrReplaceTempView("good")
    stock, ext = compare(spark, "SELECT id, v:a::bigint FROM good")
    assert ext.read_schemas == ["struct<id:bigint,v:struct<typed_value:struct<a:struct<typed_value:bigint>>>>"]
    assert "None" in stock.rows[2]  # the value of row 2 is a variant null, no object


def _null_group_in_first_row_group(path) -> str:
    """Two row groups of two rows: `a` = 5 and a null group of `a` (in a non-null object), then
    `a` = 1 and `a` = 2; no residual holds anything."""
    a = pa.StructArray.from_arrays([pa.nulls(4, pa.binary()), pa.array([5, None, 1, 2], pa.int64())],
                                   names=["value", "typed_value"], mask=pa.array([False, True, False, False]))
    v = pa.StructArray.from_arrays([pa.array([EMPTY_METADATA] * 4, pa.binary()), pa.nulls(4, pa.binary()),
                                    pa.StructArray.from_arrays([a], names=["a"])],
                                   names=["metadata", "value", "typed_value"])
    pq.write_table(pa.table({"id": pa.array(range(4), pa.int64()), "v": v}), str(path), row_group_size=2)
    return str(path)


@pytest.mark.parametrize("skipping", ["true", "false"])
def test_spec_null_group_in_a_skipped_row_group(spark: SparkSession, tmp_path, skipping) -> None:
    """A documented difference: a filter's statistics skip a row group that holds a null field
    group, so the extension answers where stock Spark, which reads every row group, raises
    MALFORMED_VARIANT. The skipped group cannot hold a matching row however its malformed row is
    read (its typed values exclude the literal and its residuals are all null), so the rows are
    stock Spark's rows for the well-formed part; without skipping the read fails as stock does."""
    path = _null_group_in_first_row_group(tmp_path / "null_group_skipped.parquet")
    query = "SELECT id FROM bad WHERE v:a::bigint = 1"
    with confs(spark, {ENABLED: "false"}):
        assert "MALFORMED_VARIANT" in _error(spark, path, query)
    with confs(spark, {settings.VARIANT_SKIPPING: skipping}):
        if skipping == "true":
            rows = spark.read.schema("id BIGINT, v VARIANT").parquet(path).where("v:a::bigint = 1")
            assert [r.id for r in rows.collect()] == [2]
        else:
            assert "group is null" in _error(spark, path, query)
        # filters the malformed row group's statistics cannot rule out read it, and fail
        assert "group is null" in _error(spark, path, "SELECT id FROM bad WHERE v:a::bigint > 3")
        assert "group is null" in _error(spark, path, "SELECT id FROM bad WHERE v:a::bigint IS NULL")


def test_spec_null_object_around_a_field_reads_on(spark: SparkSession, tmp_path) -> None:
    """A null typed_value object (the value is not an object) is valid whatever its field groups
    hold: the path read reads the residual, as stock Spark does."""
    a = pa.StructArray.from_arrays([pa.array([None], pa.binary()), pa.array([None], pa.int64())],
                                   names=["value", "typed_value"], mask=pa.array([True]))
    typed = pa.StructArray.from_arrays([a], names=["a"], mask=pa.array([True]))
    path = _spec_file(tmp_path / "null_object.parquet", [EMPTY_METADATA], [b"\x0c\x07"], typed)
    _same_rows_as_stock(spark, path, "SELECT id, to_json(v), v:a::int FROM bad")


def test_spec_non_object_value_beside_shredded_fields(spark: SparkSession, tmp_path) -> None:
    a = _field([None], pa.array([1], pa.int64()))
    path = _spec_file(tmp_path / "residual.parquet", [EMPTY_METADATA], [b"\x0c\x07"],
                      pa.StructArray.from_arrays([a], names=["a"]))
    message = _error(spark, path)
    _names_file_and_column(message, "residual.parquet")
    assert "not an object" in message


def test_spec_unknown_field_in_group(spark: SparkSession, tmp_path) -> None:
    a = pa.StructArray.from_arrays([pa.array([None], pa.binary()), pa.array([1], pa.int64()),
                                    pa.array([3], pa.int32())], names=["value", "typed_value", "surprise"])
    path = _spec_file(tmp_path / "unknown.parquet", [EMPTY_METADATA], [None],
                      pa.StructArray.from_arrays([a], names=["a"]))
    message = _error(spark, path)
    _names_file_and_column(message, "unknown.parquet")
    assert "surprise" in message


@pytest.mark.parametrize("name, typed", [
    ("uint32", pa.array([7], pa.uint32())),
    ("uint64", pa.array([7], pa.uint64())),
    ("fixed4", pa.array([b"abcd"], pa.binary(4))),
])
def test_spec_typed_value_of_unsupported_type(spark: SparkSession, tmp_path, name: str, typed) -> None:
    path = _spec_file(tmp_path / f"{name}.parquet", [EMPTY_METADATA], [None], typed)
    message = _error(spark, path)
    _names_file_and_column(message, f"{name}.parquet")
    assert "does not allow" in message


def test_draft_typed_value_of_unsupported_type(spark: SparkSession, tmp_path) -> None:
    path = str(tmp_path / "draft_uint.parquet")
    draft_files.write_raw(path, pa.struct([pa.field("untyped_value", pa.binary()),
                                           pa.field("typed_value", pa.uint32())]), [{"typed_value": 7}])
    message = _error(spark, path)
    _names_file_and_column(message, "draft_uint.parquet")
    assert "unsigned" in message


# --- non-standard LISTs ----------------------------------------------------------------------

def _draft_list_file(path: str, compliant: bool) -> None:
    element = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("typed_value", pa.int64())])
    vtype = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("array", pa.list_(element))])
    table = pa.table({"id": pa.array([0, 1], pa.int64()),
                      "v": pa.array([{"array": [{"typed_value": 1}, {"typed_value": 2}]}, None], vtype)})
    # Not compliant: pyarrow's legacy names (`list` / `item`), which the spec does not allow.
    pq.write_table(table, path, use_compliant_nested_type=compliant)


def test_non_standard_list_names_read_as_standard(spark: SparkSession, tmp_path) -> None:
    """A LIST whose repeated group and element carry other names than the spec's (pyarrow's
    legacy `list`/`item`): Spark's schema conversion accepts Parquet's backward-compatible list
    forms, and the extension reads the converted array, so the rows are those of the standard
    file."""
    std, legacy = str(tmp_path / "std.parquet"), str(tmp_path / "legacy.parquet")
    _draft_list_file(std, compliant=True)
    _draft_list_file(legacy, compliant=False)
    assert " item " in str(pq.ParquetFile(legacy).schema) and " element " in str(pq.ParquetFile(std).schema)
    out = {}
    for name, path in (("std", std), ("legacy", legacy)):
        spark.read.schema("id BIGINT, v VARIANT").parquet(path).createOrReplaceTempView(f"list_{name}")
        out[name] = rows_of(spark, f"SELECT id, to_json(v), v:[1]::int FROM list_{name}")
    assert_same_rows(out["std"], [(0, "[1,2]", 2), (1, None, None)], "the standard LIST")
    assert_same_rows(out["legacy"], out["std"], "the legacy LIST")


def test_spec_list_of_plain_values_is_an_error(spark: SparkSession, tmp_path) -> None:
    """A LIST typed_value whose elements are bare values, not value/typed_value groups."""
    path = _spec_file(tmp_path / "bare_list.parquet", [EMPTY_METADATA], [None],
                      pa.array([[1, 2]], pa.list_(pa.int64())))
    message = _error(spark, path)
    _names_file_and_column(message, "bare_list.parquet")


# --- conflicting files in one table -----------------------------------------------------------

def test_plain_column_beside_variant_files(spark: SparkSession, tmp_path) -> None:
    """One file stores `v` as a plain bigint, another as a shredded variant."""
    table = tmp_path / "mixed"
    table.mkdir()
    _spec_file(table / "variant.parquet", [EMPTY_METADATA], [None], pa.array([5], pa.int64()))
    pq.write_table(pa.table({"id": pa.array([1], pa.int64()), "v": pa.array([9], pa.int64())}),
                   str(table / "plain.parquet"))
    message = _error(spark, str(table))
    _names_file_and_column(message, "plain.parquet")
    assert "not a variant layout" in message


def test_spark_encoding_beside_draft_layout_undeclared(spark: SparkSession, tmp_path) -> None:
    """Inferred from the path (no VARIANT declared), a draft file beside a Spark-encoded one."""
    table = tmp_path / "two_encodings"
    table.mkdir()
    draft_files.write_raw(str(table / "draft.parquet"),
                          pa.struct([pa.field("untyped_value", pa.binary()), pa.field("typed_value", pa.int64())]),
                          [{"typed_value": 3}])
    v = pa.StructArray.from_arrays([pa.array([b"\x0c\x07"]), pa.array([EMPTY_METADATA])], names=["value", "metadata"])
    pq.write_table(pa.table({"id": pa.array([1], pa.int64()), "v": v}), str(table / "spark.parquet"))
    with pytest.raises(Exception) as info:
        spark.sql(f"SELECT id, to_json(v) FROM parquet.`{table}`").collect()
    message = str(info.value)
    assert "`v`" in message and ("spark.parquet" in message or "draft.parquet" in message), message[:2000]


# --- files that hold no rows ----------------------------------------------------------------

def test_zero_row_files_read_alongside_others(spark: SparkSession, tmp_path) -> None:
    """A zero-row file of the same layout, and one whose footer declares another shredding (a
    string where the others shred a bigint) but holds no rows: no rows from either, the rest as
    before, both layouts."""
    table = tmp_path / "with_empty"
    table.mkdir()
    metadata, value = _spark_variant(spark, '{"a": 1}')
    leaf = pa.struct([pa.field("value", pa.binary()), pa.field("typed_value", pa.int64())])
    typed = pa.array([{"a": {"typed_value": i}} for i in range(3)], pa.struct([pa.field("a", leaf)]))
    _spec_file(table / "rows.parquet", [EMPTY_METADATA] * 3, [None] * 3, typed)
    _spec_file(table / "empty_same.parquet", [], [], pa.array([], pa.struct([pa.field("a", leaf)])))
    string_leaf = pa.struct([pa.field("value", pa.binary()), pa.field("typed_value", pa.string())])
    _spec_file(table / "empty_conflicting.parquet", [], [], pa.array([], pa.struct([pa.field("a", string_leaf)])))
    assert pq.ParquetFile(str(table / "empty_conflicting.parquet")).metadata.num_rows == 0
    spark.read.schema("id BIGINT, v VARIANT").parquet(str(table)).createOrReplaceTempView("with_empty")
    assert_same_rows(rows_of(spark, "SELECT id, to_json(v), v:a::int FROM with_empty"),
                     [(i, f'{{"a":{i}}}', i) for i in range(3)], "the spec layout")
    assert_same_rows(rows_of(spark, "SELECT count(*), sum(v:a::int) FROM with_empty WHERE v:a::int >= 1"),
                     [(2, 3)], "the spec layout's aggregate")
    # The draft layout: a zero-row file with no row groups at all, beside a file with rows.
    draft = tmp_path / "draft_with_empty"
    draft.mkdir()
    dtype = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("typed_value", pa.string())])
    draft_files.write_raw(str(draft / "rows.parquet"), dtype, [{"typed_value": "x"}, {"typed_value": "y"}])
    other = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("typed_value", pa.int64())])
    pq.write_table(pa.table({"id": pa.array([], pa.int64()), "v": pa.array([], other)}),
                   str(draft / "empty.parquet"))
    spark.read.schema("id BIGINT, v VARIANT").parquet(str(draft)).createOrReplaceTempView("draft_with_empty")
    assert_same_rows(rows_of(spark, "SELECT id, v::string FROM draft_with_empty"), [(0, "x"), (1, "y")],
                     "the draft layout")


# --- more malformed values ------------------------------------------------------------------

def test_field_both_shredded_and_in_residual(spark: SparkSession, tmp_path) -> None:
    """The draft layout: `a` shredded and also a key of the object's residual."""
    path = str(tmp_path / "twice.parquet")
    residual = draft_files.variant_bytes(spark, ['{"a": 2, "b": 3}'])['{"a": 2, "b": 3}']
    leaf = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("typed_value", pa.int64())])
    vtype = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("object", pa.struct([pa.field("a", leaf)]))])
    draft_files.write_raw(path, vtype, [{"untyped_value": residual, "object": {"a": {"typed_value": 1}}}])
    message = _error(spark, path)
    _names_file_and_column(message, "twice.parquet")
    assert "both shredded and in the residual" in message


def test_spec_null_metadata(spark: SparkSession, tmp_path) -> None:
    path = _spec_file(tmp_path / "no_metadata.parquet", [None], [b"\x0c\x07"], pa.array([None], pa.int64()))
    for query in ("SELECT to_json(v) FROM bad", "SELECT v::int FROM bad"):
        message = _error(spark, path, query)
        _names_file_and_column(message, "no_metadata.parquet")
        assert "metadata is null" in message


def test_schema_spark_cannot_convert(spark: SparkSession, tmp_path) -> None:
    """A UUID typed_value inside an array: Spark 4.3 cannot convert the file's schema and the
    extension reads UUIDs only outside arrays."""
    uuid = pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"\x00" * 16], pa.binary(16)))
    element = pa.StructArray.from_arrays([pa.array([None], pa.binary()), uuid], names=["value", "typed_value"])
    path = _spec_file(tmp_path / "uuid_list.parquet", [EMPTY_METADATA], [None],
                      pa.ListArray.from_arrays(pa.array([0, 1], pa.int32()), element))
    message = _error(spark, path)
    assert "uuid_list.parquet" in message and "`v`" in message, message[:2000]


# --- truncated and corrupt files: every error names the file -------------------------------

FILE_SCHEMAS = {"draft": "id BIGINT, v VARIANT", "spec": "id BIGINT, v VARIANT",
                "nested": "id BIGINT, s STRUCT<a: BIGINT, b: STRUCT<c: BIGINT, d: STRING>>"}
FILE_QUERIES = {"draft": ["SELECT id, to_json(v) FROM t", "SELECT v:a::bigint FROM t WHERE v:a::bigint > 3"],
                "spec": ["SELECT id, to_json(v) FROM t", "SELECT v:a::bigint FROM t WHERE v:a::bigint > 3"],
                "nested": ["SELECT s.b.c FROM t", "SELECT s.b.c, s.a FROM t WHERE s.a > 3"]}


def _corrupt(data: bytes, kind: str) -> bytes:
    """`kind` of damage: the tail cut off, all garbage, a footer length past the file's start,
    a footer of garbage, or column pages of garbage under an intact footer."""
    import random
    import struct
    rng = random.Random(kind)
    footer = struct.unpack("<i", data[-8:-4])[0]
    if kind == "truncated":
        return data[: len(data) // 2]
    if kind == "garbage":
        return bytes(rng.randrange(256) for _ in data)
    if kind == "footer_length":
        return data[:-8] + struct.pack("<I", 3255511234) + b"PAR1"
    body = bytearray(data)
    start, end = (len(data) - 8 - footer, len(data) - 8) if kind == "footer" else (8, (len(data) - footer) // 2)
    for i in range(start, end, 1 if kind == "footer" else 7):
        body[i] = rng.randrange(256)
    return bytes(body)


@pytest.fixture(scope="module")
def good_files(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    """One Parquet file per layout: draft and spec shredded variants, and plain nested structs
    (read by the nested-pruning leaf reader)."""
    import pyspark_ext
    base = tmp_path_factory.mktemp("files")
    src = spark.sql("SELECT id, parse_json(concat('{\"a\":', id, ',\"b\":\"x', id, '\"}')) AS v FROM range(3000)")
    frames = {
        "draft": pyspark_ext.shred(src, "v", "a bigint, b string"),
        "spec": pyspark_ext.shred(src, "v", "a bigint, b string", layout="spec"),
        "nested": spark.sql("SELECT id, named_struct('a', id, 'b', named_struct('c', id * 2, 'd', "
                            "cast(id AS string))) AS s FROM range(3000)"),
    }
    files = {}
    for layout, df in frames.items():
        df.coalesce(1).write.parquet(str(base / layout))
        [files[layout]] = [str(p) for p in (base / layout).glob("*.parquet")]
    return files


def _top_message(e: Exception) -> str:
    """What the user reads first: the error's own message, not the causes in its stack trace."""
    java = getattr(e, "java_exception", None)
    if java is not None:
        return str(java.getMessage())
    return e.getMessage() if hasattr(e, "getMessage") else str(e)


@pytest.mark.parametrize("kind", ["truncated", "garbage", "footer_length", "footer", "pages"])
@pytest.mark.parametrize("layout", ["draft", "spec", "nested"])
def test_corrupt_file_errors_name_the_file(spark: SparkSession, good_files, tmp_path, layout: str,
                                           kind: str) -> None:
    """Read with the extension, a damaged file fails naming it (or, for damaged pages Parquet
    does not notice, reads as stock Spark reads it): never an error without the file name."""
    from pathlib import Path
    good = Path(good_files[layout])
    bad = tmp_path / good.name
    bad.write_bytes(_corrupt(good.read_bytes(), kind))
    if layout == "nested":
        spark.read.schema(FILE_SCHEMAS[layout]).parquet(str(good.parent)).createOrReplaceTempView("t")
        plan = spark.sql(FILE_QUERIES[layout][0])._jdf.queryExecution().executedPlan().toString()
        assert "leaf columns" in plan  # the leaf reader reads the good file
    for query in FILE_QUERIES[layout]:
        try:
            spark.read.schema(FILE_SCHEMAS[layout]).parquet(str(tmp_path)).createOrReplaceTempView("t")
            rows = rows_of(spark, query)
        except Exception as e:  # noqa: BLE001
            message = _top_message(e)
            assert good.name in message, f"{layout}/{kind}: {message[:1500]}"
            continue
        assert kind == "pages", f"{layout}/{kind}: read without an error"
        with confs(spark, {ENABLED: "false"}):
            assert_same_rows(rows, rows_of(spark, query), f"{layout}/{kind}: {query}")
