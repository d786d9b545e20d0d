"""What a query read from storage. Spark runs in local mode here, so its executors are the driver's
JVM; the bytes that JVM read through read system calls (``rchar`` in Linux's /proc/PID/io) are what
the scans read, page cache or not. Parquet's vectored reads bypass Hadoop's file-system statistics
and Spark's task input metrics report whole splits, so neither tells pruned reads apart. Elsewhere
than Linux the Hadoop statistics are the fallback."""
from __future__ import annotations

import itertools
import time
from pathlib import Path

from pyspark.sql import SparkSession


class InputBytes:
    def __init__(self, spark: SparkSession):
        self._sc = spark.sparkContext
        self._jvm_listener = spark._jvm.pysparkext.report.InputBytesListener
        self._listener = self._jvm_listener.install(self._sc._jsc.sc())
        self._ids = itertools.count()
        pid = spark._jvm.java.lang.ProcessHandle.current().pid()
        self._proc_io = Path(f"/proc/{pid}/io")

    def _bytes_read(self) -> int:
        if self._proc_io.exists():
            for line in self._proc_io.read_text().splitlines():
                if line.startswith("rchar:"):
                    return int(line.split()[1])
        return int(self._jvm_listener.fileSystemBytesRead())

    def measure(self, action, label: str) -> tuple[object, float, int]:
        """Run ``action``; return its result, its wall-clock seconds and the bytes it read."""
        group = f"{label}#{next(self._ids)}"
        self._listener.reset()
        before = self._bytes_read()
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
        return result, elapsed, self._bytes_read() - before
