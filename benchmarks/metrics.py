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
        self._jvm = spark._jvm
        self._ids = itertools.count()
        pid = spark._jvm.java.lang.ProcessHandle.current().pid()
        self._proc_io = Path(f"/proc/{pid}/io")

    def _bytes_read(self) -> int:
        if self._proc_io.exists():
            for line in self._proc_io.read_text().splitlines():
                if line.startswith("rchar:"):
                    return int(line.split()[1])
        # In local mode the executors run in the driver's JVM, so Hadoop's statistics count what
        # the scans read from storage.
        return sum(int(s.getBytesRead()) for s in self._jvm.org.apache.hadoop.fs.FileSystem.getAllStatistics())

    def _task_input_bytes(self, tag: str) -> int:
        """Spark's task input metrics of every stage the tagged jobs ran, as Spark's status store
        (the one behind its UI and its status tracker) sums them per stage. Job tags, unlike a job
        group, reach the jobs that SQL runs on other threads (broadcasts, subqueries), so every task
        of the query counts. A stage that an earlier job of the same query already ran is counted
        once; its tasks ran once."""
        jsc = self._sc._jsc.sc()
        tracker = self._sc.statusTracker()
        jobs = list(jsc.statusTracker().getJobIdsForTag(tag))
        # The store learns of ended tasks asynchronously, in order: once it has seen the jobs end,
        # it has seen every task of theirs.
        def ended(job: int) -> bool:
            info = tracker.getJobInfo(job)
            return info is not None and info.status in ("SUCCEEDED", "FAILED")
        deadline = time.monotonic() + 10
        while not all(ended(j) for j in jobs) and time.monotonic() < deadline:
            time.sleep(0.01)
        infos = [tracker.getJobInfo(j) for j in jobs]
        stages = sorted({s for info in infos if info is not None for s in info.stageIds})
        store = jsc.statusStore()
        no_statuses = self._jvm.java.util.ArrayList()
        no_quantiles = self._sc._gateway.new_array(self._jvm.double, 0)
        total = 0
        for stage in stages:
            try:
                attempts = store.stageData(stage, False, no_statuses, False, no_quantiles)
            except Exception:  # never submitted, or no longer retained
                continue
            total += sum(int(attempts.apply(i).inputBytes()) for i in range(attempts.size()))
        return total

    def measure(self, action, label: str) -> tuple[object, float, dict[str, int]]:
        """Run ``action``; return its result, its wall-clock seconds and the bytes it read:
        ``storage`` (read system calls, see above) and ``task_input`` (Spark's task input metrics
        of the action's jobs; Parquet's vectored reads are not all counted there)."""
        tag = f"{label}#{next(self._ids)}"
        before = self._bytes_read()
        self._sc.addJobTag(tag)
        try:
            start = time.perf_counter()
            result = action()
            elapsed = time.perf_counter() - start
        finally:
            self._sc.removeJobTag(tag)
        task_input = self._task_input_bytes(tag)
        return result, elapsed, {"storage": self._bytes_read() - before, "task_input": task_input}


def scan_totals(scans: list[dict]) -> dict[str, int | None]:
    """Column bytes, leaves and row groups read and skipped over the scans of one plan, from
    ``pyspark_ext.explain_read_schema``; row groups are ``None`` where no scan reports them (they
    are judged on statistics, for Parquet scans of up to 256 files)."""
    counted = [s for s in scans if s.get("row_groups") is not None]
    return {"column_bytes": sum(s["bytes_read"] or 0 for s in scans),
            "read_leaves": sum(s["read_leaves"] for s in scans),
            "row_groups_read": sum(s["row_groups_read"] for s in counted) if counted else None,
            "row_groups_skipped": sum(s["row_groups_skipped"] for s in counted) if counted else None}
