"""What a query read: bytes read through Hadoop file systems in this JVM (local mode runs the
executors in the driver's JVM), and the jobs it ran, from a JVM listener."""
from __future__ import annotations

import itertools
import time

from pyspark.sql import SparkSession


class InputBytes:
    def __init__(self, spark: SparkSession):
        self._sc = spark.sparkContext
        self._jvm_listener = spark._jvm.pysparkext.report.InputBytesListener
        self._listener = self._jvm_listener.install(self._sc._jsc.sc())
        self._ids = itertools.count()

    def measure(self, action, label: str) -> tuple[object, float, int]:
        """Run ``action``; return its result, its wall-clock seconds and the bytes it read."""
        group = f"{label}#{next(self._ids)}"
        self._listener.reset()
        before = self._jvm_listener.fileSystemBytesRead()
        self._sc.setJobGroup(group, group)
        try:
            start = time.perf_counter()
            result = action()
            elapsed = time.perf_counter() - start
        finally:
            self._sc.setJobGroup("", "")
        # Task-end events arrive asynchronously; the last reads may be counted a moment later.
        jobs = len(self._sc.statusTracker().getJobIdsForGroup(group))
        deadline = time.monotonic() + 10
        while self._listener.jobsEnded() < jobs and time.monotonic() < deadline:
            time.sleep(0.01)
        return result, elapsed, int(self._jvm_listener.fileSystemBytesRead() - before)
