"""Caches and concurrency: a file overwritten in place is read as it is now, and one session
answering many threads at once gives every thread its right rows.

The extension caches what it reads from footers (each file's schema and residual statistics,
`FooterSchemas`; column-chunk sizes, `NarrowReadPacking`) by path, length and modification time.
A file rewritten between two queries gets a new length or time from the file system, so its
footer is read again; the tests rewrite one with the same length too (a new time forced with
``os.utime``).
"""
from __future__ import annotations

import os
import random
import re
import shutil
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from tests.support import draft_files
from tests.support.differential import ENABLED, assert_same_rows, confs, rows_difference, rows_of
from tests.support.variant_data import CONFLICTING, FULL, SHRED_SCHEMA, mixed_variants, write_spec

# --- a file overwritten in place --------------------------------------------------------------

LEAF = pa.struct([pa.field("untyped_value", pa.binary()), pa.field("typed_value", pa.int64())])
DRAFT = pa.struct([pa.field("untyped_value", pa.binary()),
                   pa.field("object", pa.struct([pa.field("a", LEAF)]))])
N = 40


def _write_draft(path: Path, values: list, pad: int) -> None:
    """One draft-layout file with `v` and a `pad` string of `pad` characters, stored so that each
    character adds one byte (no compression, dictionary or statistics for it)."""
    table = pa.table({"id": pa.array(range(len(values)), pa.int64()), "v": pa.array(values, DRAFT),
                      "pad": pa.array(["x" * pad] + [None] * (len(values) - 1), pa.string())})
    pq.write_table(table, str(path), compression="none", use_dictionary=False,
                   write_statistics=["id", "v.untyped_value", "v.object.a.untyped_value",
                                     "v.object.a.typed_value"])


def _write_same_size(path: Path, values: list, size: int) -> None:
    for pad in range(0, 4000):
        _write_draft(path, values, pad)
        if path.stat().st_size == size:
            return
    raise AssertionError(f"no padding makes the file {size} bytes")


def _typed(i: int) -> dict:
    return {"object": {"a": {"typed_value": i}}}


