"""Write VARIANT columns shredded, in the draft layout or the Parquet spec layout, and propose
what to shred.

A shredding schema is Spark DDL: a struct shreds an object's fields, an array its elements, a
primitive a scalar, and ``variant`` keeps a subtree whole, e.g.
``"id bigint, user struct<name: string, tier: string>, items array<struct<sku: string>>"``
(``struct<...>``, as Spark's own shredding confs spell it, works too).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from types import ModuleType

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions
from pyspark.sql.types import ArrayType, MapType, StructType

from ._variant_types import VARIANT_TYPES
from .loaded import require_extension


def _functions(obj: DataFrame | Column) -> ModuleType:
    """The functions that build Columns for ``obj``'s kind of session. ``pyspark.sql.functions``
    builds Spark Connect columns only once the process has made a Connect session through
    ``SparkSession.builder.remote``; a Connect DataFrame also gets them without that."""
    if type(obj).__module__.startswith("pyspark.sql.connect"):
        from pyspark.sql.connect import functions as connect_functions
        return connect_functions
    return functions


LAYOUTS = ("draft", "spec")


def shred(df: DataFrame, column: str, schema: str, layout: str = "draft") -> DataFrame:
    """Shred VARIANT ``column`` of ``df`` by ``schema``, in ``layout``:

    - ``"draft"``: the column becomes its draft-layout struct (the shredding proposal's draft); write the
      result as Parquet, and with the extension on it reads back as the same VARIANT.
    - ``"spec"``: the column stays the same VARIANT, marked with the schema; a Parquet write of
      the result (``.write.parquet(path)``, ``.save``) writes the Parquet spec layout
      (``metadata`` / ``value`` / ``typed_value``) with exactly that schema in every file, which
      stock Spark, DuckDB, Iceberg and Delta readers read. Several columns may each get their own
      schema (call ``shred`` per column); a column inside a struct is marked with
      :func:`shred_column` inside ``struct(...)``.

    A bad schema, or a column that is not VARIANT, fails here, naming the column.
    Works on classic and Spark Connect DataFrames.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"shred: layout must be one of {LAYOUTS}, not {layout!r}")
    require_extension(df.sparkSession, "shred")
    return df.withColumn(column, shred_column(_functions(df).col(column), schema, layout))


def shred_column(col: Column, schema: str, layout: str = "draft") -> Column:
    """The SQL function ``shred_variant(col, schema, layout)`` as a Column. For the spec layout,
    alias it (``.alias("v")``) where it is not a ``withColumn`` value: the mark sits on the
    named column."""
    if layout not in LAYOUTS:
        raise ValueError(f"shred_column: layout must be one of {LAYOUTS}, not {layout!r}")
    F = _functions(col)
    if layout == "draft":
        return F.call_function("shred_variant", col, F.lit(schema))
    return F.call_function("shred_variant", col, F.lit(schema), F.lit(layout))


