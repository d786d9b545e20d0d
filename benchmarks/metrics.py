"""What a query read from storage, and which row groups its scans keep. Spark runs in local mode here, so its executors are the driver's
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

    def measure(self, action, label: str) -> tuple[object, float, dict[str, int]]:
        """Run ``action``; return its result, its wall-clock seconds and the bytes it read:
        ``storage`` (read system calls, see above) and ``task_input`` (Spark's task input metrics,
        summed by a listener; Parquet's vectored reads are not all counted there)."""
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
        return result, elapsed, {"storage": self._bytes_read() - before,
                                 "task_input": int(self._listener.bytesRead())}


def scan_totals(scans: list[dict]) -> dict[str, int | None]:
    """Column bytes, leaves and row groups read and skipped over the scans of one plan, from
    ``pyspark_ext.explain_read_schema``; row groups are ``None`` where no scan reports them (they
    are judged on statistics, for Parquet scans of up to 256 files)."""
    counted = [s for s in scans if s.get("row_groups") is not None]
    return {"column_bytes": sum(s["bytes_read"] or 0 for s in scans),
            "read_leaves": sum(s["read_leaves"] for s in scans),
            "row_groups_read": sum(s["row_groups_read"] for s in counted) if counted else None,
            "row_groups_skipped": sum(s["row_groups_skipped"] for s in counted) if counted else None}
