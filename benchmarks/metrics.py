"""Bytes read by a query's tasks, from Spark's task input metrics via a JVM listener."""
from __future__ import annotations

import time

from pyspark.sql import SparkSession


class InputBytes:
    def __init__(self, spark: SparkSession):
        self._sc = spark.sparkContext
        self._listener = spark._jvm.pysparkext.report.InputBytesListener.install(self._sc._jsc.sc())

    def measure(self, action, group: str) -> tuple[object, int]:
        """Run ``action`` under a job group; return its result and the input bytes of its tasks."""
        self._listener.reset()
        self._sc.setJobGroup(group, group)
        try:
            result = action()
        finally:
            self._sc.setJobGroup("", "")
        jobs = len(self._sc.statusTracker().getJobIdsForGroup(group))
        deadline = time.monotonic() + 30
        while self._listener.jobsEnded() < jobs and time.monotonic() < deadline:
            time.sleep(0.01)
        return result, int(self._listener.bytesRead())
