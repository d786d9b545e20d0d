"""Running a stage's Produce function in Spark's Python workers.

The input of a stage arrives as Arrow batches of ``(key, side, value_0, ..., value_n)`` sorted by
``(key, side)`` within each partition (Spark sorted them; equal keys share a partition). Adjacent
rows with equal keys form a group; Produce gets the group's key and one lazy iterator per side,
which pulls the next Arrow batch only when it runs out of rows. Nothing holds more than one Arrow
batch of input (at most ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows and
``...maxBytesPerBatch`` bytes) and one output buffer of about ``merge.BATCH_BYTES``, however many
values a key has. An iterator (``Values``) is single-pass: reading side 1 first passes over the
rest of side 0, which then cannot be read; Produce must read every value once or ``skip()`` it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql.types import DataType

from .errors import in_worker
from .exact_types import checker
from .merge import rows_per_batch
from .rows import arrow_type, from_user, sort_key, to_user

#: the most rows of Produce output converted to Arrow at a time (fewer for wide rows)
FLUSH_ROWS = 8192


class _Rows:
    """A cursor over the partition's rows, one Arrow batch converted at a time."""

    def __init__(self, batches: Iterator[pa.RecordBatch], sides: int):
        self._batches = batches
        self._sides = sides
        self.done = False
        self.i = 0
        self.keys: list[Any] = []
        self.side: list[int] = []
        self._batch: pa.RecordBatch | None = None
        self._values: list[list[Any] | None] = []
        self.load()

    def load(self) -> None:
        while self.i >= len(self.keys):
            batch = next(self._batches, None)
            if batch is None:
                self.done = True
                return
            self._batch = batch
            self.keys = batch.column(0).to_pylist()
            self.side = batch.column(1).to_pylist()
            self._values = [None] * self._sides
            self.i = 0

    def value(self, s: int) -> Any:
        column = self._values[s]
        if column is None:
            column = self._values[s] = self._batch.column(2 + s).to_pylist()
        return column[self.i]


class Values:
    """One side's values of one key, as Produce gets them: a lazy, single-pass iterator.

    Produce must read every value once (as in Parquet.Producers): a key whose values are left
    unread, or iterated again after they ran out (they are not kept, so a second pass would
    silently see nothing), is an error naming the stage and key. ``skip()`` passes over the rest
    on purpose."""

    def __init__(self, group: "_Group", side: int):
        self._group, self._side = group, side
        self._started = self._exhausted = False

    def __iter__(self) -> "Values":
        if self._exhausted:
            raise self._group.error(f"produce iterated the values{self._group.named(self._side)} "
                                    "again after reading them all (they are a single pass and "
                                    "not kept: copy them into a list to read them twice)")
        return self

    def __next__(self) -> Any:
        g, s = self._group, self._side
        if not self._started:
            if g.passed >= s:
                raise g.error(f"the values of side {s} were already passed over (each side is "
                              "single-pass, read the sides in order)")
            g.pass_over(s)
            self._started = True
        if g.at(s):
            return g.take(s)
        self._exhausted = True
        g.passed = max(g.passed, s)
        raise StopIteration

    def skip(self) -> None:
        """Pass over this side's remaining values without reading them."""
        self._group.skipped.add(self._side)
        for _ in self:
            pass


class SampleValues:
    """``Values`` over a list: the driver's sample that a stage's output types are inferred from
    (a sample may cut a key's values short, so values left unread are not checked here)."""

    def __init__(self, values: list[Any]):
        self._it, self._exhausted = iter(values), False

    def __iter__(self) -> "SampleValues":
        if self._exhausted:
            raise ValueError("produce iterated the values again after reading them all (they "
                             "are a single pass and not kept: copy them into a list to read "
                             "them twice)")
        return self

    def __next__(self) -> Any:
        try:
            return next(self._it)
        except StopIteration:
            self._exhausted = True
            raise

    def skip(self) -> None:
        for _ in self:
            pass


class _Group:
    """One key's rows: ``side(s)`` is the lazy iterator over side ``s``'s values."""

    def __init__(self, rows: _Rows, raw_key: Any, key_order: Callable[[Any], Any],
                 users: list[Callable[[Any], Any]], stage: str, shown_key: Any):
        self.rows, self.raw_key, self.order = rows, raw_key, key_order
        self.sk = key_order(raw_key)
        self.users, self.stage, self.shown_key = users, stage, shown_key
        self.passed = -1  # highest side whose values were passed over
        self.skipped: set[int] = set()  # sides passed over on purpose (``Values.skip``)
        self.unread: set[int] = set()  # sides some of whose values nobody read

    def error(self, what: str) -> Exception:
        return in_worker(f"stage {self.stage!r}, key {self.shown_key!r}: {what}")

    def named(self, s: int) -> str:
        return f" of side {s}" if len(self.users) > 1 else ""

    def _same_key(self) -> bool:
        rows = self.rows
        if rows.done:
            return False
        k = rows.keys[rows.i]
        return k == self.raw_key or self.order(k) == self.sk

    def _next_row(self) -> None:
        cur = self.rows
        cur.i += 1
        if cur.i >= len(cur.keys):
            cur.load()

    def at(self, s: int) -> bool:
        return self._same_key() and self.rows.side[self.rows.i] == s

    def take(self, s: int) -> Any:
        v = self.users[s](self.rows.value(s))
        self._next_row()
        return v

    def pass_over(self, s: int) -> None:
        """Move to side ``s``: the values of earlier sides left are unread."""
        cur = self.rows
        while self._same_key() and cur.side[cur.i] < s:
            if cur.side[cur.i] not in self.skipped:
                self.unread.add(cur.side[cur.i])
            self._next_row()
        self.passed = max(self.passed, s - 1)

    def side(self, s: int) -> Values:
        return Values(self, s)

    def finish(self) -> None:
        """After Produce: every value must have been read (or skipped on purpose)."""
        cur = self.rows
        while self._same_key():
            if cur.side[cur.i] not in self.skipped:
                self.unread.add(cur.side[cur.i])
            self._next_row()
        if self.unread:
            sides = "".join(self.named(s) for s in sorted(self.unread)[:1])
            raise self.error(f"produce returned without reading all of the key's values{sides} "
                             "(every value must be read once; call values.skip() to pass over "
                             "the rest on purpose)")


