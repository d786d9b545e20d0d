"""Merging one range's old file with its sorted instructions on Arrow batches, a window of keys
at a time (the update's path; ``merge`` holds the row-at-a-time path it falls back to).

Both sides are read forward in batches; each batch's ``k1`` and ``k2`` columns become numpy arrays
ordered as Spark orders them (``key_array``: the Arrow data itself for integers, dates and
timestamps; Python strings and bytes; ``rows.sort_key`` objects for the rest). A *window* is every
row of both sides with ``k1`` below the smaller of the two sides' last buffered ``k1``, so no key
is split between windows. A window is merged with array operations only:

* deletes mark the old rows of their ``(k1, k2)`` (a binary search for pairs: ``search``);
* the kept old rows and the inserts are interleaved by their positions (inserts after old rows of
  an equal pair) and written with one ``take``; nothing is re-sorted;
* for content, the rows of the keys the window's instructions touch become the update output
  (``Add`` for the first row of a key the file did not have, ``Delete`` for a key left without
  rows, ``Update`` otherwise), in key order.

A key whose rows on either side outgrow ``KEY_BYTES`` cannot be windowed without holding it whole;
it goes through ``merge.merge_key_rows`` row by row, streamed, and the window resumes after it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql.types import (
    BooleanType, ByteType, DataType, DateType, IntegerType, LongType, ShortType, StringType,
    BinaryType, TimestampNTZType, TimestampType,
)

#: a key buffered past this many bytes on one side is merged row by row (streamed) instead
KEY_BYTES = 16 << 20
_NATIVE = (ByteType, ShortType, IntegerType, LongType, DateType, TimestampType, TimestampNTZType,
           BooleanType)
_TYPES = pa.array(["Add", "Update", "Delete"])


def key_array(col: pa.Array | pa.ChunkedArray, dt: DataType,
              order: Callable[[Any], Any]) -> np.ndarray:
    """A non-null key column as a numpy array whose ``<`` is Spark's order."""
    custom = getattr(order, "custom", False)  # a stage's own key order (``key_order``)
    if isinstance(dt, _NATIVE) and not custom:
        return col.to_numpy(zero_copy_only=False)
    values = col.to_pylist()
    if isinstance(dt, (StringType, BinaryType)) and not custom:  # code point order is UTF-8 byte order
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return np.fromiter((order(v) for v in values), dtype=object, count=len(values))


def _less(a: np.ndarray, b: np.ndarray, or_equal: bool) -> np.ndarray:
    return np.asarray(a <= b if or_equal else a < b, dtype=bool)


def search(a1: np.ndarray, a2: np.ndarray, q1: np.ndarray, q2: np.ndarray,
           right: bool) -> np.ndarray:
    """For each pair ``(q1[i], q2[i])``, the first index of the pairs ``(a1, a2)`` (sorted) that is
    above it (``right``) or not below it: one binary search on ``a1``, then one on ``a2`` inside
    each pair's run of equal ``a1``, all queries at once."""
    lo = np.searchsorted(a1, q1, "left")
    hi = np.searchsorted(a1, q1, "right")
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) // 2
        up = _less(a2[mid], q2[active], right)
        lo[active[up]] = mid[up] + 1
        hi[active[~up]] = mid[~up]
        active = active[lo[active] < hi[active]]
    return lo


def one(key: Any, like: np.ndarray) -> np.ndarray:
    """``key`` as a one-element array of ``like``'s type (a tuple stays one element)."""
    out = np.empty(1, dtype=like.dtype)
    out[0] = key
    return out


def count_upto(keys: np.ndarray, key: Any) -> int:
    """How many of the sorted ``keys`` are not above ``key``."""
    return int(np.searchsorted(keys, one(key, keys), "right")[0])


def _changed(a: np.ndarray) -> np.ndarray:
    """True where an element differs from the one before it (the first is True)."""
    out = np.ones(len(a), dtype=bool)
    if len(a) > 1:
        out[1:] = np.asarray(a[1:] != a[:-1], dtype=bool)
    return out


