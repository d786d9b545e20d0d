"""What Parquet's skipping did over a fuzz run, from the extension's read reports of its queries.

A fuzz run over files written for skipping (``data.SKIPPING``) proves something about skipping
only where skipping happened: these counts say how often it did. They come from
``explain_read_schema`` of each query's scans with the extension on: row groups skipped by
statistics (``row_groups_skipped``), pages skipped by the page index (``pages_skipped``) and,
where ``spark.pyspark_ext.metrics.rowGroups.enabled`` is on, row groups skipped at run time on
statistics, dictionaries and bloom filters together (``row_groups_skipped_metric``). Only scans
that push a filter on a shredded leaf (a ``typed_value`` column) to Parquet count, and their
skips are put down to those filters only where the scan pushes no other filter that can skip:
``noteq(id, null)`` (Spark's inferred ``IS NOT NULL``) can rule out only all-null row groups.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pyspark_ext.settings import ROW_GROUP_METRICS

_NOT_NULL = re.compile(r"noteq\([\w.`]+, null\)")


def on_shredded_paths(scan: dict[str, Any]) -> bool:
    """Whether ``scan`` pushes a filter on a shredded leaf and no other filter that can skip."""
    filters = scan.get("parquet_filters") or []
    shredded = [f for f in filters if "typed_value" in f]
    return bool(shredded) and all(f in shredded or _NOT_NULL.fullmatch(f) for f in filters)


@dataclass
class Skips:
    """Counts over the scans of a run's queries that push filters on shredded paths only."""
    queries: int = 0  # queries with such a scan
    by_statistics: int = 0  # of those, queries where one skipped row groups by statistics
    by_pages: int = 0  # ... pages inside the row groups read
    at_run_time: int = 0  # ... more row groups at run time than statistics rule out
    row_groups: int = 0
    row_groups_skipped: int = 0
    pages: int = 0
    pages_skipped: int = 0
    beyond_statistics: int = 0  # row groups skipped at run time that statistics do not rule out

    def add(self, scans: Iterable[dict[str, Any]]) -> None:
        """Count one query's scans (its extension-on read report)."""
        mine = [s for s in scans if on_shredded_paths(s)]
        if not mine:
            return
        self.queries += 1
        self.row_groups += sum(s.get("row_groups") or 0 for s in mine)
        self.row_groups_skipped += sum(s.get("row_groups_skipped") or 0 for s in mine)
        self.pages += sum(s.get("pages") or 0 for s in mine)
        self.pages_skipped += sum(s.get("pages_skipped") or 0 for s in mine)
        beyond = sum(max(0, (s.get("row_groups_skipped_metric") or 0) - (s.get("row_groups_skipped") or 0))
                     for s in mine)
        self.beyond_statistics += beyond
        self.by_statistics += any(s.get("row_groups_skipped") for s in mine)
        self.by_pages += any(s.get("pages_skipped") for s in mine)
        self.at_run_time += beyond > 0

    @property
    def skipped(self) -> bool:
        return bool(self.row_groups_skipped or self.pages_skipped or self.beyond_statistics)

    def line(self) -> str:
        return (f"skipping: {self.queries} queries filter shredded paths only; {self.by_statistics} skipped row groups "
                f"by statistics ({self.row_groups_skipped} of {self.row_groups}), {self.by_pages} pages "
                f"({self.pages_skipped} of {self.pages} in the row groups read), {self.at_run_time} more row groups "
                f"at run time by dictionaries or bloom filters ({self.beyond_statistics}; counted with "
                f"{ROW_GROUP_METRICS}=true)")
