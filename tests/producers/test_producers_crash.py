"""Crash recovery: a real subprocess is killed (``os._exit``) mid-stage, between stages and before
the commit; version N stays readable and intact, the stale lease is broken, and a rerun completes
N+1. Also: a key with more values than the Python worker's memory limit allows at once streams
through Produce and the merges (a subprocess with ``spark.executor.pyspark.memory``)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pyspark_ext.producers import Delete, Pipeline, Update

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]


def build(spark, path):
    p = Pipeline(spark, path, rows_per_row_group=2, rows_per_file=4)
    s = p.source("s")
    a = p.stage("a", lambda k, vs: ((v % 5, k) for v in vs), s, key_type="int", value_type="int")
    p.stage("b", lambda k, vs: [(k, sorted(vs))], a, key_type="int", value_type="array<int>")
    return p


CHANGES = [(Update, 1, 42), (Delete, 2, None), ("Add", 11, 3)]


def changes(spark):
    return spark.createDataFrame(CHANGES, "type string, key int, value int")


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), **(extra or {})}


def _python(script: str, env: dict[str, str] | None = None, timeout: int = 300):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=ROOT,
                          env=_env(env), capture_output=True, text=True, timeout=timeout)


CRASHING_UPDATE = """
    from pyspark.sql import SparkSession
    from tests.producers.test_producers_crash import build, changes
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "1")
             .config("spark.driver.extraJavaOptions", {jvm!r}).getOrCreate())
    build(spark, {path!r}).update({{"s": changes(spark)}})
    print("NOT CRASHED")
"""
#: the kill points, each as early as it can be: in the first stage's merge, after the first
#: stage, and after the last stage (before the commit)
POINTS = ["mid-stage:s", "between-stages:s", "before-commit"]
#: a short-lived driver JVM starts faster with the client compiler only (~2 s of ~13 s)
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def stored(p):
    """Every stage's content as committed, read with pyarrow (no Spark job)."""
    import pyarrow.parquet as pq
    stages = p.manifest()["stages"]
    return {name: sorted((r["key"], r["value"]) for f in stages[name]["content"]
                         for r in pq.read_table(p.store.path(f["path"])).to_pylist())
            for name in ("s", "a", "b")}


@pytest.fixture(scope="module")
def crashed(spark, tmp_path_factory):
    """Version 1 of the pipeline, copied once per kill point, and an update of each copy killed at
    its point: the three subprocesses run side by side."""
    base = tmp_path_factory.mktemp("crash")
    first = build(spark, str(base / "v1"))
    first.run({"s": spark.createDataFrame([(k, k * 3) for k in range(8)], "key int, value int")})
    procs = {}
    for point in POINTS:
        path = base / point.replace(":", "-")
        shutil.copytree(base / "v1", path)
        procs[point] = (path, subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(CRASHING_UPDATE.format(path=str(path), jvm=QUICK_JVM))],
            cwd=ROOT, env=_env({"PYSPARK_EXT_PRODUCERS_CRASH": point}), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True))
    done = {}
    for point, (path, proc) in procs.items():
        out, err = proc.communicate(timeout=300)
        done[point] = (path, proc.returncode, out[-2000:] + err[-4000:])
    return stored(first), (base / "v1" / "_versions" / "00000001.json").read_bytes(), done


@pytest.mark.parametrize("point", POINTS)
def test_crash_leaves_version_n_intact_and_a_rerun_completes(spark, crashed, point):
    before, manifest, done = crashed
    path, code, log = done[point]
    assert code == 86, log
    assert (path / "_lease.json").exists(), "the crashed run held the lease"
    assert (path / "v00000002").exists(), "the crashed run had written files"
    p = build(spark, str(path))
    assert p.versions() == [1] and stored(p) == before
    assert (path / "_versions" / "00000001.json").read_bytes() == manifest
    assert p.update({"s": changes(spark)}) == 2  # breaks the stale lease, redoes version 2
    final = {k: k * 3 for k in range(8)} | {1: 42, 11: 3}
    del final[2]
    assert stored(p)["s"] == sorted(final.items())
    assert stored(p)["b"] == sorted((r, sorted(k for k, v in final.items() if v % 5 == r))
                                    for r in {v % 5 for v in final.values()})
    assert not (path / "_lease.json").exists()
    p.vacuum(keep=1)
    assert stored(p)["s"] == sorted(final.items())