class Side:
    """One side's sorted batches, buffered from where the last window ended, with their keys."""

    def __init__(self, batches: Iterator[pa.RecordBatch], schema: pa.Schema,
                 keys: Callable[[pa.Table], tuple[np.ndarray, np.ndarray]]):
        self._batches, self.schema, self._keys = batches, schema, keys
        self.table = schema.empty_table()
        self.k1, self.k2 = keys(self.table)
        self.done = False

    @property
    def rows(self) -> int:
        return self.table.num_rows

    def load(self) -> bool:
        """Append the next non-empty batch; False at the end."""
        while True:
            batch = next(self._batches, None)
            if batch is None:
                self.done = True
                return False
            if batch.num_rows:
                break
        table = pa.Table.from_batches([batch]).cast(self.schema)
        k1, k2 = self._keys(table)
        if self.rows:
            self.table = pa.concat_tables([self.table, table])
            self.k1, self.k2 = np.concatenate([self.k1, k1]), np.concatenate([self.k2, k2])
        else:
            self.table, self.k1, self.k2 = table, k1, k2
        return True

    def fill(self) -> None:
        if not self.rows and not self.done:
            self.load()

    def last(self) -> Any:
        return self.k1[-1]

    def split(self, end: int) -> tuple[pa.Table, np.ndarray, np.ndarray]:
        """Remove and return the first ``end`` rows."""
        out = (self.table.slice(0, end), self.k1[:end], self.k2[:end])
        self.table, self.k1, self.k2 = self.table.slice(end), self.k1[end:], self.k2[end:]
        return out

    def below(self, bound: Any | None) -> tuple[pa.Table, np.ndarray, np.ndarray]:
        """Remove and return the rows whose k1 is below ``bound`` (all if None)."""
        end = self.rows if bound is None else int(
            np.searchsorted(self.k1, one(bound, self.k1), "left")[0])
        return self.split(end)

    def key_rows(self, key: Any, columns: int) -> Iterator[tuple]:
        """The rows of ``key`` at the front, as Python tuples of the first ``columns`` columns,
        loading batches while the key lasts (at most one batch converted at a time)."""
        while True:
            end = count_upto(self.k1, key)
            table = self.split(end)[0]
            yield from zip(*(table.column(i).to_pylist() for i in range(columns)))
            if self.rows or self.done or not self.load():
                return


def merge_with_old(old: Side, ins: Side, out: Any, upd: Any | None, has_value: bool,
                   stream_key: Callable[[Any], None]) -> None:
    """Merge the instructions ``ins`` (k1, k2, op[, value]) into the old rows ``old`` (k1, k2
    [, value]), writing ``out`` (and the update rows to ``upd``); ``stream_key(k)`` merges a key
    too large to window, row by row."""
    while True:
        old.fill()
        ins.fill()
        if not ins.rows and ins.done:  # the rest of the file is carried as it is
            while old.rows:
                table, k1, _ = old.split(old.rows)
                out.table(table, k1)
                old.load()
            return
        open_ = [s.last() for s in (old, ins) if s.rows and not s.done]
        bound = min(open_) if open_ else None
        wo, wi = old.below(bound), ins.below(bound)
        if wo[0].num_rows or wi[0].num_rows:
            _merge_window(wo, wi, out, upd, has_value)
            continue
        # every buffered row of a side still open is of the key ``bound``: read on, or stream it
        grow = [s for s in (old, ins) if s.rows and not s.done and s.last() == bound]
        if any(s.table.nbytes > KEY_BYTES for s in grow):
            stream_key(bound)
        else:
            for s in grow:
                s.load()


