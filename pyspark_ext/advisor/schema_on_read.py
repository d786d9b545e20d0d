"""The minimal read schema per table for one query, for ``spark.read.schema(...)`` without the jar
(ScORe's original use). A superset of the extension's own read schema, never a subset."""
from __future__ import annotations

from pyspark.sql.types import ArrayType, DataType, MapType, StructField, StructType

from .paths import Path, query_needs
from .workload import Tables, read_tables


def prune(schema: StructType, paths: set[Path], strict: bool = False) -> StructType:
    """``schema`` cut to ``paths`` (fields in their original order); a path ending on a struct,
    array or map keeps all of it; arrays are walked to their elements, maps to their values (a
    map's key is always kept). ``strict``: a name the schema does not have raises ``KeyError``
    (written expectations must name real fields); otherwise it is left out."""
    tree: dict = {}
    for path in sorted(paths, key=len):
        node = tree
        for name in path[:-1]:
            child = node.setdefault(name, {})
            if child is None:
                break
            node = child
        else:
            node[path[-1]] = None
    return _walk(schema, tree, strict)  # type: ignore[return-value]


def _walk(t: DataType, tree: dict | None, strict: bool) -> DataType:
    if tree is None:
        return t
    if isinstance(t, ArrayType):
        return ArrayType(_walk(t.elementType, tree, strict), t.containsNull)
    if isinstance(t, MapType):
        return MapType(t.keyType, _walk(t.valueType, tree, strict), t.valueContainsNull)
    if isinstance(t, StructType):
        unknown = set(tree) - set(t.names)
        if strict and unknown:
            raise KeyError(f"no field {sorted(unknown)} in {t.simpleString()}")
        return StructType([StructField(f.name, _walk(f.dataType, tree[f.name], strict), f.nullable, f.metadata)
                           for f in t.fields if f.name in tree])
    if strict:
        raise KeyError(f"cannot select {sorted(tree)} inside {t.simpleString()}")
    return t


def schema_on_read(sql: str, tables: Tables) -> dict[str, StructType]:
    """The minimal StructType per table ``sql`` reads; raises UnresolvedQuery with the reason."""
    schemas = read_tables(tables)
    needs = query_needs(sql, schemas)
    return {name: prune(schemas[name], paths) for name, paths in needs.leaves.items()}
