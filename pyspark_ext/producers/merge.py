"""Merging a sorted file set with sorted instructions, in one forward pass, in Python workers.

A *file set* (a stage's content or key_mappings) is a list of Parquet files sorted by ``(k1, k2)``
and globally sorted across files: file ``r`` holds keys ``k1`` in ``[first_r, first_{r+1})`` and a
``k1`` never spans two files. *Instructions* are rows ``(range, k1, k2, op, value)``: ``op`` 0
deletes every old row with that ``(k1, k2)``, ``op`` 1 inserts a row. Spark sorts the instructions
(only them) by ``(range, k1, k2, op)``; each task then streams, per range, the old file and the
range's instructions together. A range with an old file (an update) is merged on Arrow batches by
``merge_batches``; the rest (the first run, stages with a ``preserve`` hook, and keys too large for
a window) row by row, as follows:

* rows of the old file below the next instruction's ``k1`` are copied as Arrow slices (found by
  binary search over the current batch's keys), never converted to Python (only the keys are);
* a ``k1`` that has instructions is merged row by row by ``k2`` and, for content, written to the
  update output too (``Add`` for the first row of a key the file did not have, ``Delete`` for a
  key left without rows, ``Update`` otherwise), with the stage's preserve hook applied to inserts.

Nothing is re-sorted: the output is the old order with rows dropped and rows slotted in. Without
an old file (the first run, or a stage that was empty) the same code writes the instructions.
"""
from __future__ import annotations

import bisect
import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql.types import DataType

from . import merge_batches, preserve as preserve_state
from .errors import in_worker
from .rows import arrow_type, encode, sort_key, to_user, user_to_raw
from .storage import Store

META_SCHEMA = ("kind string, range int, part int, path string, rows long, bytes long, "
               "first string, last string, next_id long")
_META_ARROW = pa.schema([("kind", pa.string()), ("range", pa.int32()), ("part", pa.int32()),
                         ("path", pa.string()), ("rows", pa.int64()), ("bytes", pa.int64()),
                         ("first", pa.string()), ("last", pa.string()), ("next_id", pa.int64())])
#: the most rows of an old file read at once; fewer when its rows are wide (``BATCH_BYTES``)
BATCH_ROWS = 65536
#: the bytes of Arrow data a worker aims to hold at once per reader or writer buffer, so that a
#: key's values (however many) pass through in pieces of about this size
BATCH_BYTES = 4 << 20