class _Output:
    """Produce's emitted pairs, checked against the stage's declared types, as Arrow batches."""

    def __init__(self, stage: str, kt: DataType, ks: DataType, v: DataType, large: bool):
        self.stage = stage
        self.kt, self.v = kt, v
        self.types = [arrow_type(kt, large), arrow_type(ks, large), arrow_type(v, large)]
        self.schema = pa.schema([pa.field("key", self.types[0], False),
                                 pa.field("source_key", self.types[1], False),
                                 pa.field("value", self.types[2], True)])
        self.conv_k, self.conv_v = from_user(kt), from_user(v)
        self.check_k, self.check_v = checker(kt), checker(v)
        self.cols: list[list[Any]] = [[], [], []]
        self.shown: list[Any] = []
        self.limit = 64  # rows per flush, adapted to the width of the rows (``rows_per_batch``)

    def add(self, item: Any, raw_source_key: Any, shown_key: Any) -> None:
        try:
            k, v = item
        except (TypeError, ValueError):
            raise in_worker(f"stage {self.stage!r}, key {shown_key!r}: produce must emit (key, "
                            f"value) pairs, got {item!r}") from None
        if k is None:
            raise in_worker(f"stage {self.stage!r}, key {shown_key!r}: produce emitted a null key")
        why = self.check_k(k)
        if why is None:
            why = self.check_v(v)
        if why is not None:
            raise in_worker(self._wrong(shown_key, k, v, why))
        try:
            ck, cv = self.conv_k(k), self.conv_v(v)
        except Exception as e:  # noqa: BLE001 - reported with the stage and key
            raise in_worker(self._wrong(shown_key, k, v, e)) from None
        self.cols[0].append(ck)
        self.cols[1].append(raw_source_key)
        self.cols[2].append(cv)
        self.shown.append((shown_key, k, v))

    def _wrong(self, shown_key: Any, k: Any, v: Any, e: Exception | str) -> str:
        return (f"stage {self.stage!r}, key {shown_key!r}: produce emitted ({k!r}, {v!r}), which "
                f"does not fit the stage's types (key {self.kt.simpleString()}, value "
                f"{self.v.simpleString()}): {e}")

    def __len__(self) -> int:
        return len(self.cols[0])

    @property
    def full(self) -> bool:
        return len(self.cols[0]) >= self.limit

    def flush(self) -> pa.RecordBatch:
        try:
            arrays = [pa.array(c, type=t) for c, t in zip(self.cols, self.types)]
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            for i, (shown_key, k, v) in enumerate(self.shown):
                for c, t in ((self.cols[0], self.types[0]), (self.cols[2], self.types[2])):
                    try:
                        pa.array([c[i]], type=t)
                    except Exception as e:  # noqa: BLE001
                        raise in_worker(self._wrong(shown_key, k, v, e)) from None
            raise
        self.cols, self.shown = [[], [], []], []
        batch = pa.RecordBatch.from_arrays(arrays, schema=self.schema)
        self.limit = rows_per_batch(batch.nbytes / max(batch.num_rows, 1), FLUSH_ROWS)
        return batch


def produce_task(stage: str, fn: Callable[..., Iterable[Any]], ks: DataType,
                 side_types: list[DataType], kt: DataType, v: DataType, large: bool
                 ) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function running ``fn`` over one key-sorted partition."""
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        order = sort_key(ks)
        user_key = to_user(ks)
        users = [to_user(t) for t in side_types]
        rows = _Rows(iter(batches), len(side_types))
        out = _Output(stage, kt, ks, v, large)
        while not rows.done:
            raw_key = rows.keys[rows.i]
            key = user_key(raw_key)
            group = _Group(rows, raw_key, order, users, stage, key)
            try:
                for item in fn(key, *(group.side(s) for s in range(len(side_types)))) or ():
                    out.add(item, raw_key, key)
                    if out.full:
                        yield out.flush()
                group.finish()
            except Exception as e:
                if "PRODUCERS-ERROR:" in str(e):
                    raise
                raise in_worker(f"stage {stage!r}, key {key!r}: produce raised "
                                f"{type(e).__name__}: {e}") from e
        if len(out):
            yield out.flush()
    return run