def _merge_window(old: tuple[pa.Table, np.ndarray, np.ndarray],
                  ins: tuple[pa.Table, np.ndarray, np.ndarray], out: Any, upd: Any | None,
                  has_value: bool) -> None:
    otable, ok1, ok2 = old
    itable, ik1, ik2 = ins
    n = otable.num_rows
    op = itable.column("op").to_numpy(zero_copy_only=False)
    dels = np.flatnonzero(op == 0)
    keep = np.ones(n, dtype=bool)
    if dels.size and n:
        lo = search(ok1, ok2, ik1[dels], ik2[dels], right=False)
        hi = search(ok1, ok2, ik1[dels], ik2[dels], right=True)
        edges = np.zeros(n + 1, dtype=np.int64)
        np.add.at(edges, lo, 1)
        np.add.at(edges, hi, -1)
        keep = np.cumsum(edges[:-1]) == 0
    adds = np.flatnonzero(op == 1)
    if not has_value and adds.size:  # a repeated mapping is one row
        adds = adds[_changed(ik1[adds]) | _changed(ik2[adds])]
    kept = np.flatnonzero(keep)
    at = search(ok1[kept], ok2[kept], ik1[adds], ik2[adds], right=True) + np.arange(adds.size)
    total = kept.size + adds.size
    inserted = np.zeros(total, dtype=bool)
    inserted[at] = True
    src = np.empty(total, dtype=np.int64)
    src[at] = n + np.arange(adds.size)
    src[~inserted] = kept
    names = otable.schema.names
    cols = ["k1", "k2"] + (["value"] if has_value else [])
    added = pa.Table.from_arrays([itable.column(c).take(adds) for c in cols], names=names)
    merged = pa.concat_tables([otable, added.cast(otable.schema)]).take(src)
    keys = np.concatenate([ok1, ik1[adds]])[src]
    out.table(merged, keys)
    if upd is not None:
        _update_rows(merged, keys, ok1, itable, ik1, upd)


def _update_rows(merged: pa.Table, keys: np.ndarray, ok1: np.ndarray, itable: pa.Table,
                 ik1: np.ndarray, upd: Any) -> None:
    """The update output of the keys the window's instructions touch, in key order."""
    firsts = np.flatnonzero(_changed(ik1))
    touched = ik1[firsts]
    existed = np.searchsorted(ok1, touched, "right") > np.searchsorted(ok1, touched, "left")
    if not touched.size:
        return
    at = np.minimum(np.searchsorted(touched, keys, "left"), touched.size - 1)
    rows = np.flatnonzero(np.asarray(touched[at] == keys, dtype=bool)) if keys.size else at[:0]
    rkeys = keys[rows]
    codes = np.where(_changed(rkeys) & ~existed[at[rows]], 0, 1)
    emitted = np.searchsorted(rkeys, touched, "right") > np.searchsorted(rkeys, touched, "left")
    gone = np.flatnonzero(existed & ~emitted)
    value = merged.schema.field("value").type
    kept = pa.table({"type": _TYPES.take(pa.array(codes, pa.int8())),
                     "key": merged.column(0).take(rows), "value": merged.column(2).take(rows)})
    if gone.size:
        deleted = pa.table({"type": _TYPES.take(pa.array(np.full(gone.size, 2, np.int8))),
                            "key": itable.column("k1").take(firsts[gone]),
                            "value": pa.nulls(gone.size, value)})
        # a gone key has no rows left, so it goes before the rows of the next key
        at_del = np.searchsorted(rkeys, touched[gone], "left") + np.arange(gone.size)
        total = rows.size + gone.size
        is_del = np.zeros(total, dtype=bool)
        is_del[at_del] = True
        src = np.empty(total, dtype=np.int64)
        src[at_del] = rows.size + np.arange(gone.size)
        src[~is_del] = np.arange(rows.size)
        table = pa.concat_tables([kept, deleted.cast(kept.schema)]).take(src)
        rkeys = np.concatenate([rkeys, touched[gone]])[src]
    else:
        table = kept
    upd.table(table.cast(upd.schema), rkeys)
