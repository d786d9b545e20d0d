"""The core property: after any sequence of updates every stage's content equals a from-scratch
computation on the final input, and every update output is exact (see ``check_update``)."""
from __future__ import annotations

import os
import tempfile
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyspark_ext.producers import Add, Delete, Pipeline, Update

EXAMPLES = int(os.environ.get("PYSPARK_EXT_PRODUCERS_EXAMPLES", "5"))
KEYS = range(6)


def fa(k, vs):
    for v in vs:
        yield v % 3, k * 10 + v


def fb(k, vs):
    for v in vs:
        if v % 2 == 0:
            yield v % 4, -v


def fm(k, vs):
    yield k % 2, sum(vs)


def fj(k, va, vb):
    na = sum(1 for _ in va)
    yield k, na * 100 + sum(1 for _ in vb)


def build(spark, path):
    p = Pipeline(spark, path, rows_per_row_group=2, rows_per_file=3)
    s = p.source("s")
    a = p.stage("a", fa, s, key_type="int", value_type="int")
    b = p.stage("b", fb, s, key_type="int", value_type="int")
    p.stage("m", fm, [a, b], key_type="int", value_type="int")
    p.stage("j", fj, a, b, key_type="int", value_type="int")
    return p


def model(source: dict[int, list[int]]) -> dict[str, dict[int, list[int]]]:
    """The pipeline's stages computed directly, from scratch: stage -> key -> sorted values."""
    def apply(fn, groups):
        out = defaultdict(list)
        for k in sorted(groups):
            for tk, tv in fn(k, *(iter(g) for g in groups[k])):
                out[tk].append(tv)
        return {k: sorted(v) for k, v in out.items()}
    s = {k: sorted(v) for k, v in source.items() if v}
    a = apply(fa, {k: [v] for k, v in s.items()})
    b = apply(fb, {k: [v] for k, v in s.items()})
    m = apply(fm, {k: [a.get(k, []) + b.get(k, [])] for k in set(a) | set(b)})
    j = apply(fj, {k: [a.get(k, []), b.get(k, [])] for k in set(a) | set(b)})
    return {"s": s, "a": a, "b": b, "m": m, "j": j}


def stored(p, name, kind):
    """A stage's rows as stored: its files read in manifest order with pyarrow (no Spark job)."""
    import pyarrow.parquet as pq
    entry = p.manifest()["stages"][name]
    return [tuple(r.values()) for f in entry[kind]
            for r in pq.read_table(p.store.path(f["path"])).to_pylist()]


def content(p, name):
    rows = stored(p, name, "content")
    assert [r[:2] for r in rows] == sorted(r[:2] for r in rows), f"{name}: not sorted"
    out = defaultdict(list)
    for k, _, v in rows:
        out[k].append(v)
    return {k: sorted(v) for k, v in out.items()}


def check_update(name, rows, old, new):
    """Exact: every key whose values changed is there; a Delete alone for a key gone; for a key
    present all its values, the first one Add iff the key is new, the rest Update. A key whose
    values did not change may be reported (it was re-derived) only as Updates of all its values."""
    by_key = defaultdict(list)
    for t, k, v in rows:
        by_key[k].append((t, v))
    for k in set(old) | set(new):
        if old.get(k) != new.get(k):
            assert k in by_key, f"{name}: changed key {k} missing from the update"
    for k, changes in by_key.items():
        types = [t for t, _ in changes]
        if k not in new:
            assert changes == [(Delete, None)] and k in old, f"{name}: key {k}: {changes}"
            continue
        assert sorted(v for _, v in changes) == new[k], f"{name}: key {k}: not all values"
        first = Add if k not in old else Update
        assert types == [first] + [Update] * (len(types) - 1), f"{name}: key {k}: {types}"


changes_of_a_key = st.one_of(
    st.just([(Delete, None)]),
    st.lists(st.tuples(st.sampled_from([Add, Update]), st.integers(0, 9)), min_size=1,
             max_size=3))
updates = st.lists(st.dictionaries(st.sampled_from(list(KEYS)), changes_of_a_key, min_size=1,
                                   max_size=4), min_size=1, max_size=3)
initial = st.dictionaries(st.sampled_from(list(KEYS)), st.lists(st.integers(0, 9), min_size=1,
                                                                 max_size=3))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(initial=initial, updates=updates)
def test_incremental_equals_from_scratch_and_updates_are_exact(spark, tmp_path, initial, updates):
    p = build(spark, tempfile.mkdtemp(dir=tmp_path))
    source = {k: list(v) for k, v in initial.items()}
    p.run({"s": spark.createDataFrame([(k, v) for k, vs in source.items() for v in vs] or [],
                                      "key int, value int")})
    expected = model(source)
    for name, want in expected.items():
        assert content(p, name) == want, name
    for update in updates:
        for k, changes in update.items():
            source[k] = [v for t, v in changes if t != Delete]
        p.update({"s": spark.createDataFrame([(t, k, v) for k, cs in update.items()
                                              for t, v in cs], "type string, key int, value int")})
        before, expected = expected, model(source)
        for name, want in expected.items():
            assert content(p, name) == want, name
            rows = stored(p, name, "update")
            assert [k for _, k, _ in rows] == sorted(k for _, k, _ in rows), name
            check_update(name, rows, before[name], want)


def test_incremental_files_equal_a_from_scratch_run(spark, tmp_path):
    """Literally: two Spark runs, one incremental over three versions, one from scratch on the
    final input, store the same rows in every stage's content and key_mappings."""
    inc = build(spark, str(tmp_path / "inc"))
    inc.run({"s": spark.createDataFrame([(k, k + i) for k in KEYS for i in range(2)],
                                        "key int, value int")})
    inc.update({"s": spark.createDataFrame([(Delete, 1, None), (Update, 2, 7), (Add, 9, 4)],
                                           "type string, key int, value int")})
    inc.update({"s": spark.createDataFrame([(Update, 3, 8), (Update, 3, 1), (Add, 1, 2)],
                                           "type string, key int, value int")})
    final = {k: [k, k + 1] for k in KEYS} | {2: [7], 9: [4], 3: [8, 1], 1: [2]}
    scratch = build(spark, str(tmp_path / "scratch"))
    scratch.run({"s": spark.createDataFrame([(k, v) for k, vs in final.items() for v in vs],
                                            "key int, value int")})
    from pyspark_ext.producers.incremental import entry_frames
    for name in "sabmj":
        for kind in ("content", "key_mappings"):
            got, want = (sorted(map(tuple, entry_frames(spark, q.store, q.manifest()["stages"][name])
                                    [kind].collect())) for q in (inc, scratch))
            assert got == want, (name, kind)