@pytest.mark.parametrize("same_size", [False, True])
def test_draft_file_overwritten_between_queries(spark: SparkSession, tmp_path, same_size: bool) -> None:
    """First every `a` is typed, so the residual is null in every row group and the read leaves
    it out; then the file holds `a` only in its residual. A stale footer would read nulls."""
    table = tmp_path / "t"
    table.mkdir()
    f = table / "part-0.parquet"
    _write_draft(f, [_typed(i) for i in range(N)], pad=600)
    before = f.stat()
    q = f"SELECT id, variant_get(v, '$.a', 'bigint') AS a FROM parquet.`{table}`"
    assert_same_rows(rows_of(spark, q), [(i, i) for i in range(N)], "the first file")
    [scan] = pyspark_ext.explain_read_schema(spark.sql(q))
    assert "untyped_value" not in scan["read_schema"]

    encoded = draft_files.variant_bytes(spark, [str(1000 + i) for i in range(N)])
    residual = [{"object": {"a": {"untyped_value": encoded[str(1000 + i)]}}} for i in range(N)]
    if same_size:
        _write_same_size(f, residual, before.st_size)
        # The same length; a later time, as a rewrite gets (forced: the write may fall in the
        # same clock tick as the first).
        os.utime(f, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
        assert f.stat().st_size == before.st_size
    else:
        _write_draft(f, residual, pad=0)
        assert f.stat().st_size != before.st_size
    assert_same_rows(rows_of(spark, q), [(i, 1000 + i) for i in range(N)], "the rewritten file")
    [scan] = pyspark_ext.explain_read_schema(spark.sql(q))
    assert "untyped_value" in scan["read_schema"]


@pytest.mark.parametrize("same_size", [False, True])
def test_stale_listing_fails_clearly(spark: SparkSession, tmp_path, same_size: bool) -> None:
    """A DataFrame (like a catalog table) keeps the listing it was analysed with. Run again after
    its file was rewritten, its plan still rests on the old footer: the scan finds the file
    changed and fails, naming it, instead of reading the new file by the old shredding."""
    table = tmp_path / "t"
    table.mkdir()
    f = table / "part-0.parquet"
    _write_draft(f, [_typed(i) for i in range(N)], pad=600)
    before = f.stat()
    df = spark.read.parquet(str(table)).selectExpr("id", "variant_get(v, '$.a', 'bigint') AS a")
    assert sorted(tuple(r) for r in df.collect()) == [(i, i) for i in range(N)]
    encoded = draft_files.variant_bytes(spark, [str(1000 + i) for i in range(N)])
    residual = [{"object": {"a": {"untyped_value": encoded[str(1000 + i)]}}} for i in range(N)]
    if same_size:
        _write_same_size(f, residual, before.st_size)
        os.utime(f, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
    else:
        _write_draft(f, residual, pad=0)
    # Raised in the scan, so Spark wraps it as it wraps every read error (FAILED_READ_FILE,
    # naming the file), with this as the cause.
    with pytest.raises(Exception) as info:
        df.collect()
    message = str(info.value)
    assert "FAILED_READ_FILE" in message and "part-0.parquet changed after" in message
    assert "REFRESH TABLE" in message
    # Read again, the path is listed anew.
    assert sorted(tuple(r) for r in spark.read.parquet(str(table))
                  .selectExpr("id", "variant_get(v, '$.a', 'bigint')").collect()) == \
        [(i, 1000 + i) for i in range(N)]


def test_spec_file_overwritten_with_another_shredding(spark: SparkSession, tmp_path) -> None:
    """Spark's writer shreds `id` as bigint, then (same path) as string: the second read must use
    the new file's typed column, not the cached one."""
    truth = mixed_variants(spark, 200, seed=5, view="overwrite_truth")
    target = tmp_path / "t"
    target.mkdir()
    q = f"SELECT id, v:id::string, v:user.name::string FROM parquet.`{target}`"
    for i, schema in enumerate([FULL, CONFLICTING]):
        out = tmp_path / f"w{i}"
        write_spec(spark, truth, str(out), schema)
        [part] = out.glob("*.parquet")
        shutil.copyfile(part, target / "part-0.parquet")  # the same path, new content
        with confs(spark, {ENABLED: "false"}):
            stock = rows_of(spark, q)
        assert_same_rows(rows_of(spark, q), stock, f"write {i}: {q}")
        [scan] = pyspark_ext.explain_read_schema(spark.sql(q))
        typed = re.search(r"id:struct<(?:value:binary,)?typed_value:(\w+)>", scan["read_schema"])
        assert typed and typed.group(1) == ("bigint" if i == 0 else "string"), scan["read_schema"]


# --- one session, many threads ----------------------------------------------------------------

THREADS = 8
ROUNDS = 2


@pytest.fixture(scope="module")
def mixed_tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("threads")
    truth = mixed_variants(spark, 400, seed=13, view="threads_truth")
    pyspark_ext.shred(truth, "v", SHRED_SCHEMA).coalesce(2).write.parquet(str(base / "draft"))
    # Two spec files that conflict, read under a Union.
    spec = base / "spec"
    spec.mkdir()
    for i, schema in enumerate([FULL, CONFLICTING]):
        write_spec(spark, truth.where(f"id % 2 = {i}"), str(base / f"s{i}"), schema)
        for f in (base / f"s{i}").glob("*.parquet"):
            shutil.move(str(f), str(spec / f"{i}-{f.name}"))
    spark.range(600).selectExpr(
        "id AS k", "named_struct('a', named_struct('b', id * 3, 'c', CAST(id AS string)), 'd', id / 2) AS s",
        "CAST(id % 3 AS string) AS day").write.partitionBy("day").parquet(str(base / "nested"))
    spark.range(1000).selectExpr("id", "id % 7 AS g").write.parquet(str(base / "flat"))
    tables = {name: f"parquet.`{base / name}`" for name in ("draft", "spec", "nested", "flat")}
    return {**tables, "truth": "threads_truth"}


MIXED = [
    ("draft", "SELECT id, v:user.name::string, try_variant_get(v, '$.price', 'double') FROM {t}"),
    ("draft", "SELECT v:kind::string, count(*), max(v:user.id::int) FROM {t} GROUP BY 1"),
    ("draft", "SELECT id, to_json(v) FROM {t} WHERE v:id::bigint > 300"),
    ("spec", "SELECT id, v:id::string, v:user.name::string FROM {t}"),
    ("spec", "SELECT v:kind::string, count(*) FROM {t} WHERE v:user.id::int < 500 GROUP BY 1"),
    ("spec", "SELECT id, to_json(v:items) FROM {t}"),
    ("nested", "SELECT day, sum(s.a.b), count(s.a.c) FROM {t} GROUP BY day"),  # leaf columns
    ("nested", "SELECT k, s.a.c FROM {t} WHERE s.a.b BETWEEN 30 AND 90"),
    ("flat", "SELECT g, sum(id) FROM {t} GROUP BY g"),  # untouched by the extension
    ("flat", "SELECT count(*) FROM {t} WHERE id % 5 = 0"),
]


@pytest.mark.slow
def test_eight_threads_on_one_session(spark: SparkSession, mixed_tables: dict[str, str]) -> None:
    queries = [q.format(t=mixed_tables[t]) for t, q in MIXED]
    # Stock Spark's rows; for the draft layout (a struct to stock Spark) the unshredded values'.
    with confs(spark, {ENABLED: "false"}):
        expected = {q.format(t=mixed_tables[t]): rows_of(spark, q.format(t=mixed_tables["truth" if t == "draft" else t]))
                    for t, q in MIXED}
    assert all(expected.values())
    failures: list[str] = []
    lock = threading.Lock()

    def work(seed: int) -> None:
        order = queries * ROUNDS
        random.Random(seed).shuffle(order)
        for q in order:
            try:
                detail = rows_difference(rows_of(spark, q), expected[q])
            except Exception as e:  # noqa: BLE001 - every failure is reported below
                detail = f"{type(e).__name__}: {str(e)[:300]}"
            if detail is not None:
                with lock:
                    failures.append(f"thread {seed}: {detail}: {q}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, "\n".join(failures)
