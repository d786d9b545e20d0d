"""The extension on a standalone cluster: ``local-cluster[2,1,1024]``, a master and two workers
with each executor in its own JVM, as Spark's own suites run. The jar reaches the executors
through ``spark.jars``, as on a real cluster.

Only one SparkContext fits in a Python process, so the cluster session runs in a subprocess
(``tests.support.deployments.cluster_run``, started once for the module, while the same checks run here
in local mode). Each check (nested pruning, a query shape of each kind of operator, ORC,
draft- and spec-layout path reads, per-file reads of files that shred differently, partitioned
tables, row-group skipping with its run-time metrics, whole-value reconstruction, the writer,
schema inference, the ``explain_read_schema`` report) must give the same result on the cluster
as in local mode, and the same rows as stock Spark. A producers pipeline
(``tests.support.deployments.producers_check``: run, update, a join, a merge, PreserveKeyValues) must
store the same content and changes, its Python workers importing ``pyspark_ext`` from the zip
``ship_package`` adds and the Produce functions pickled by value.

A line without the variant half or the producers (Spark 3.5) runs the nested checks only. CI runs
this module on 3.5 as well as in the full suite: 3.5's jar is a build of its own (Scala 2.12),
which no other line's executors load.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyspark
import pytest

from pyspark_ext import jar, settings
from tests.support.deployments import checks

pytestmark = [pytest.mark.cluster, pytest.mark.subprocess]

ROOT = Path(__file__).resolve().parents[2]
VARIANT_HALF = jar.carries_variant()
#: Checks over VARIANT tables, run only on a line that carries the variant half (not 3.5 or 4.0).
needs_variant_half = pytest.mark.skipif(
    not VARIANT_HALF, reason=f"Spark {jar.spark_line()} does not carry the variant half")
needs_producers = pytest.mark.skipif(
    not jar.runs_producers(), reason="the producers need pyspark.sql.conversion (pyspark 4.0 or later)")
CHECKS = [*checks.NESTED,
          *(pytest.param(name, marks=needs_variant_half) for name in checks.QUERIES
            if name not in checks.NESTED),
          *(pytest.param(f"{layout}_{name}", marks=needs_variant_half) for layout in ("draft", "spec")
            for name in checks.VARIANT)]
TIMEOUT = 300


@pytest.fixture(scope="module")
def cluster_process(tmp_path_factory):
    base = tmp_path_factory.mktemp("cluster")
    env = dict(os.environ)
    # local-cluster launches executors from $SPARK_HOME; with pip that is the pyspark package.
    env["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    log = (base / "cluster.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.deployments.cluster_run",
         "--master", "local-cluster[2,1,1024]", "--executors", "2",
         "--base", str(base / "data"), "--out", str(base / "results.json")],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    yield proc, base
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    log.close()


@pytest.fixture(scope="module")
def local(spark, cluster_process, tmp_path_factory) -> dict[str, Any]:
    """The checks in local mode in this process (while the cluster runs them), in a session of
    their own: the checks' temp views (``events``...) must not replace the other modules'."""
    session = spark.newSession()
    assert session.conf.get(settings.STRICT) == "true"
    base = tmp_path_factory.mktemp("local")
    results = checks.run_checks(session, str(base), variant=VARIANT_HALF)
    if jar.runs_producers():
        from tests.support.deployments import producers_check
        results["producers"] = producers_check.run(session, str(base / "producers"))
    return results


@pytest.fixture(scope="module")
def cluster(cluster_process, local) -> dict[str, Any]:
    proc, base = cluster_process
    try:
        code = proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        code = None
    if code != 0:
        log = (base / "cluster.log").read_text()
        pytest.fail(f"the cluster run {'timed out' if code is None else f'exited with {code}'}; "
                    f"its log ends:\n{log[-6000:]}")
    return json.loads((base / "results.json").read_text())


def test_tasks_run_in_two_executor_jvms_with_the_shipped_jar(cluster):
    assert cluster["master"] == "local-cluster[2,1,1024]"
    jvms = cluster["task_jvms"]
    assert len(jvms) == 2
    assert all(j.startswith("org.apache.spark.executor.CoarseGrainedExecutorBackend") for j in jvms)
    assert {j.split("--executor-id ")[1].split()[0] for j in jvms} == {"0", "1"}
    from pyspark_ext import build_jar
    assert str(build_jar()) in cluster["jars"].split(",")


@pytest.mark.parametrize("name", CHECKS)
def test_cluster_equals_local_mode_and_stock_spark(cluster, local, name):
    """The cluster's rows and report equal local mode's, and its rows equal stock Spark's
    (local mode, extension off)."""
    on_cluster = cluster["results"][name]
    assert on_cluster["scans"] == local[name]["scans"]
    assert on_cluster["rows_on"] == local[name]["rows_on"] == local[name]["rows_off"]
    assert on_cluster["rows_on"], "every check returns rows"


@pytest.mark.parametrize("name", checks.DEPLOYED_SHAPES)
def test_nested_shape_on_the_cluster_equals_local_mode(cluster, local, name):
    """A query shape of each kind of operator (the nested-pruning tests compare every shape with
    stock Spark) returns the same rows on the cluster and reads the same."""
    assert cluster["results"]["shapes"][name] == local["shapes"][name]
    assert local["shapes"][name]["rows_on"] or "empty" in name


@needs_variant_half
def test_writer_and_schema_inference_on_the_cluster(cluster, local):
    results = cluster["results"]
    for layout in ("draft", "spec"):
        # every value written and read back equals its source value
        assert results[f"{layout}_writer_round_trip"]["rows_on"] == [f"({checks.ROWS},)"]
    assert results["draft_files_schema"] == local["draft_files_schema"] == "struct<rid:bigint,v:variant>"
    # the spec-layout writer, column by column in the executors too, writes every value back
    assert results["spec_ours_writer_round_trip"]["rows_on"] == [f"({checks.ROWS},)"]
    ours = local["spec_ours_writer_round_trip"]
    assert results["spec_ours_writer_round_trip"]["rows_on"] == ours["rows_on"] == ours["rows_off"]
    assert results["spec_ours_columnar"] == local["spec_ours_columnar"] == ["v"]
    assert results["inferred_shredding_schema"] == local["inferred_shredding_schema"]
    assert "`user`: struct<`tier`: string>" in results["inferred_shredding_schema"]


def test_what_the_cluster_read(cluster):
    """The checks do exercise the features: pruned leaves, skipped row groups counted by the
    executors' metrics."""
    results = cluster["results"]
    (scan,) = results["nested_project_filter"]["scans"]
    assert scan["read_schema"] == "struct<id:bigint,user:struct<geo:struct<country:string,city:string>>>"
    (scan,) = results["nested_explode"]["scans"]
    assert scan["read_schema"] == ("struct<id:bigint,page:struct<views:array<struct<ts:bigint,"
                                   "items:array<struct<cpc:double,clicked:boolean>>>>>>")
    (scan,) = results["nested_row_groups"]["scans"]
    # Spark 3.5's Parquet (1.13) has no row-count limit for row groups, so there the file is one
    # row group, which the filter keeps.
    row_groups = (1, 0) if jar.spark_line() == "3.5" else (3, 7)
    assert (scan["row_groups_read_metric"], scan["row_groups_skipped_metric"]) == row_groups
    if not VARIANT_HALF:
        return
    for layout in ("draft", "spec"):
        (scan,) = results[f"{layout}_skip_between"]["scans"]
        # 250..449 spans row groups 2-4; group 6 holds a string id, whose untyped column blocks
        # skipping for any id filter.
        assert (scan["row_groups_read"], scan["row_groups_skipped"]) == (4, 6)
        assert (scan["row_groups_read_metric"], scan["row_groups_skipped_metric"]) == (4, 6)
        assert scan["rows_output"] == 4 * checks.GROUP
        (scan,) = results[f"{layout}_path_reads"]["scans"]
        assert scan["read_leaves"] < scan["full_leaves"]


@needs_producers
def test_producers_pipeline_on_the_cluster_equals_local_mode(cluster, local):
    got, want = cluster["producers"], local["producers"]
    shipped = got.pop("shipped")
    # every worker imported pyspark_ext from the shipped zip, and not the pipeline's module
    assert got.pop("workers") == [[shipped, False]]
    assert got == want
    assert want["ids_v2_changes"] and want["merged_v2_changes"] and want["joined_v2_content"]
    first, second = want["ids_v1"], want["ids_v2"]  # a stable, distinct id per name
    assert len(set(second.values())) == len(second)
    assert all(second[n] == i for n, i in first.items() if n in second) and second != first
