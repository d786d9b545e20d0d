"""Per-scan report of what a query reads, for SQL and DataFrame queries alike."""
from __future__ import annotations

import json
from typing import Any

from pyspark.sql import DataFrame


def explain_read_schema(df: DataFrame) -> list[dict[str, Any]]:
    """For each scan of ``df``'s executed plan, subqueries included, return a dict with:

    ``table`` (table name or path), ``format``, ``full_schema`` and ``read_schema`` (Spark DDL
    strings), ``full_leaves`` and ``read_leaves``, ``bytes_read`` and ``bytes_full`` (estimates
    from Parquet footers of the column chunks read against the full columns; ``None`` for other
    formats), ``pushed_filters`` (the scan's data filters, as SQL), ``parquet_filters`` (those
    Spark hands to Parquet) and ``files``. For Parquet scans of up to 256 files also
    ``row_groups``, ``row_groups_read`` and ``row_groups_skipped``: what the pushed filters keep
    judged on each row group's statistics. Once the DataFrame has run, ``rows_output`` is the
    scan's runtime row count (Parquet returns whole row groups, so it shows skipping too), and
    for scans that push filters ``row_groups_read_metric`` and ``row_groups_skipped_metric``: the
    SQL metrics the scan's tasks counted (also in the Spark UI, on the ``RowGroupMetrics`` node).
    """
    jvm = df.sparkSession._jvm
    report = jvm.pysparkext.report.ReadSchemaReport.json(df._jdf)
    return json.loads(report)


def format_report(scans: list[dict[str, Any]]) -> str:
    lines = []
    for s in scans:
        lines.append(f"scan of {s['table']}")
        lines.append(f"  read schema : {s['read_schema']}")
        lines.append(f"  leaves read : {s['read_leaves']} of {s['full_leaves']}")
        if s.get("bytes_full"):
            share = s["bytes_read"] / s["bytes_full"]
            lines.append(f"  bytes read  : {s['bytes_read']:,} of {s['bytes_full']:,} ({share:.1%})")
        if s.get("pushed_filters"):
            lines.append(f"  filters     : {', '.join(s['pushed_filters'])}")
        if s.get("row_groups") is not None:
            lines.append(f"  row groups  : {s['row_groups_read']} read, {s['row_groups_skipped']} "
                         f"skipped of {s['row_groups']}")
        if s.get("row_groups_read_metric") is not None:
            lines.append(f"  at run time : {s['row_groups_read_metric']} read, "
                         f"{s['row_groups_skipped_metric']} skipped")
    return "\n".join(lines)
