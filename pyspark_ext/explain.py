"""Per-scan report of what a query reads, for SQL and DataFrame queries alike."""
from __future__ import annotations

import json
from typing import Any

from pyspark.sql import DataFrame

from .java_classes import java_class
from .loaded import require_extension


def explain_read_schema(df: DataFrame, run: bool = False) -> list[dict[str, Any]]:
    """For each scan of ``df``'s executed plan, subqueries included, return a dict with:

    ``table`` (table name or path), ``format``, ``full_schema`` and ``read_schema`` (Spark DDL
    strings), ``full_leaves`` and ``read_leaves``, ``bytes_read`` and ``bytes_full`` (estimates
    from Parquet footers of the column chunks read against the full columns; ``None`` for other
    formats), ``pushed_filters`` (the scan's data filters, as SQL), ``parquet_filters`` (those
    Spark hands to Parquet) and ``files``. For Parquet scans of up to 256 files also
    ``row_groups``, ``row_groups_read`` and ``row_groups_skipped``: what the pushed filters keep
    judged on each row group's statistics; where the pushed filters reach Parquet and the files
    have offset indexes, ``pages``, ``pages_read`` and ``pages_skipped``: the pages of the
    columns read in the row groups Parquet's reader (and the extension's skipping) reads, and
    those of them its page index filtering skips. Once the DataFrame has run, ``rows_output`` is the
    scan's runtime row count (Parquet returns whole row groups, so it shows skipping too), and
    for scans that push filters ``row_groups_read_metric`` and ``row_groups_skipped_metric``: the
    SQL metrics the scan's tasks counted (also in the Spark UI, on the ``RowGroupMetrics`` node).
    Scans that DataFusion Comet runs natively are reported too, with ``bytes_scanned_metric``:
    the bytes Comet's scan read from storage, once the DataFrame has run.
    An Iceberg scan of a table with VARIANT columns that Iceberg's own reader reads (not the
    extension, which reads shredded variants by their leaves) has ``left_to_format_reader``: why,
    naming the table (``None`` on other scans).

    ``run=True`` runs the query once first (rows discarded on the executors), so those run-time
    counts are there without a ``collect``. Spark Connect DataFrames work too (the server needs
    ``python -m pyspark_ext conf --connect-server``); a Connect DataFrame is planned afresh on every
    action, so over Connect the run-time counts come only with ``run=True``.
    """
    if _is_connect(df):
        from . import connect
        return connect.explain_read_schema(df, run)
    require_extension(df.sparkSession, "explain_read_schema")
    jvm = df.sparkSession._jvm
    if run:
        java_class(jvm, "org.apache.spark.sql.pysparkext.QueryRuns").runDiscardingRows(
            df._jdf, "explain_read_schema")
    report = java_class(jvm, "pysparkext.report.ReadSchemaReport").json(df._jdf)
    return json.loads(report)


def _is_connect(df: DataFrame) -> bool:
    # Imported only when the object is not a classic DataFrame: the Connect client is optional.
    if type(df).__module__.startswith("pyspark.sql.classic"):
        return False
    try:
        from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
    except ImportError:
        return False
    return isinstance(df, ConnectDataFrame)


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
        if s.get("pages") is not None:
            lines.append(f"  pages       : {s['pages_read']} read, {s['pages_skipped']} skipped of "
                         f"{s['pages']} in the row groups read")
        if s.get("row_groups_read_metric") is not None:
            lines.append(f"  at run time : {s['row_groups_read_metric']} read, "
                         f"{s['row_groups_skipped_metric']} skipped")
        if s.get("left_to_format_reader"):
            lines.append(f"  reader      : {s['left_to_format_reader']}")
    return "\n".join(lines)
