"""Write VARIANT columns in the draft shredded layout, and propose what to shred.

A shredding schema is Spark DDL: a struct shreds an object's fields, an array its elements, a
primitive a scalar, and ``variant`` keeps a subtree whole, e.g.
``"id bigint, user struct<name: string, tier: string>, items array<struct<sku: string>>"``.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from types import ModuleType

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions


def _functions(obj: DataFrame | Column) -> ModuleType:
    """The functions that build Columns for ``obj``'s kind of session. ``pyspark.sql.functions``
    builds Spark Connect columns only once the process has made a Connect session through
    ``SparkSession.builder.remote``; a Connect DataFrame also gets them without that."""
    if type(obj).__module__.startswith("pyspark.sql.connect"):
        from pyspark.sql.connect import functions as connect_functions
        return connect_functions
    return functions


def shred(df: DataFrame, column: str, schema: str) -> DataFrame:
    """Replace VARIANT ``column`` of ``df`` by its draft-layout struct for ``schema``.

    Write the result as Parquet; with the extension on it reads back as the same VARIANT.
    Works on classic and Spark Connect DataFrames.
    """
    return df.withColumn(column, shred_column(_functions(df).col(column), schema))


def shred_column(col: Column, schema: str) -> Column:
    """The SQL function ``shred_variant(col, schema)`` as a Column."""
    F = _functions(col)
    return F.call_function("shred_variant", col, F.lit(schema))


# --- inference -----------------------------------------------------------------------------

_SCALAR = {
    "BIGINT": "bigint", "INT": "bigint", "SMALLINT": "bigint", "TINYINT": "bigint",
    "BOOLEAN": "boolean", "STRING": "string", "DOUBLE": "double", "FLOAT": "float",
    "DATE": "date", "TIMESTAMP": "timestamp", "TIMESTAMP_NTZ": "timestamp_ntz",
    "BINARY": "binary",
}


@dataclass
class _Node:
    """Type counts seen at one path, and the children of its object and array shapes."""
    kinds: Counter = field(default_factory=Counter)
    fields: dict[str, "_Node"] = field(default_factory=lambda: defaultdict(_Node))
    field_counts: Counter = field(default_factory=Counter)
    element: "_Node | None" = None
    decimals: list[tuple[int, int]] = field(default_factory=list)


def _tokens(text: str) -> list[str]:
    return re.findall(r"`(?:[^`]|``)*`|[A-Za-z_][A-Za-z0-9_]*|\d+|[<>(),:]", text)


class _Parser:
    """Parses ``schema_of_variant`` output, e.g. ``OBJECT<a: BIGINT, b: ARRAY<STRING>>``."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def take(self) -> str:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def parse(self, node: _Node) -> None:
        name = self.take().upper()
        if name == "OBJECT":
            node.kinds["object"] += 1
            self.take()  # <
            while self.peek() != ">":
                key = self.take()
                key = key[1:-1].replace("``", "`") if key.startswith("`") else key
                self.take()  # :
                node.field_counts[key] += 1
                self.parse(node.fields[key])
                if self.peek() == ",":
                    self.take()
            self.take()  # >
        elif name == "ARRAY":
            node.kinds["array"] += 1
            self.take()  # <
            node.element = node.element or _Node()
            self.parse(node.element)
            self.take()  # >
        elif name == "DECIMAL":
            self.take()
            p = int(self.take())
            self.take()
            s = int(self.take())
            self.take()
            node.kinds["decimal"] += 1
            node.decimals.append((p, s))
        else:
            node.kinds[_SCALAR.get(name, "variant")] += 1


def _render(node: _Node, depth: int, max_depth: int, max_fields: int) -> str:
    if not node.kinds:
        return "variant"
    kind, _ = node.kinds.most_common(1)[0]
    if kind == "object":
        if depth >= max_depth or not node.field_counts:
            return "variant"
        keys = [k for k, _ in node.field_counts.most_common(max_fields)]
        inner = ", ".join(
            f"`{k.replace('`', '``')}`: {_render(node.fields[k], depth + 1, max_depth, max_fields)}"
            for k in sorted(keys))
        return f"struct<{inner}>"
    if kind == "array":
        if depth >= max_depth or node.element is None:
            return "variant"
        return f"array<{_render(node.element, depth + 1, max_depth, max_fields)}>"
    if kind == "decimal":
        # Integers fit a decimal too, so pick the widest integer digits and scale seen.
        scale = max(s for _, s in node.decimals)
        whole = max(p - s for p, s in node.decimals)
        if node.kinds["bigint"]:
            whole = max(whole, 19)
        precision = min(38, whole + scale)
        return f"decimal({precision},{min(scale, precision)})"
    return kind


def infer_shredding_schema(df: DataFrame, column: str, sample_rows: int = 10_000,
                           max_depth: int = 4, max_fields: int = 64) -> str:
    """Propose a shredding schema for VARIANT ``column`` from up to ``sample_rows`` rows.

    Each path gets its most common type; objects keep their ``max_fields`` most frequent fields,
    and nesting stops at ``max_depth`` (deeper subtrees stay ``variant``). A path whose top-level
    values are not objects yields the most common scalar or array type.
    """
    root = _Node()
    F = _functions(df)
    rows = (df.select(F.schema_of_variant(F.col(column)).alias("s"))
            .where(F.col(column).isNotNull()).limit(sample_rows).collect())
    for row in rows:
        _Parser(row["s"]).parse(root)
    return _render(root, 0, max_depth, max_fields)
