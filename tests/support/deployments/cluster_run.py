"""Run ``tests.support.deployments.checks`` on a Spark cluster and write the results as JSON.

    python -m tests.support.deployments.cluster_run --master 'local-cluster[2,1,1024]' --base DIR --out FILE

One SparkContext per Python process, so the cluster session runs here, apart from the test
session. ``local-cluster[N,C,M]`` is Spark's own test cluster: a standalone master and N workers
of C cores and M MB, each executor in its own JVM, launched from ``$SPARK_HOME`` (the pyspark
package directory when Spark was installed with pip). The extension reaches the executors the
way it does on a real cluster: ``spark.jars``, served by the driver.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import pyspark
from pyspark.sql import SparkSession

from pyspark_ext import jar
from pyspark_ext.session import local_session
from tests.support.deployments.checks import run_checks

# What each executor is: its JVM's main class and arguments (the driver's is SparkSubmit).
_JVMS = ("SELECT DISTINCT java_method('java.lang.System', 'getProperty', 'sun.java.command') AS c "
         "FROM range(0, 8, 1, 8)")


def cluster_session(master: str, executors: int) -> SparkSession:
    os.environ.setdefault("SPARK_HOME", os.path.dirname(pyspark.__file__))
    # The test session's settings (tests.support.differential.strict_session), with executors that fit
    # local-cluster's 1024 MB workers.
    spark = local_session("pyspark-ext-cluster-checks", master=master, strict=True, confs={
        "spark.sql.planChangeValidation": "true", "spark.driver.memory": "1g", "spark.executor.memory": "512m"})
    # getOrCreate returns before the executors register; the checks need them all.
    status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus()
    deadline = time.monotonic() + 120
    while status.size() < executors + 1:  # the driver counts as one
        if time.monotonic() > deadline:
            raise RuntimeError(f"only {status.size() - 1} of {executors} executors registered")
        time.sleep(0.5)
        status = spark.sparkContext._jsc.sc().getExecutorMemoryStatus()
    return spark


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--master", default="local-cluster[2,1,1024]")
    parser.add_argument("--executors", type=int, default=2)
    parser.add_argument("--base", required=True, help="a directory for the data")
    parser.add_argument("--out", required=True, help="the JSON file to write")
    args = parser.parse_args(argv)
    spark = cluster_session(args.master, args.executors)
    try:
        jvms = sorted(r.c for r in spark.sql(_JVMS).collect())
        output = {"master": spark.sparkContext.master, "task_jvms": jvms,
                  "jars": spark.sparkContext.getConf().get("spark.jars"),
                  "results": run_checks(spark, args.base, stock=False, variant=jar.carries_variant())}
        if jar.runs_producers():
            from tests.support.deployments import producers_check
            output["producers"] = producers_check.run(spark, f"{args.base}/producers", ship=True)
    finally:
        spark.stop()
    with open(args.out + ".partial", "w") as f:
        json.dump(output, f, indent=1, sort_keys=True)
    os.replace(args.out + ".partial", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
