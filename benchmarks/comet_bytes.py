"""The bytes DataFusion Comet's native scan reads, with the extension's pruned read schemas and
without (apache/datafusion-comet#4859: Comet's scan read whole nested columns).

``comet_bytes(spark, queries)`` runs each query with the extension off, then on, in a session where
Comet is on, and returns per query and setting:

- ``comet_scan``: the ``bytes_scanned`` metric of each of Comet's native scans, summed: the bytes
  its Parquet reader fetched from the files (``pyspark_ext.explain_read_schema`` reports it per
  scan as ``bytes_scanned_metric``);
- ``task_input``: Spark's task input bytes of the query's stages (Comet reports its scans' bytes
  there; Spark's own scans, where Comet leaves one to Spark, report whole splits);
- ``storage``: what the JVM read through read system calls (``benchmarks.metrics.InputBytes``);
- ``read_leaves``, ``comet_scans`` and ``scans``: the leaves the scans read, and how many of the
  scans Comet ran.

Run on the nested event log from the command line (the Spark 4.1 venv, where Comet 1.2 is
published; its jars come from deps/comet/spark-4.1/pom.xml through Maven)::

    python -m benchmarks.comet_bytes [--rows 100000] [--payload-width 1000] [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile

from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext.settings import ENABLED
from pyspark_ext.session import local_session
from devtools.table_formats import PRODUCTS, product_confs

from .metrics import InputBytes
from .nested_queries import NESTED_QUERIES


def session() -> SparkSession:
    """A local session with Comet and the extension (not strict: a benchmark, not a test)."""
    comet = product_confs(PRODUCTS["comet"], **{"spark.memory.offHeap.size": os.environ.get("BENCH_OFFHEAP", "2g")})
    return local_session("pyspark-ext comet bytes", shuffle_partitions=8,
                         confs={"spark.driver.memory": os.environ.get("BENCH_DRIVER_MEMORY", "4g"), **comet})


def measure(spark: SparkSession, sql: str, metrics: InputBytes, label: str) -> dict:
    df = spark.sql(sql)
    _, _, read = metrics.measure(df.collect, label)
    scans = pyspark_ext.explain_read_schema(df)
    comet = [s for s in scans if "bytes_scanned_metric" in s]
    return {"comet_scan": sum(s["bytes_scanned_metric"] for s in comet),
            "task_input": read["task_input"], "storage": read["storage"],
            "read_leaves": sum(s["read_leaves"] for s in scans),
            "comet_scans": len(comet), "scans": len(scans)}


def comet_bytes(spark: SparkSession, queries: dict[str, str]) -> dict[str, dict[str, dict]]:
    """``{query: {"stock": figures, "extension": figures}}`` (see the module's docstring)."""
    metrics = InputBytes(spark)
    before = spark.conf.get(ENABLED, None)
    out = {}
    try:
        for name, sql in queries.items():
            out[name] = {}
            for setting, enabled in (("stock", "false"), ("extension", "true")):
                spark.conf.set(ENABLED, enabled)
                out[name][setting] = measure(spark, sql, metrics, f"comet-{name}-{setting}")
    finally:
        if before is None:
            spark.conf.unset(ENABLED)
        else:
            spark.conf.set(ENABLED, before)
    return out


def table(results: dict[str, dict[str, dict]]) -> str:
    lines = ["| query | Comet scan bytes, stock | with the extension | ratio | scans in Comet (stock / ext) |",
             "|---|---:|---:|---:|---|"]
    for name, r in results.items():
        s, e = r["stock"], r["extension"]
        ratio = f"{s['comet_scan'] / e['comet_scan']:.1f}x" if e["comet_scan"] else "-"
        lines.append(f"| {name} | {s['comet_scan']:,} | {e['comet_scan']:,} | {ratio} | "
                     f"{s['comet_scans']}/{s['scans']} / {e['comet_scans']}/{e['scans']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    from pyspark_ext.data import adtech
    parser = argparse.ArgumentParser(prog="python -m benchmarks.comet_bytes")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--payload-width", type=int, default=1000)
    parser.add_argument("--out", help="also write the figures as JSON to this file")
    args = parser.parse_args(argv)
    spark = session()
    path = os.path.join(tempfile.mkdtemp(prefix="comet_bytes_"), "events")
    adtech.write_events(spark, path, rows=args.rows, payload_width=args.payload_width)
    spark.read.parquet(path).createOrReplaceTempView("events")
    results = comet_bytes(spark, NESTED_QUERIES)
    print(table(results))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rows": args.rows, "payload_width": args.payload_width, "queries": results}, f, indent=1)


if __name__ == "__main__":
    main()
