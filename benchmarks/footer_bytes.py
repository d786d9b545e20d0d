"""Bytes read by the quick suite's same-leaves nested queries: stock, the extension, and the
extension with its leaf-columns reader off, measured as the benchmark measures them.

``python -m benchmarks.footer_bytes [QUERY ...]`` prints, per query and mode, the JVM's read bytes
(``rchar``, the benchmark's ``input_bytes``), Spark's task input bytes and Hadoop's file-system
bytes read, each from the second of two runs (the first warms the footer caches). The leaf-columns
reader is the extension's own Parquet reader; with it off the extension reads through Spark's.
"""
from __future__ import annotations

import os
import sys

from . import datasets
from .metrics import InputBytes
from .nested_queries import NESTED_QUERIES
from .suites import session
from pyspark_ext import settings

SAME_LEAVES = ["project_few_leaves", "filter_nested_selective", "payload_two_leaves", "group_by_nested",
               "self_join_nested_key"]
MODES = {
    "stock": {settings.ENABLED: "false"},
    "extension": {settings.ENABLED: "true",
                  settings.LEAF_COLUMNS_READER: "true"},
    "extension, leaf reader off": {settings.ENABLED: "true",
                                   settings.LEAF_COLUMNS_READER: "false"},
}


def main(queries: list[str]) -> None:
    os.environ.setdefault("BENCH_DRIVER_MEMORY", "2g")
    spark = session()
    metrics = InputBytes(spark)
    fs = spark._jvm.org.apache.hadoop.fs.FileSystem

    def hadoop_bytes() -> int:
        return sum(int(s.getBytesRead()) for s in fs.getAllStatistics())

    spark.read.parquet(datasets.nested_events(spark, 100_000, payload_width=1000)) \
        .createOrReplaceTempView("events")
    print(f"Spark {spark.version}")
    for name in queries:
        seen = {}
        for _ in range(2):
            for mode, mode_confs in MODES.items():
                for key, value in mode_confs.items():
                    spark.conf.set(key, value)
                df = spark.sql(NESTED_QUERIES[name])
                before = hadoop_bytes()
                rows, _, nbytes = metrics.measure(df.collect, f"footer-bytes-{name}")
                seen[mode] = (nbytes["storage"], nbytes["task_input"], hadoop_bytes() - before, len(rows))
        stock = seen["stock"][0]
        for mode, (storage, task, hadoop, rows) in seen.items():
            print(f"{name:24} {mode:27} rchar {storage:>10,} ({storage / stock:.3f} of stock)  "
                  f"task input {task:>10,}  hadoop {hadoop:>10,}  rows {rows}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:] or SAME_LEAVES)