#: what a Python worker holds before it reads any data: its address space (``RLIMIT_AS`` is what
#: ``spark.executor.pyspark.memory`` limits) after importing what a producers task imports
#: the worker's memory above its baseline, with room for the thread stacks a worker adds as the
#: merges run (which vary from run to run), and the key's values: three times that, in one key
HEADROOM_MB, VALUE_BYTES = 160, 16 << 10

BIG_KEY = """
    from pyspark.sql import SparkSession
    from pyspark_ext.producers import Pipeline

    def session(**conf):
        builder = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
                   .config("spark.sql.execution.arrow.maxBytesPerBatch", str(2 << 20))
                   .config("spark.sql.shuffle.partitions", "1"))
        for key, value in conf.items():
            builder = builder.config(key, value)
        return builder.getOrCreate()

    def vm_size(batches):
        import tempfile
        import pyarrow as pa, pyarrow.parquet as pq
        import pyspark_ext.producers.merge, pyspark_ext.producers.produce
        # a Parquet file written and read back starts Arrow's CPU and IO thread pools (a stack
        # each), as the merges do
        with tempfile.NamedTemporaryFile(suffix=".parquet") as f:
            pq.write_table(pa.Table.from_batches(list(batches)), f.name)
            pq.read_table(f.name)
        mb = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) // 1024
        yield pa.RecordBatch.from_pylist([{{"mb": mb}}])

    # The limit is an address-space limit, so it is set above what a Python worker of this Spark
    # holds before the key's values arrive, measured in such a worker: its threads, thread pools
    # and modules are not those of a fresh interpreter
    spark = session()
    baseline = max(r.mb for r in spark.range(1).mapInArrow(vm_size, "mb long").collect())
    spark.stop()
    print("BASELINE", baseline, flush=True)

    spark = session(**{{"spark.executor.pyspark.memory": f"{{baseline + {headroom}}}m"}})
    rows = {rows}
    df = spark.sql(f"select 1 as key, concat(repeat('x', {width}), id) as value from range({{rows}})")

    def streamed(key, values):
        n = size = 0
        for v in values:
            n, size = n + 1, size + len(v)
        yield key, n * 1000 + size % 1000

    p = Pipeline(spark, {path!r}, row_group_bytes=8 << 20)
    p.stage("count", streamed, p.source("big"), key_type="int", value_type="bigint")
    p.run({{"big": df}})
    print("STREAMED", p.content("count").collect()[0].value)

    def materialise(batches):  # the control: the same values held at once, under the same limit
        import pyarrow as pa
        held = list(batches)
        yield pa.RecordBatch.from_pylist([{{"n": sum(b.num_rows for b in held)}}])
    try:
        spark.read.parquet(*p.files("big")).select("value").mapInArrow(materialise, "n long").collect()
        print("MATERIALISED fits")
    except Exception as e:
        print("MATERIALISED", "MemoryError" in str(e))
"""


def test_a_key_with_more_values_than_the_worker_memory_limit_allows_at_once(tmp_path):
    """One key whose values are three times what the worker may hold above its baseline: Produce
    (a stage) and the merges (the source's content and update) stream it; holding it at once
    under the same limit (the control) fails."""
    # pyarrow's default allocator and glibc's per-thread arenas (64 MB each) reserve address space,
    # which an address-space limit counts; the system allocator with one arena makes it measure
    # what is held, whichever threads allocate
    env = {"ARROW_DEFAULT_MEMORY_POOL": "system", "MALLOC_ARENA_MAX": "1"}
    rows = 3 * (HEADROOM_MB << 20) // VALUE_BYTES
    proc = _python(BIG_KEY.format(rows=rows, width=VALUE_BYTES - 8, path=str(tmp_path / "p"),
                                  headroom=HEADROOM_MB), env, timeout=300)
    out = proc.stdout
    assert "STREAMED" in out, out + proc.stderr[-4000:]
    expected_size = sum(VALUE_BYTES - 8 + len(str(i)) for i in range(rows))
    assert f"STREAMED {rows * 1000 + expected_size % 1000}" in out
    assert "MATERIALISED True" in out, out[-2000:] + proc.stderr[-3000:]
