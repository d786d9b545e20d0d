"""The update's merge on Arrow batches (``merge_batches``) against the row-by-row merge it replaces
(``merge``'s own path, which the first run and preserve hooks still use), without Spark: random old
files and sorted instructions, tiny batches (windows end anywhere, keys span batches) and a tiny
``KEY_BYTES`` (large keys are streamed row by row mid-window). Both must write the same rows, the
same update rows, and files that never split a key."""
from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

from pyspark_ext.producers import merge, merge_batches
from pyspark_ext.producers.rows import arrow_type, sort_key
from pyspark_ext.producers.storage import Store

# Each test runs whole pipelines (several Spark jobs): in CI, not in the fast set
pytestmark = pytest.mark.slow

STRUCT = StructType([StructField("a", IntegerType(), False), StructField("b", StringType(), False)])
TYPES = {"long": (LongType(), lambda i: i), "string": (StringType(), lambda i: f"k{i:03d}"),
         "struct": (STRUCT, lambda i: {"a": i // 3, "b": f"s{i % 3}"})}


def _write_old(store, rel, rows, schema):
    path = store.path(rel)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, row_group_size=3)


def _read(store, metas, kind):
    files = [m for m in metas if m["kind"] == kind]
    out = []
    for m in sorted(files, key=lambda m: (m["range"], m["part"])):
        out.append(pq.read_table(store.path(m["path"])).to_pylist())
    return out


def _range(k1: int) -> int:
    """Three ranges: [0, 5) and [5, 10) have old files, [10, ...) has none (as if new)."""
    return min(k1 // 5, 2)


def _run(store, kind, old_files, instructions, k1, k2, v, batch_rows, batches, out_dir, per_file):
    task = merge.merge_task(store, kind, "s", old_files, k1, k2, v, out_dir, 2, per_file,
                            64 << 20, batches=batches)
    chunks = [instructions.slice(i, batch_rows) for i in range(0, instructions.num_rows,
                                                               batch_rows)]
    metas = []
    for b in task(iter(chunks)):
        metas += b.to_pylist()
    return metas


@st.composite
def cases(draw):
    kind = draw(st.sampled_from(["content", "key_mappings"]))
    k1_name = draw(st.sampled_from(sorted(TYPES)))
    k1, make = TYPES[k1_name]
    old_pairs = sorted(draw(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 4)),
                                     max_size=40)))
    if kind == "key_mappings":
        old_pairs = sorted(set(old_pairs))
    ins = sorted(set(draw(st.lists(st.tuples(st.integers(0, 14), st.integers(0, 4),
                                             st.integers(0, 1)), max_size=30))))
    if kind == "content":  # a pair is inserted several times when a source key emits it so
        ins = sorted(ins + [i for i in ins if i[2] == 1 and draw(st.booleans())])
    return (kind, k1_name, make, k1, old_pairs, ins, draw(st.integers(1, 5)),
            draw(st.integers(1, 7)), draw(st.sampled_from([1 << 30, 40, 200])))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cases())
def test_batches_merge_writes_what_the_row_merge_writes(tmp_path_factory, monkeypatch, case):
    kind, _, make, k1, old_pairs, ins, batch_rows, per_file, key_bytes = case
    monkeypatch.setattr(merge, "BATCH_BYTES", 48)  # old files read a few rows at a time
    monkeypatch.setattr(merge_batches, "KEY_BYTES", key_bytes)
    store = Store.at(str(tmp_path_factory.mktemp("m")))
    k2, v = LongType(), (LongType() if kind == "content" else None)
    names = ["key", "source_key"] if kind == "content" else ["source_key", "key"]
    fields = [pa.field(names[0], arrow_type(k1)), pa.field(names[1], arrow_type(k2))]
    if v is not None:
        fields.append(pa.field("value", arrow_type(v)))
    schema = pa.schema(fields)
    os.makedirs(store.path("old"), exist_ok=True)
    old_files = {}
    for r in (0, 1):
        old = [dict(zip(schema.names, (make(a), b, 100 * a + b + n)))
               for n, (a, b) in enumerate(old_pairs) if _range(a) == r]
        _write_old(store, f"old/{r}.parquet", old, schema)
        old_files[r] = f"old/{r}.parquet"
    cols = {"range": pa.array([_range(a) for a, _, _ in ins], pa.int32()),
            "k1": pa.array([make(a) for a, _, _ in ins], arrow_type(k1)),
            "k2": pa.array([b for _, b, _ in ins], pa.int64()),
            "op": pa.array([o for _, _, o in ins], pa.int8())}
    if v is not None:
        cols["value"] = pa.array([None if o == 0 else -(10 * a + b) for a, b, o in ins],
                                 pa.int64())
    instructions = pa.RecordBatch.from_pydict(cols)
    row = _run(store, kind, old_files, instructions, k1, k2, v, batch_rows, False,
               "row", per_file)
    bat = _run(store, kind, old_files, instructions, k1, k2, v, batch_rows, True,
               "bat", per_file)
    for what in (kind, "update"):
        expected = [r for f in _read(store, row, what) for r in f]
        files = _read(store, bat, what)
        assert [r for f in files for r in f] == expected, what
        done = sorted(m["range"] for m in bat if m["kind"] == "done")
        assert done == sorted({_range(a) for a, _, _ in ins})
        key = schema.names[0] if what == kind else "key"
        order = sort_key(k1)
        bounds = [(order(f[0][key]), order(f[-1][key])) for f in files]
        assert all(a[1] < b[0] for a, b in zip(bounds, bounds[1:])), "a key spans two files"
        # a file goes past rows_per_file only to finish the key it is at
        assert all(len({order(r[key]) for r in f[per_file - 1:]}) == 1 for f in files
                   if len(f) > per_file)


def test_search_finds_pairs_in_runs_of_equal_first_keys():
    import numpy as np
    a1 = np.array([1, 1, 1, 2, 3, 3])
    a2 = np.array([1, 2, 2, 0, 5, 9])
    q1, q2 = np.array([1, 1, 2, 3, 0, 4]), np.array([2, 3, 0, 6, 0, 0])
    assert list(merge_batches.search(a1, a2, q1, q2, right=False)) == [1, 3, 3, 5, 0, 6]
    assert list(merge_batches.search(a1, a2, q1, q2, right=True)) == [3, 3, 4, 5, 0, 6]


@pytest.mark.parametrize("name", sorted(TYPES))
def test_key_arrays_order_as_the_sort_keys(name):
    dt, make = TYPES[name]
    values = [make(i) for i in (5, 0, 9, 3, 3)]
    arr = merge_batches.key_array(pa.array(values, arrow_type(dt)), dt, sort_key(dt))
    order = sort_key(dt)
    ranked = sorted(range(5), key=lambda i: order(values[i]))
    assert [arr[i] for i in ranked] == sorted(arr[i] for i in range(5))