def write_shredded(df: DataFrame, path: str, shredding: dict[str, str], layout: str = "spec",
                   mode: str = "errorifexists", *, bloom_filters: dict[str, list[str]] | None = None,
                   bloom_ndv: int | None = None, sort_by: list[str] | None = None,
                   cluster_by: list[str] | None = None, page_rows: int | None = None,
                   **options: str) -> None:
    """Write ``df`` as Parquet to ``path`` with each VARIANT column of ``shredding`` (column ->
    schema) shredded in ``layout``; the one-call form of ``shred(...)`` then ``.write.parquet``.

    - ``bloom_filters``: column -> shredded paths (``{"v": ["did", "user.id"]}``) whose typed
      leaf gets a Parquet bloom filter in every row group, through Parquet's own writer options
      (``parquet.bloom.filter.enabled#<leaf>``). An equality or ``IN`` filter on such a path
      skips row groups that do not hold the value, however the rows are ordered
      (docs/variant-reads.md, "Skipping"). A path must be a primitive of the schema.
    - ``bloom_ndv``: the distinct values a row group is expected to hold per bloom-filtered leaf
      (``parquet.bloom.filter.expected.ndv#<leaf>``), which sizes each filter; without it,
      Parquet's default size.
    - ``sort_by``: SQL expressions (``"v:ts::timestamp"``, ``"rid"``) each file's rows are sorted
      by before they are shredded, so row-group and page statistics of that path are narrow.
    - ``cluster_by``: numeric, date or timestamp SQL expressions (``["v:a::bigint",
      "v:ts::timestamp"]``) each file's rows are sorted by the z-order value of, so that row-group
      and page statistics are narrow for each of them and a range filter on any one skips
      (:func:`pyspark_ext.zorder.zorder_column`: one aggregate job over ``df`` for their min and
      max, then the sort). A value that is null or does not cast sorts first. Not with
      ``sort_by``: a sort by one path, or a clustering by several, orders the rows.
    - ``page_rows``: at most this many rows per page (``parquet.page.row.count.limit``). Smaller
      pages let the page index skip finer inside a row group, for a larger page index and more
      page headers.

    Parquet writes page indexes (column and offset indexes) for every column by default, which
    the readers use to skip pages inside a row group; the options above leave them on.
    """
    if sort_by and cluster_by:
        raise ValueError(f"write_shredded: give sort_by ({sort_by!r}) or cluster_by ({cluster_by!r}), "
                         f"not both: each decides the order of each file's rows")
    extra = dict(options)
    if page_rows is not None:
        if isinstance(page_rows, bool) or not isinstance(page_rows, int) or page_rows <= 0:
            raise ValueError(f"write_shredded: page_rows must be a positive number of rows, not {page_rows!r}")
        extra["parquet.page.row.count.limit"] = str(page_rows)
    for column, paths in (bloom_filters or {}).items():
        if column not in shredding:
            raise ValueError(f"write_shredded: bloom_filters names column {column!r}, which is "
                             f"not one of the shredded columns {sorted(shredding)}")
        for dotted in paths:
            leaf = shredded_leaf(column, _schema_type(df, shredding[column]), dotted, layout)
            extra[f"parquet.bloom.filter.enabled#{leaf}"] = "true"
            if bloom_ndv is not None:
                extra[f"parquet.bloom.filter.expected.ndv#{leaf}"] = str(bloom_ndv)
    if sort_by:
        F = _functions(df)
        df = df.sortWithinPartitions(*[F.expr(e) for e in sort_by])
    elif cluster_by:
        from .zorder import zorder_column  # it builds on this module's _functions
        df = df.sortWithinPartitions(zorder_column(df, cluster_by, "write_shredded"))
    for column, schema in shredding.items():
        df = shred(df, column, schema, layout)
    # Spark Connect's Python writer knows the error mode only as "error", classic Spark as both
    df.write.mode("error" if mode.lower() in ("errorifexists", "default") else mode) \
        .options(**extra).parquet(path)


def _schema_type(df: DataFrame, schema: str) -> StructType:
    """A shredding schema parsed by Spark itself (classic or Connect)."""
    text = schema.strip()
    return df.sparkSession.createDataFrame([], text if text.lower().startswith("struct<")
                                           else f"struct<{text}>").schema


def shredded_leaf(column: str, schema: StructType, path: str, layout: str = "spec") -> str:
    """The Parquet column path of the typed leaf that holds ``path`` (``"user.id"``) of VARIANT
    ``column`` shredded by ``schema`` (the shredding schema as a ``StructType``) in ``layout``:
    ``v.typed_value.user.typed_value.id.typed_value`` (spec) or ``v.object.user.object.id.typed_value``
    (draft). Fails, naming the path, where ``schema`` does not shred it as a primitive."""
    if layout not in LAYOUTS:
        raise ValueError(f"shredded_leaf: layout must be one of {LAYOUTS}, not {layout!r}")
    parts, node = [column], schema
    names = path.split(".")
    for i, name in enumerate(names):
        if not isinstance(node, StructType):
            raise ValueError(f"shredded_leaf: {'.'.join(names[:i])!r} of column {column!r} is "
                             f"not an object in its shredding schema {schema.simpleString()}")
        match = next((f for f in node.fields if f.name.lower() == name.lower()), None)
        if match is None:
            raise ValueError(f"shredded_leaf: path {path!r} of column {column!r} is not in its "
                             f"shredding schema {schema.simpleString()}")
        parts += ["typed_value", match.name] if layout == "spec" else ["object", match.name]
        node = match.dataType
    if isinstance(node, (StructType, ArrayType, MapType, *VARIANT_TYPES)):
        raise ValueError(f"shredded_leaf: path {path!r} of column {column!r} is not a primitive "
                         f"in its shredding schema {schema.simpleString()}")
    return ".".join(parts + ["typed_value"])


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
