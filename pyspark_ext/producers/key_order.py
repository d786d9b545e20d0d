"""A stage's key order: the order of its content and update files (Parquet.Producers' key
comparer), given as Spark sort orders on the key or on fields of a struct key.

``key_order=F.col("key").desc()`` stores a stage's keys in descending order;
``key_order=["key.day", F.col("key.n").desc()]`` orders a ``struct<day, n>`` key by day, then by
n descending (fields not named follow, ascending). Nulls go where Spark puts them (first when
ascending, last when descending) unless ``asc_nulls_last``/``desc_nulls_first`` says otherwise.
An order by a derived value (say, case-insensitive) is a compound key: emit
``Row(lower=k.lower(), k=k)``, the way the original design asks for custom partitioning.

Spark sorts by ``columns(...)``, the Python merges compare ``sort_key(...)``: both follow the same
list, so the files Spark sorts and the merges' binary searches agree.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import total_ordering
from typing import Any

from pyspark.sql.types import DataType, StructType

from . import rows
from .errors import ProducerError


@dataclass(frozen=True)
class By:
    """Sort by the key (``field`` None) or one field of a struct key."""
    field: str | None
    descending: bool = False
    nulls_first: bool = True

    def json(self) -> list[Any]:
        return [self.field, self.descending, self.nulls_first]


Order = list[By]
_SORT = re.compile(r"^\s*key(?:\.(\w+))?(?:\s+(asc|desc)(?:\s+nulls\s+(first|last))?)?\s*$",
                   re.IGNORECASE)


def parse(spec: Any, what: str) -> Order | None:
    """``key_order`` as given (a Column, a string like ``"key.n desc"``, or a list of them) as a
    list of ``By``; None for Spark's own ascending order."""
    if spec is None:
        return None
    items = list(spec) if isinstance(spec, (list, tuple)) else [spec]
    out = []
    for item in items:
        text = str(item)
        column = re.fullmatch(r"Column<'(.*)'>", text, re.DOTALL)
        text = column.group(1) if column else text
        m = _SORT.match(text)
        if m is None:
            raise ProducerError(f"{what}: {text!r} is not an order on the key: use "
                                "F.col('key').desc(), 'key.field desc', or a list of these "
                                "(one per field of a struct key); for a derived order, emit a "
                                "compound key")
        desc = (m.group(2) or "asc").lower() == "desc"
        nulls = m.group(3)
        out.append(By(m.group(1), desc, (not desc) if nulls is None else nulls.lower() == "first"))
    return out


def resolve(order: Order | None, kt: DataType, what: str) -> Order | None:
    """Check ``order`` against the key type; None if it is Spark's ascending order."""
    if order is None:
        return None
    fields = kt.names if isinstance(kt, StructType) else []
    seen = set()
    for by in order:
        if by.field is not None and by.field not in fields:
            raise ProducerError(f"{what}: the key ({kt.simpleString()}) has no field "
                                f"{by.field!r} to order by")
        if by.field in seen or (by.field is None and len(order) > 1):
            raise ProducerError(f"{what}: the key order names {by.field or 'key'} twice, or the "
                                "whole key beside its fields")
        seen.add(by.field)
    if order[0].field is not None:  # the fields not named break ties, ascending
        order = order + [By(f) for f in fields if f not in seen]
    natural = [By(None)] if order[0].field is None else [By(f) for f in fields]
    return None if order == natural else order


def to_json(order: Order | None) -> list[list[Any]] | None:
    return None if order is None else [by.json() for by in order]


def from_json(data: list[list[Any]] | None) -> Order | None:
    return None if not data else [By(f, bool(d), bool(n)) for f, d, n in data]


def describe(order: Order | None) -> str:
    if order is None:
        return "ascending"
    return ", ".join(f"{'key' if by.field is None else 'key.' + by.field} "
                     f"{'desc' if by.descending else 'asc'} nulls "
                     f"{'first' if by.nulls_first else 'last'}" for by in order)


def columns(name: str, order: Order | None) -> list[Any]:
    """Spark sort columns ordering the column ``name`` as ``order`` does."""
    from pyspark.sql import functions as F
    if order is None:
        return [F.col(name)]
    out = []
    for by in order:
        c = F.col(name) if by.field is None else F.col(name).getField(by.field)
        out.append((c.desc_nulls_first() if by.nulls_first else c.desc_nulls_last())
                   if by.descending else
                   (c.asc_nulls_first() if by.nulls_first else c.asc_nulls_last()))
    return out


@total_ordering
class _Desc:
    """A sort key with ``<`` reversed."""
    __slots__ = ("x",)

    def __init__(self, x: Any):
        self.x = x

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.x == other.x

    def __lt__(self, other: "_Desc") -> bool:
        return other.x < self.x

    def __hash__(self) -> int:
        return hash(self.x)


def sort_key(dt: DataType, order: Order | None) -> rows.SortKey:
    """Raw value -> comparable object in ``order``; a custom one is marked ``custom`` so that
    ``merge_batches.key_array`` compares these objects rather than the raw values."""
    if order is None:
        return rows.sort_key(dt)
    parts: list[tuple[Callable[[Any], Any], rows.SortKey]] = []
    for by in order:
        if by.field is None:
            get, t = (lambda v: v), dt
        else:
            i = dt.names.index(by.field)
            get = _field(by.field, i)
            t = dt.fields[i].dataType
        parts.append((get, _directed(rows.sort_key(t), by)))

    def key(v: Any) -> Any:
        return tuple(k(get(v)) for get, k in parts)
    key.custom = True  # type: ignore[attr-defined]
    return key


def _field(name: str, i: int) -> Callable[[Any], Any]:
    return lambda v: None if v is None else v.get(name) if isinstance(v, dict) else v[i]


def _directed(base: rows.SortKey, by: By) -> rows.SortKey:
    def key(v: Any) -> Any:
        if v is None:
            return (0,) if by.nulls_first else (2,)
        x = base(v)
        return (1, _Desc(x) if by.descending else x)
    return key
