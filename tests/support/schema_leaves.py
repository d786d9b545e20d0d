"""The leaves of a Spark data type, to compare read schemas by the leaves they read."""
from __future__ import annotations

from pyspark.sql.types import ArrayType, DataType, MapType, StructType


def leaf_paths(t: DataType, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Each leaf as its path of field names: arrays add no step, a map's keys add ``<key>`` and
    its values none."""
    if isinstance(t, StructType):
        return {leaf for f in t.fields for leaf in leaf_paths(f.dataType, prefix + (f.name,))}
    if isinstance(t, ArrayType):
        return leaf_paths(t.elementType, prefix)
    if isinstance(t, MapType):
        return leaf_paths(t.keyType, prefix + ("<key>",)) | leaf_paths(t.valueType, prefix)
    return {prefix}
