"""Spark Connect: ``explain_read_schema`` through the server's relation plugin.

A Connect DataFrame is a protobuf plan with no JVM object behind it. The client wraps the plan in
a relation of the extension's own type; the server's ``pysparkext.connect.ExplainReadSchemaPlugin``
(registered with ``spark.connect.extensions.relation.classes``; see
``pyspark_ext.connect_server_confs``)
plans it in the client's session and answers with the report as JSON.
"""
from __future__ import annotations

import json
from typing import Any

from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
from pyspark.sql.connect.plan import LogicalPlan

TYPE_URL = "type.googleapis.com/pysparkext.ExplainReadSchema"


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def request_bytes(query: bytes, run: bool) -> bytes:
    """``ExplainReadSchema { Relation query = 1; bool run = 2; }`` in protobuf's wire format
    (the message is the plugin's, so the client has no generated class for it)."""
    message = _varint(1 << 3 | 2) + _varint(len(query)) + query
    return message + (_varint(2 << 3 | 0) + b"\x01" if run else b"")


class _ExplainReadSchema(LogicalPlan):
    def __init__(self, child: LogicalPlan, run: bool) -> None:
        super().__init__(child)
        self._run = run

    def plan(self, session: Any) -> Any:
        relation = self._create_proto_relation()
        query = self._child.plan(session).SerializeToString()
        relation.extension.type_url = TYPE_URL
        relation.extension.value = request_bytes(query, self._run)
        return relation


def explain_read_schema(df: ConnectDataFrame, run: bool = False) -> list[dict[str, Any]]:
    from .jar import carries_connect_plugin
    if not carries_connect_plugin():  # a 3.5 client talks to a 3.5 server
        raise RuntimeError(
            "explain_read_schema over Spark Connect needs the extension's relation plugin on the "
            "server, which the jar for Spark 3.5 does not carry (pyspark 3.5 ships no spark-connect "
            "jar to build it against); DataFrame.explain() shows the plan the server ran, with "
            "each scan's ReadSchema")
    try:
        report = ConnectDataFrame(_ExplainReadSchema(df._plan, run), df.sparkSession).collect()
    except Exception as e:
        if "No handler found for extension type" not in str(e):
            raise
        raise RuntimeError(
            "explain_read_schema over Spark Connect needs the extension's relation plugin on the "
            "server: start the server with the settings `python -m pyspark_ext conf "
            "--connect-server` prints (spark.connect.extensions.relation.classes="
            "pysparkext.connect.ExplainReadSchemaPlugin)") from e
    return json.loads(report[0]["scans"])