def rows_per_batch(bytes_per_row: float, most: int = BATCH_ROWS) -> int:
    """How many rows of ``bytes_per_row`` fit in ``BATCH_BYTES`` (at least 1, at most ``most``)."""
    return max(1, min(most, int(BATCH_BYTES // max(bytes_per_row, 1.0))))


class OldRows:
    """A forward cursor over one sorted file: bulk slices below a key, Python rows at a key.

    Each batch's k1 column is converted to Python once (when first searched), so finding an
    instruction's key is a binary search over a list, with ``order`` applied per probe."""

    def __init__(self, store: Store, rel: str, schema: pa.Schema, order: Callable[[Any], Any]):
        fs, _ = store.fs()
        file = pq.ParquetFile(store.path(rel), filesystem=fs)
        meta = file.metadata
        wide = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
        self._batches = file.iter_batches(rows_per_batch(wide / max(meta.num_rows, 1)))
        self.schema, self.order = schema, order
        self.batch: pa.RecordBatch | None = None
        self.keys: list[Any] | None = None
        self.pos = 0
        self._load()

    def _load(self) -> None:
        while self.batch is None or self.pos >= self.batch.num_rows:
            nxt = next(self._batches, None)
            if nxt is None:
                self.batch = None
                return
            self.batch, self.pos, self.keys = nxt.cast(self.schema), 0, None

    def _keys(self) -> list[Any]:
        if self.keys is None:
            self.keys = self.batch.column(0).to_pylist()
        return self.keys

    def _find(self, sk: Any, right: bool) -> int:
        """First index >= pos whose key sorts >= sk (> sk if ``right``)."""
        find = bisect.bisect_right if right else bisect.bisect_left
        return find(self._keys(), sk, self.pos, self.batch.num_rows, key=self.order)

    def peek(self) -> Any:
        """The sort key of the next row's k1, or None at the end."""
        return None if self.batch is None else self.order(self._keys()[self.pos])

    def peek_row(self) -> dict[str, Any]:
        return self.batch.slice(self.pos, 1).to_pylist()[0]

    def before(self, sk: Any) -> Iterator[pa.RecordBatch]:
        while self.batch is not None:
            end = self._find(sk, right=False)
            if end > self.pos:
                yield self.batch.slice(self.pos, end - self.pos)
            self.pos = end
            if end < self.batch.num_rows:
                return
            self._load()

    def equal(self, sk: Any) -> Iterator[tuple]:
        while self.batch is not None:
            end = self._find(sk, right=True)
            if end > self.pos:
                rows = self.batch.slice(self.pos, end - self.pos)
                keys = self._keys()[self.pos:end]
                self.pos = end
                yield from zip(keys, *(c.to_pylist() for c in rows.columns[1:]))
            if self.batch is not None and end < self.batch.num_rows:
                return
            self._load()

    def rest(self) -> Iterator[pa.RecordBatch]:
        while self.batch is not None:
            yield self.batch.slice(self.pos)
            self.pos = self.batch.num_rows
            self._load()


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    """The leaf columns worth dictionary encoding: the values (and update types), not the keys.
    A sorted file's keys are mostly distinct, so a dictionary for them is built only to be
    abandoned, which made writing a file of long keys 2.7 times slower and 50% larger."""
    buf = pa.BufferOutputStream()
    pq.write_table(schema.empty_table(), buf)
    leaves = pq.read_metadata(pa.BufferReader(buf.getvalue())).schema
    return [leaves.column(i).path for i in range(len(leaves))
            if leaves.column(i).path.split(".")[0] in ("value", "type")]


class Writer:
    """Sorted rows of one range into files of row groups of ``rows_per_group`` rows (fewer when
    they would exceed ``group_bytes``), rolling to a new file at a key boundary once a file has
    ``rows_per_file`` rows. Rows arrive as Arrow slices (copied runs of an old file) and Python
    tuples (merged keys), interleaved; the tuples are converted in bulk, not per run, and it holds
    at most one row group of Arrow data plus ``buf_rows`` tuples, however the rows arrive."""

    def __init__(self, store: Store, kind: str, rel_dir: str, rng: int, schema: pa.Schema,
                 rows_per_group: int, rows_per_file: int, group_bytes: int):
        self.store, self.kind, self.rel_dir, self.range = store, kind, rel_dir, rng
        self.schema, self.per_group, self.per_file = schema, rows_per_group, rows_per_file
        self.group_bytes = group_bytes
        self.key_col = schema.names.index("key") if kind == "update" else 0
        self.part, self.meta = 0, []
        self.buf_rows = 256  # tuples converted at once; adapted to the rows' width
        self._reset()

    def _reset(self) -> None:
        self.buf: list[tuple] = []
        # in order: Arrow batches, and ints counting the next tuples of ``buf``
        self.pieces: list[pa.RecordBatch | int] = []
        self.pending_rows = self.pending_bytes = self.rows = 0
        self.first = self.last = None
        self.last_key: Any = None  # the last row's key in ``merge_batches.key_array`` form
        self.file: pq.ParquetWriter | None = None

    def rows_(self, row: tuple) -> None:
        self.buf.append(row)
        if self.pieces and self.pieces[-1].__class__ is int:
            self.pieces[-1] += 1
        else:
            self.pieces.append(1)
        self.rows += 1
        self.pending_rows += 1
        if len(self.buf) >= self.buf_rows:
            self._convert()
            self._flush_full()
        elif self.pending_rows >= self.per_group:
            self._flush_full()

    def slice(self, batch: pa.RecordBatch) -> None:
        n = batch.num_rows
        if n:
            self.pieces.append(batch)
            self.rows += n
            self.pending_rows += n
            self.pending_bytes += batch.nbytes
            self._flush_full()

    def table(self, table: pa.Table, keys: Any) -> None:
        """Sorted rows and their keys (``merge_batches.key_array``), rolling to a new file at
        the first key boundary past ``rows_per_file`` rows."""
        start, n = 0, table.num_rows
        while start < n:
            if self.rows >= self.per_file and (self.last_key is None
                                               or keys[start] != self.last_key):
                self.close()
            room = self.per_file - self.rows
            if room <= 0:  # the file is full, but the key of its last row goes on
                end = start + merge_batches.count_upto(keys[start:], keys[start])
            elif start + room >= n:
                end = n
            else:
                end = start + merge_batches.count_upto(keys[start:], keys[start + room - 1])
            for batch in table.slice(start, end - start).to_batches():
                self.slice(batch)
            self.last_key = keys[end - 1]
            start = end

    def key_written(self, key: Any) -> None:
        """Rows of ``key`` were written row by row (``rows_``): where ``table`` goes on."""
        self.last_key = key

    def _convert(self) -> None:
        """The buffered tuples as one Arrow batch, sliced into the pieces that count them."""
        if not self.buf:
            return
        cols = list(zip(*self.buf))
        arrays = [pa.array(c, type=f.type) for c, f in zip(cols, self.schema)]
        batch = pa.RecordBatch.from_arrays(arrays, schema=self.schema)
        self.buf_rows = rows_per_batch(batch.nbytes / batch.num_rows, 4096)
        at = 0
        for i, piece in enumerate(self.pieces):
            if piece.__class__ is int:
                self.pieces[i] = batch.slice(at, piece)
                at += piece
        self.pending_bytes += batch.nbytes
        self.buf = []

    def _flush_full(self) -> None:
        while self.pending_rows >= self.per_group or (self.pending_bytes >= self.group_bytes
                                                      and self.pending_rows):
            self._write(final=False)

    def _write(self, final: bool) -> None:
        """Write one row group from the front of the pending rows (all of them if ``final``)."""
        self._convert()
        if not self.pending_rows:
            return
        table = pa.Table.from_batches(self.pieces, schema=self.schema)
        if final:
            cut = table.num_rows
        elif self.pending_rows >= self.per_group and self.pending_bytes < self.group_bytes:
            cut = self.per_group
        else:  # wide rows: a row group of about group_bytes
            cut = max(1, min(self.per_group,
                             int(table.num_rows * self.group_bytes / max(self.pending_bytes, 1))))
        if self.file is None:
            fs, _ = self.store.fs()
            name = f"r{self.range:05d}-p{self.part:03d}-{uuid.uuid4().hex[:12]}.parquet"
            self.rel = f"{self.rel_dir}/{name}"
            fs.create_dir(self.store.path(self.rel_dir), recursive=True)
            self.file = pq.ParquetWriter(self.store.path(self.rel), self.schema, filesystem=fs,
                                         compression="snappy",
                                         use_dictionary=_dictionary_columns(self.schema))
            self.first = table.column(self.key_col)[0].as_py()
        self.file.write_table(table.slice(0, cut), row_group_size=max(cut, 1))
        self.last = table.column(self.key_col)[cut - 1].as_py()
        rest = table.slice(cut)
        self.pieces = [b for b in rest.to_batches() if b.num_rows]
        self.pending_rows = rest.num_rows
        self.pending_bytes = sum(b.nbytes for b in self.pieces)

    def at_key_boundary(self) -> None:
        if self.rows >= self.per_file:
            self.close()

    def close(self) -> None:
        if self.rows:
            self._convert()
            while self.pending_rows:
                self._write(final=self.pending_rows <= self.per_group
                            and self.pending_bytes <= self.group_bytes)
            self.file.close()
            fs, _ = self.store.fs()
            size = fs.get_file_info(self.store.path(self.rel)).size
            self.meta.append({"kind": self.kind, "range": self.range, "part": self.part,
                              "path": self.rel, "rows": self.rows, "bytes": size,
                              "first": json.dumps(encode(self.first)),
                              "last": json.dumps(encode(self.last)), "next_id": None})
            self.part += 1
        self._reset()


def merge_task(store: Store, kind: str, stage: str, old_files: dict[int, str | None],
               k1: DataType, k2: DataType, v: DataType | None, rel_dir: str,
               rows_per_group: int, rows_per_file: int, group_bytes: int,
               preserve: Callable[[Any, Any], Any] | None = None, next_id: int = 1,
               batches: bool = True, order: list[Any] | None = None,
               ) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function merging each range in its partition; ``kind`` is
    ``"content"`` (``k1`` the target key, writes update files too) or ``"key_mappings"``.

    A range with an old file merges on Arrow batches (``merge_batches``); the first run's ranges
    (no old file), a stage with a ``preserve`` hook (a Python call per inserted row) and
    ``batches=False`` (the reference the tests compare the batch merge with) merge row by row."""
    names = ["key", "source_key"] if kind == "content" else ["source_key", "key"]
    fields = [pa.field(names[0], arrow_type(k1)), pa.field(names[1], arrow_type(k2))]
    if v is not None:
        fields.append(pa.field("value", arrow_type(v)))
    schema = pa.schema(fields)
    upd_schema = pa.schema([pa.field("type", pa.string()), pa.field("key", arrow_type(k1)),
                            pa.field("value", arrow_type(v))]) if kind == "content" else None
    instr_schema = pa.schema([pa.field("k1", arrow_type(k1)), pa.field("k2", arrow_type(k2)),
                              pa.field("op", pa.int8())]
                             + ([pa.field("value", arrow_type(v))] if v is not None else []))

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        o1, o2 = sort_key(k1), sort_key(k2)
        if order is not None:  # the stage's own key order (``key_order``)
            from .key_order import sort_key as ordered
            o1 = ordered(k1, order)
        preserve_state.start(next_id)
        user_v = to_user(v) if preserve else None
        raw_v = user_to_raw(v) if preserve else None
        shown = to_user(k1)

        def keys(table: pa.Table) -> tuple[Any, Any]:
            return (merge_batches.key_array(table.column(0), k1, o1),
                    merge_batches.key_array(table.column(1), k2, o2))

        for rng, instructions in _ranges(batches):
            out = Writer(store, kind, f"{rel_dir}/{kind}", rng, schema, rows_per_group,
                         rows_per_file, group_bytes)
            upd = Writer(store, "update", f"{rel_dir}/update", rng, upd_schema, rows_per_group,
                         rows_per_file, group_bytes) if upd_schema else None
            if old_files.get(rng) and preserve is None and batches:
                old = merge_batches.Side(_file_batches(store, old_files[rng]), schema, keys)
                ins = merge_batches.Side(instructions, instr_schema, keys)

                def stream_key(key: Any, old=old, ins=ins, out=out, upd=upd) -> None:
                    out.at_key_boundary()
                    if upd is not None:
                        upd.at_key_boundary()
                    existed = bool(old.rows) and old.k1[0] == key
                    has_ins = bool(ins.rows) and ins.k1[0] == key
                    old_rows = old.key_rows(key, len(schema)) if existed else iter(())
                    instr = ((None, *r) + ((None,) if v is None else ())
                             for r in ins.key_rows(key, len(instr_schema))) if has_ins else ()
                    first = ins.table.column(0)[0].as_py() if has_ins else (
                        old.table.column(0)[0].as_py())
                    if has_ins:
                        _merge_one_key(old_rows, iter(instr), existed, first, o2, out, upd, v,
                                       lambda r: r[4])
                    else:
                        for r in old_rows:
                            out.rows_(r)
                    out.key_written(key)
                    if upd is not None:
                        upd.key_written(key)

                merge_batches.merge_with_old(old, ins, out, upd, v is not None, stream_key)
            else:
                old = OldRows(store, old_files[rng], schema, o1) if old_files.get(rng) else None
                rows = _instruction_rows(instructions)
                row = next(rows, None)
                while row is not None:
                    sk = o1(row[1])
                    if old is not None:
                        for piece in old.before(sk):
                            out.slice(piece)
                    out.at_key_boundary()
                    if upd is not None:
                        upd.at_key_boundary()
                    existed = old is not None and old.peek() == sk
                    previous = old.peek_row()["value"] if existed and preserve else None
                    group_key = row[1]

                    def instr() -> Iterator[tuple]:
                        nonlocal row
                        while row is not None and (row[1] == group_key or o1(row[1]) == sk):
                            yield row
                            row = next(rows, None)

                    def inserted(r: tuple) -> Any:
                        nonlocal previous
                        value = r[4]
                        if preserve is not None:
                            try:
                                value = raw_v(preserve(user_v(value), None if previous is None
                                                       else user_v(previous)))
                            except Exception as e:  # noqa: BLE001
                                raise in_worker(f"stage {stage!r}, key {shown(r[1])!r}: "
                                                f"preserve raised {type(e).__name__}: {e}") from e
                            if previous is None:
                                previous = value
                        return value
                    _merge_one_key(old.equal(sk) if existed else iter(()), instr(), existed,
                                   group_key, o2, out, upd, v, inserted)
                if old is not None:
                    for piece in old.rest():
                        out.slice(piece)
            out.close()
            meta = out.meta
            if upd is not None:
                upd.close()
                meta += upd.meta
            meta.append({"kind": "done", "range": rng, "part": 0, "path": None, "rows": 0,
                         "bytes": 0, "first": None, "last": None,
                         "next_id": preserve_state.current()})
            yield pa.RecordBatch.from_pylist(meta, schema=_META_ARROW)
    return run


def _merge_one_key(old: Iterator[tuple], instr: Iterator[tuple], existed: bool, group_key: Any,
                   o2: Callable[[Any], Any], out: "Writer", upd: "Writer | None",
                   v: DataType | None, inserted: Callable[[tuple], Any]) -> None:
    """One key's old rows and instructions, row by row: write the merged rows, and for content
    the key's update rows. ``inserted(instruction)`` is the value an insert stores."""
    emitted = 0
    last = None  # the last inserted k2: a source key's repeated mappings are one row
    for kept, r in _merge_key(old, instr, o2):
        if kept:
            new = r
        elif v is None and last is not None and o2(r[2]) == last:
            continue
        else:
            if v is None:
                last = o2(r[2])
            new = (r[1], r[2], inserted(r)) if v is not None else (r[1], r[2])
        out.rows_(new)
        if upd is not None:
            upd.rows_(("Update" if emitted or existed else "Add", new[0], new[2]))
        emitted += 1
    if upd is not None and existed and not emitted:
        upd.rows_(("Delete", group_key, None))


def _ranges(batches: Iterator[pa.RecordBatch]
            ) -> Iterator[tuple[int, Iterator[pa.RecordBatch]]]:
    """A partition's instruction batches (sorted by range) as (range, its batches without the
    range column); each range's batches must be consumed before the next range is asked for."""
    state: dict[str, Any] = {"batch": None}

    def pull() -> pa.RecordBatch | None:
        while state["batch"] is None or not state["batch"].num_rows:
            state["batch"] = next(batches, None)
            if state["batch"] is None:
                return None
        return state["batch"]

    def of(rng: int) -> Iterator[pa.RecordBatch]:
        while (batch := pull()) is not None:
            ranges = batch.column(0).to_numpy(zero_copy_only=False)
            if ranges[0] != rng:
                return
            end = int(np.searchsorted(ranges, rng, "right"))
            state["batch"] = batch.slice(end)
            part = batch.slice(0, end)
            yield pa.RecordBatch.from_arrays(part.columns[1:], names=part.schema.names[1:])
    batches = iter(batches)
    while (batch := pull()) is not None:
        rng = int(batch.column(0)[0].as_py())
        rows = of(rng)
        yield rng, rows
        for _ in rows:  # whatever the range's merge left unread
            pass


def _file_batches(store: Store, rel: str) -> Iterator[pa.RecordBatch]:
    fs, _ = store.fs()
    file = pq.ParquetFile(store.path(rel), filesystem=fs)
    meta = file.metadata
    wide = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    return file.iter_batches(rows_per_batch(wide / max(meta.num_rows, 1)))


def _instruction_rows(batches: Iterator[pa.RecordBatch]) -> Iterator[tuple]:
    for b in batches:
        cols = [c.to_pylist() for c in b.columns]
        if len(cols) == 3:
            cols.append([None] * b.num_rows)
        yield from zip([None] * b.num_rows, *cols)


def _merge_key(old: Iterator[tuple], instr: Iterator[tuple], o2: Callable[[Any], Any]
               ) -> Iterator[tuple[bool, tuple]]:
    """One key's old rows ``(k1, k2, [v])`` and instructions ``(range, k1, k2, op, v)``, both
    sorted by k2 (deletes before inserts): yields (kept, row) in k2 order."""
    o = next(old, None)
    i = next(instr, None)
    while o is not None or i is not None:
        if i is None or (o is not None and o2(o[1]) < o2(i[2])):
            yield True, o
            o = next(old, None)
        elif o is None or o2(i[2]) < o2(o[1]):
            if i[3] == 1:
                yield False, i
            i = next(instr, None)
        elif i[3] == 0:
            d = o2(i[2])
            while o is not None and o2(o[1]) == d:
                o = next(old, None)
            i = next(instr, None)
        else:
            yield True, o
            o = next(old, None)
