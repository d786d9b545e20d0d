"""The ``Pipeline`` API: define sources and stages, run the first version, update, read back.

A pipeline is code (its stages' functions) plus a directory of committed versions. ``run`` makes
version 1 from unsorted input; ``update`` makes version N+1 from changes; both take the
pipeline's lease, write every stage in DAG order beside version N, and commit with one atomic
manifest write, so a failure or crash at any point leaves version N as it was. Stages of one
level of the DAG (no path between them) are written side by side.
"""
from __future__ import annotations

import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DataType

from .. import settings
from . import incremental, key_order as _key_order, storage
from .errors import ProducerError, from_spark
from .exact_types import same, widens
from .produce import SampleValues
from .rows import check_sortable, parse_type
from .storage import Store, version_dir

Add, Update, Delete = "Add", "Update", "Delete"
CRASH_ENV = "PYSPARK_EXT_PRODUCERS_CRASH"
log = logging.getLogger(__name__)


@dataclass(eq=False)
class Node:
    """A source or stage of a pipeline; pass it to ``Pipeline.stage`` as a feeder."""
    pipeline: "Pipeline"
    name: str
    fn: Callable[..., Iterable[Any]] | None = None
    sides: list[list["Node"]] = field(default_factory=list)
    key_type: DataType | None = None
    value_type: DataType | None = None
    preserve: Callable[[Any, Any], Any] | None = None
    unique_keys: bool = False
    key_order: _key_order.Order | None = None
    value_order: list[Any] = field(default_factory=list)

    @property
    def is_source(self) -> bool:
        return self.fn is None

    def __repr__(self) -> str:
        return f"<{'source' if self.is_source else 'stage'} {self.name!r}>"


class Pipeline:
    """Stages of Produce functions over key-sorted Parquet, updated incrementally.

    ``rows_per_row_group``, ``row_group_bytes`` and ``rows_per_file`` default to the confs
    ``spark.pyspark_ext.producers.rowsPerRowGroup`` (65536), ``...rowGroupBytes`` (64 MiB) and
    ``...rowsPerFile`` (1048576), declared in ``producers/settings.tsv``.
    """

    def __init__(self, spark: SparkSession | None, path: str, *,
                 rows_per_row_group: int | None = None, rows_per_file: int | None = None,
                 partitions: int | None = None, row_group_bytes: int | None = None):
        self.spark = spark  # None: manifests only (``versions``, ``manifest``), no Spark started
        self.store = Store.at(path)
        self.nodes: dict[str, Node] = {}

        def conf(key: str, default: str) -> str:
            return default if spark is None else spark.conf.get(key, default)
        def number(key: str) -> int:
            return int(conf(key, str(settings.PRODUCERS[key].default)))
        self.rows_per_group = rows_per_row_group or number(settings.PRODUCERS_ROWS_PER_ROW_GROUP)
        self.rows_per_file = rows_per_file or number(settings.PRODUCERS_ROWS_PER_FILE)
        self.row_group_bytes = row_group_bytes or number(settings.PRODUCERS_ROW_GROUP_BYTES)
        self.partitions = partitions or int(conf("spark.sql.shuffle.partitions", "200"))
        self.last_stats: dict[str, dict[str, Any]] = {}

    def _type(self, spec: DataType | str | None, what: str, key: bool) -> DataType | None:
        """A declared type; without a session a DDL string is not parsed (manifests only)."""
        if spec is None or (self.spark is None and not isinstance(spec, DataType)):
            return None
        dt = parse_type(spec)
        if key:
            check_sortable(dt, what)
        return dt

    def _needs_spark(self) -> SparkSession:
        if self.spark is None:
            raise ProducerError(f"pipeline {self.store.root} was opened without a Spark session "
                                "(Pipeline(None, path) reads manifests only)")
        return self.spark

    # -- definition -----------------------------------------------------------------------------

    def _add(self, node: Node) -> Node:
        if node.name in self.nodes:
            raise ProducerError(f"pipeline {self.store.root}: a stage named {node.name!r} "
                                "is already defined")
        if not node.name or "/" in node.name or node.name.startswith(("_", ".")):
            raise ProducerError(f"stage name {node.name!r}: use a plain directory name")
        self.nodes[node.name] = node
        return node

    def source(self, name: str, *, key_type: DataType | str | None = None,
               value_type: DataType | str | None = None, unique_keys: bool = False,
               key_order: Any = None) -> Node:
        """An external input of (key, value) rows, fed by ``run`` and ``update``.

        A key may repeat: its rows are its values (the constant key trick puts a whole data set
        under one key). ``unique_keys=True`` makes a repeated key an error instead. Input keys and
        values must have the declared types (or, on an update, the committed ones), or types
        that widen to them exactly (int into bigint); they are never cast."""
        kt = self._type(key_type, f"source {name!r} key_type", key=True)
        vt = self._type(value_type, f"source {name!r} value_type", key=False)
        order = _key_order.parse(key_order, f"source {name!r} key_order")
        return self._add(Node(self, name, key_type=kt, value_type=vt, unique_keys=unique_keys,
                              key_order=order))

    def stage(self, name: str, fn: Callable[..., Iterable[Any]], *feeders: Node | list[Node],
              key_type: DataType | str | None = None, value_type: DataType | str | None = None,
              preserve: Callable[[Any, Any], Any] | None = None, key_order: Any = None,
              value_order: Any = None) -> Node:
        """A stage: ``fn(key, values)`` (one feeder or a list of feeders merged) or
        ``fn(key, values_a, values_b, ...)`` (a join, one argument per feeder) returns an
        iterable of (key, value) pairs.

        ``key_order``: the order of the stage's stored keys (``key_order.py``), e.g.
        ``F.col("key").desc()``. ``value_order``: Spark sort columns the values of each key are
        given to ``fn`` in, over ``value`` (a join: ``value_0``, ``value_1``, ...); without it
        the order of a key's values is undefined."""
        if not feeders:
            raise ProducerError(f"stage {name!r} needs at least one feeder")
        sides = [list(f) if isinstance(f, (list, tuple)) else [f] for f in feeders]
        for side in sides:
            for f in side:
                if not isinstance(f, Node) or f.pipeline is not self:
                    raise ProducerError(f"stage {name!r}: feeder {f!r} is not a stage of this "
                                        "pipeline")
            if not side:
                raise ProducerError(f"stage {name!r}: an empty list of feeders")
        kt = self._type(key_type, f"stage {name!r} key_type", key=True)
        vt = self._type(value_type, f"stage {name!r} value_type", key=False)
        order = _key_order.parse(key_order, f"stage {name!r} key_order")
        values = [] if value_order is None else (
            list(value_order) if isinstance(value_order, (list, tuple)) else [value_order])
        return self._add(Node(self, name, fn, sides, kt, vt, preserve, key_order=order,
                              value_order=values))

    def order(self) -> list[Node]:
        """Stages in DAG order (definition order is one, as feeders must exist first)."""
        return list(self.nodes.values())

    def levels(self) -> list[list[Node]]:
        """The nodes by depth in the DAG (sources 0, a stage one more than its deepest feeder):
        a level's nodes depend on earlier levels only, so they are written side by side."""
        depth: dict[str, int] = {}
        out: list[list[Node]] = []
        for node in self.order():
            d = 0 if node.is_source else 1 + max(depth[f.name] for side in node.sides
                                                 for f in side)
            depth[node.name] = d
            out += [[] for _ in range(d + 1 - len(out))]
            out[d].append(node)
        return out

    # -- reading --------------------------------------------------------------------------------

    @property
    def version(self) -> int | None:
        """The newest committed version, or None before the first run."""
        versions = self.store.versions()
        return versions[-1] if versions else None

    def versions(self) -> list[int]:
        return self.store.versions()

    def manifest(self, version: int | None = None) -> dict[str, Any]:
        n = self.version if version is None else version
        if n is None:
            raise ProducerError(f"pipeline {self.store.root} has no committed version yet; "
                                "call run() first")
        return self.store.manifest(n)

    def _entry(self, name: str, version: int | None) -> dict[str, Any]:
        stages = self.manifest(version)["stages"]
        if name not in stages:
            raise ProducerError(f"pipeline {self.store.root} has no stage {name!r} "
                                f"(stages: {', '.join(stages)})")
        return stages[name]

    def content(self, name: str, version: int | None = None) -> DataFrame:
        """The stage's content as (key, value), sorted by key (then source key)."""
        entry = self._entry(name, version)
        frames = incremental.entry_frames(self._needs_spark(), self.store, entry)
        order = _key_order.from_json(entry.get("key_order"))
        return frames["content"].sort(*_key_order.columns("key", order), "source_key").select(
            "key", "value")

    def changes(self, name: str, version: int | None = None) -> DataFrame:
        """The stage's update output of a version: (type, key, value) sorted by key; within a
        key an ``Add`` comes first."""
        entry = self._entry(name, version)
        frames = incremental.entry_frames(self._needs_spark(), self.store, entry)
        order = _key_order.from_json(entry.get("key_order"))
        return frames["update"].sort(*_key_order.columns("key", order), "type")

    def files(self, name: str, kind: str = "content", version: int | None = None) -> list[str]:
        """The URIs of a stage's files of one kind (content, key_mappings, update), in key order."""
        return [self.store.uri(f["path"]) for f in self._entry(name, version)[kind]]

    # -- running --------------------------------------------------------------------------------

    def run(self, inputs: dict[str, DataFrame], progress: Callable[..., None] | None = None
            ) -> int:
        """Version 1 from unsorted (key, value) input for every source."""
        def changes(n: Node, df: DataFrame) -> DataFrame:
            _require_columns(df, n.name, ("key", "value"))
            return df.select(F.lit(Add).alias("type"), "key", "value")
        return self._advance(inputs, changes, first=True, progress=progress)

    def update(self, changes: dict[str, DataFrame],
               progress: Callable[..., None] | None = None, *,
               based_on_version: int | None = None) -> int:
        """Version N+1 from (type, key, value) changes per source: any key mentioned replaces
        all of its values; a key carries one Delete or any number of Add/Update rows.

        ``based_on_version=k`` builds N+1 from committed version k instead of N: the changes of
        versions k+1..N are not in it, and its ``changes`` are relative to k. It is committed
        like any version (N and the versions before stay as they were)."""
        def validated(n: Node, df: DataFrame) -> DataFrame:
            _require_columns(df, n.name, ("type", "key", "value"))
            return df.select("type", "key", "value")
        return self._advance(changes, validated, first=False, progress=progress,
                             base=based_on_version)

    def break_lease(self) -> None:
        """Remove the lease of a run known to be dead (e.g. crashed on another host)."""
        self.store.delete(storage.LEASE)

    def vacuum(self, keep: int = 1) -> dict[str, int]:
        """Keep the newest ``keep`` versions; delete older manifests and unreferenced files."""
        lease = storage.acquire(self.store, "vacuum")
        try:
            return storage.vacuum(self.store, keep)
        finally:
            storage.release(self.store, lease)

    def _crash(self, point: str, stage: str = "") -> None:
        """Test hook: ``PYSPARK_EXT_PRODUCERS_CRASH=point[:stage]`` kills the process there."""
        want = os.environ.get(CRASH_ENV)
        if want and want in (point, f"{point}:{stage}"):
            os._exit(86)

    def _advance(self, inputs: dict[str, DataFrame], prepare: Callable[[Node, DataFrame],
                 DataFrame], first: bool, progress: Callable[..., None] | None,
                 base: int | None = None) -> int:
        self._needs_spark()
        unknown = [n for n in inputs if n not in self.nodes or not self.nodes[n].is_source]
        if unknown:
            raise ProducerError(f"pipeline {self.store.root}: {', '.join(map(repr, unknown))} "
                                f"is not a source (sources: "
                                f"{', '.join(n.name for n in self.order() if n.is_source)})")
        lease = storage.acquire(self.store, "run" if first else "update")
        try:
            current = self.version
            if first and current is not None:
                raise ProducerError(f"pipeline {self.store.root} already has version {current}; "
                                    "use update() for changes")
            if not first and current is None:
                raise ProducerError(f"pipeline {self.store.root} was never run (no committed "
                                    "version); call run() first")
            parent = current if base is None else base
            if base is not None and base not in self.store.versions():
                raise ProducerError(f"pipeline {self.store.root}: cannot update based on version "
                                    f"{base}, which is not committed (committed versions: "
                                    f"{self.store.versions()}); nothing was written")
            old = self.store.manifest(parent)["stages"] if parent is not None else {}
            for node in self.order():
                if node.name in old:  # a changed key order is refused before anything is written
                    _order(node, incremental._types(old[node.name])[0], old[node.name])
            target = (current or 0) + 1
            self.store.delete(version_dir(target))  # a crashed run's uncommitted files
            prepared = {n: prepare(self.nodes[n], df) for n, df in inputs.items()}
            prepared = {n: _validate(self, self.nodes[n], df, old.get(n), parent)
                        for n, df in prepared.items()}
            try:
                stages = self._write(target, old, prepared, progress)
            except ProducerError:
                raise
            except Exception as e:  # noqa: BLE001 - Spark's wrapping of a worker's error
                mine = from_spark(e)
                if mine is None:
                    raise
                raise mine from None
            self._crash("before-commit")
            self.store.commit(target, {"version": target, "parent": parent,
                                       "created": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                time.gmtime()),
                                       "stages": stages})
            return target
        finally:
            storage.release(self.store, lease)

    def _write(self, target: int, old: dict[str, Any], inputs: dict[str, DataFrame],
               progress: Callable[..., None] | None) -> dict[str, Any]:
        ctx = incremental.Context(
            self.spark, self.store, target, self.rows_per_group, self.rows_per_file,
            self.row_group_bytes, self.partitions, self.spark.conf.get(
                "spark.sql.execution.arrow.useLargeVarTypes", "false") == "true",
            self._crash)
        entries: dict[str, Any] = {}
        last = self.order()[-1]

        def write(node: Node) -> incremental.Step:
            if progress:
                progress(node.name, "start", {})
            prior = old.get(node.name)
            if node.is_source:
                step = _source_step(self, ctx, node, prior, inputs.get(node.name))
            else:
                step = _stage_step(self, ctx, node, prior, entries)
            if progress:
                progress(node.name, "done", step.stats)
            return step
        # A stage's step is a few small Spark jobs one after another: independent stages run
        # side by side so that their jobs share the cluster instead of queueing behind each other.
        levels = self.levels()
        with ThreadPoolExecutor(max(len(level) for level in levels)) as pool:
            for level in levels:
                steps = [pool.submit(write, node) for node in level]
                for node, step in zip(level, steps):
                    entries[node.name] = step.result().entry
                    self.last_stats[node.name] = step.result().stats
                for node in level:
                    if node is not last:
                        self._crash("between-stages", node.name)
        return entries


def _require_columns(df: DataFrame, source: str, names: tuple[str, ...]) -> None:
    missing = [c for c in names if c not in df.columns]
    if missing:
        raise ProducerError(f"source {source!r}: the input has no column(s) "
                            f"{', '.join(missing)} (it has {', '.join(df.columns)})")


def _validate(p: Pipeline, node: Node, df: DataFrame, old: dict[str, Any] | None,
              version: int | None) -> DataFrame:
    """Reject bad changes before anything is written: a key or value of another type than the
    source's (never cast, see ``exact_types``), unknown change types, null keys, a key whose
    Delete is mixed with upserts, and a repeated key in a ``unique_keys`` source. Widen exact
    types (int into bigint) to the source's."""
    given_k, given_v = df.schema["key"].dataType, df.schema["value"].dataType
    if old is not None:
        kt, _, vt = incremental._types(old)
        where = f"committed in version {version}"
    else:
        kt, vt = node.key_type or given_k, node.value_type or given_v
        where = "declared"
    for what, given, stored in (("key", given_k, kt), ("value", given_v, vt)):
        if not widens(given, stored):
            raise _type_error(node, df, what, given, stored, where)
    if not (same(given_k, kt) and same(given_v, vt)):
        df = df.select("type", F.col("key").cast(kt).alias("key"),
                       F.col("value").cast(vt).alias("value"))
    check_sortable(df.schema["key"].dataType, f"source {node.name!r} key")
    is_delete = (F.col("type") == Delete).cast("int")
    repeated = F.sum(1 - is_delete) > 1 if node.unique_keys else F.lit(False)
    problems = (df.groupBy("key").agg(
        F.max(is_delete).alias("d"), F.max(1 - is_delete).alias("u"),
        repeated.alias("repeated"),
        F.max(F.when(~F.col("type").isin(Add, Update, Delete) | F.col("type").isNull(),
                     F.coalesce(F.col("type"), F.lit("null")))).alias("bad"))
        .filter("key is null or bad is not null or (d = 1 and u = 1) or repeated")
        .limit(5).collect())
    for r in problems:
        if r["key"] is None:
            raise ProducerError(f"source {node.name!r}: a change has a null key; nothing was "
                                "written")
        if r["bad"] is not None:
            raise ProducerError(f"source {node.name!r}, key {r['key']!r}: change type "
                                f"{r['bad']!r} is not one of Add, Update, Delete; nothing was "
                                "written")
    mixed = [r for r in problems if r["d"] == 1 and r["u"] == 1]
    if mixed:
        keys = ", ".join(repr(r["key"]) for r in mixed)
        raise ProducerError(f"source {node.name!r}, key {keys}: a Delete is mixed with Add/Update "
                            "for the same key (send either one Delete or only upserts); nothing "
                            "was written")
    if problems:
        keys = ", ".join(repr(r["key"]) for r in problems)
        raise ProducerError(f"source {node.name!r}, key {keys}: the key has more than one value, "
                            "but the source was declared with unique_keys=True (one value per "
                            "key); nothing was written")
    return df


def _type_error(node: Node, df: DataFrame, what: str, given: DataType, stored: DataType,
                where: str) -> ProducerError:
    """The mismatch, naming a key of the input: one whose value the cast would change or lose
    if there is one (3.7 into int, 'abc' into int), else the first."""
    rows = df.filter(F.col(what).isNotNull())
    cast = F.col(what).try_cast(stored)
    try:
        example = rows.filter(cast.isNull() | (cast.cast(given) != F.col(what))).select(
            "key").limit(1).collect()
    except Exception:  # noqa: BLE001 - types Spark cannot compare: name the first key instead
        example = []
    example = example or rows.select("key").limit(1).collect()
    key = f", key {example[0]['key']!r}" if example else ""
    return ProducerError(
        f"source {node.name!r}{key}: the {what} has type {given.simpleString()}, but the "
        f"source's {what}s are {stored.simpleString()} ({where}). Keys and values are never "
        f"cast (a cast could change a key and update the wrong one): convert the input to "
        f"{stored.simpleString()} yourself where that is exact. Nothing was written.")


def _source_step(p: Pipeline, ctx: incremental.Context, node: Node, old: dict[str, Any] | None,
                 changes: DataFrame | None) -> incremental.Step:
    if changes is None:
        if old is None:
            raise ProducerError(f"source {node.name!r}: no input given for the first run")
        return incremental.unchanged(old)
    kt = changes.schema["key"].dataType
    vt = changes.schema["value"].dataType
    produced = changes.filter(F.col("type") != Delete).select(
        "key", F.col("key").alias("source_key"), "value")
    changed = changes.select("key").distinct()
    return incremental.step(ctx, node.name, old, produced, changed, kt, kt, vt, None,
                            identity=True, order=_order(node, kt, old))


def _feeder_types(p: Pipeline, node: Node, entries: dict[str, Any]
                  ) -> tuple[DataType, list[DataType]]:
    key_types, side_types = set(), []
    for s, side in enumerate(node.sides):
        values = set()
        for f in side:
            kt, _, vt = incremental._types(entries[f.name])
            key_types.add(kt)
            values.add(vt)
        if len(values) > 1:
            raise ProducerError(f"stage {node.name!r}: merged feeders "
                                f"{', '.join(f.name for f in side)} have different value types "
                                f"({', '.join(sorted(v.simpleString() for v in values))})")
        side_types.append(values.pop())
    if len(key_types) > 1:
        raise ProducerError(f"stage {node.name!r}: feeders have different key types "
                            f"({', '.join(sorted(k.simpleString() for k in key_types))})")
    return key_types.pop(), side_types


def _stage_step(p: Pipeline, ctx: incremental.Context, node: Node, old: dict[str, Any] | None,
                entries: dict[str, Any]) -> incremental.Step:
    feeders = [f for side in node.sides for f in side]
    if old is not None and not any(entries[f.name]["update"] for f in feeders):
        return incremental.unchanged(old)
    ks, side_types = _feeder_types(p, node, entries)
    frames = {f.name: incremental.entry_frames(p.spark, p.store, entries[f.name])
              for f in feeders}
    affected = None
    for f in feeders:
        keys = frames[f.name]["update"].select("key")
        affected = keys if affected is None else affected.unionByName(keys)
    affected = affected.distinct()
    parts = []
    for s, side in enumerate(node.sides):
        for f in side:
            upd = frames[f.name]["update"]
            rows = upd.filter(F.col("type") != Delete).select("key", "value")
            if len(feeders) > 1:  # the augmented update: other feeders' changed keys, in full
                others = affected.join(upd.select("key"), "key", "left_anti")
                rows = rows.unionByName(frames[f.name]["content"].join(others, "key", "left_semi")
                                        .select("key", "value"))
            cols = [F.lit(s).alias("side")] + [
                (F.col("value") if i == s else F.lit(None)).cast(t).alias(f"value_{i}")
                for i, t in enumerate(side_types)]
            parts.append(rows.select("key", *cols))
    inputs = parts[0]
    for part in parts[1:]:
        inputs = inputs.unionByName(part)
    kt, vt = _output_types(p, node, old, inputs, ks, side_types)
    order = _order(node, kt, old)
    try:
        produced = incremental.run_produce(ctx, node.name, node.fn, inputs, ks, side_types, kt,
                                           vt, node.value_order, _input_rows(node, entries))
    except Exception as e:  # noqa: BLE001 - value_order naming no column of the values
        if not node.value_order or from_spark(e) is not None:
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ProducerError(f"stage {node.name!r}: value_order "
                            f"{', '.join(map(str, node.value_order))} cannot sort the values: "
                            f"{first}") from None
    return incremental.step(ctx, node.name, old, produced, affected, kt, ks, vt, node.preserve,
                            order=order)


def _input_rows(node: Node, entries: dict[str, Any]) -> int:
    """At most the rows of a stage's Produce input, from its feeders' manifest entries: their
    update rows, and with several feeders (the augmented update) their content too."""
    feeders = [entries[f.name] for side in node.sides for f in side]
    kinds = ("update", "content") if len(feeders) > 1 else ("update",)
    return sum(f["rows"] for entry in feeders for kind in kinds for f in entry[kind])


def _order(node: Node, kt: DataType, old: dict[str, Any] | None) -> _key_order.Order | None:
    """The node's key order checked against its key type and its committed order (a key order
    never changes: every file would have to be rewritten)."""
    what = f"{'source' if node.is_source else 'stage'} {node.name!r} key_order"
    order = _key_order.resolve(node.key_order, kt, what)
    if old is not None:
        stored = _key_order.from_json(old.get("key_order"))
        if stored != order:
            raise ProducerError(f"{what}: declared {_key_order.describe(order)}, but the "
                                f"committed version stores keys {_key_order.describe(stored)}; "
                                "a key order cannot change (build a new stage for the new "
                                "order); nothing was written")
    return order


#: input rows Produce is tried on, on the driver, to infer a stage's output types
SAMPLE_ROWS = 200


def _output_types(p: Pipeline, node: Node, old: dict[str, Any] | None, inputs: DataFrame,
                  ks: DataType, side_types: list[DataType]) -> tuple[DataType, DataType]:
    if old is not None:
        kt, _, vt = incremental._types(old)
        for declared, stored, what in ((node.key_type, kt, "key"), (node.value_type, vt, "value")):
            if declared is not None and declared != stored:
                raise ProducerError(f"stage {node.name!r} declares {what} type "
                                    f"{declared.simpleString()}, but its committed version "
                                    f"stores {stored.simpleString()}")
        return kt, vt
    if node.key_type is not None and node.value_type is not None:
        return node.key_type, node.value_type
    sample = inputs.limit(SAMPLE_ROWS).collect()
    groups: dict[Any, tuple[Any, list[list[Any]]]] = {}
    for row in sample:  # keyed by a hashable form: array and struct keys come as lists and Rows
        groups.setdefault(_hashable(row["key"]), (row["key"], [[] for _ in side_types]))[1][
            row["side"]].append(row[f"value_{row['side']}"])
    emitted = []
    for key, sides in list(groups.values())[:20]:
        try:
            for item in node.fn(key, *(SampleValues(v) for v in sides)) or ():
                emitted.append(tuple(item))
                if len(emitted) >= 200:
                    break
        except Exception as e:  # noqa: BLE001 - reported in the user's terms
            raise ProducerError(f"stage {node.name!r}, key {key!r}: produce raised "
                                f"{type(e).__name__}: {e} (on the sample its output types are "
                                "inferred from)") from e
    if emitted:
        schema = p.spark.createDataFrame(emitted).schema
        kt = node.key_type or schema.fields[0].dataType
        vt = node.value_type or schema.fields[1].dataType
    elif len(node.sides) == 1:
        src = node.sides[0][0]
        kt, vt = node.key_type or ks, node.value_type or side_types[0]
        log.warning("stage %s emitted nothing on a sample; assuming the types of %s (declare "
                    "key_type/value_type to be sure)", node.name, src.name)
    else:
        raise ProducerError(f"stage {node.name!r}: could not infer its output types from a "
                            "sample (produce emitted nothing); declare key_type and value_type")
    check_sortable(kt, f"stage {node.name!r} key")
    return kt, vt


def _hashable(v: Any) -> Any:
    """A key as the driver collects it (lists for arrays, Rows for structs), hashable."""
    if isinstance(v, (list, tuple)):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _hashable(x)) for k, x in v.items())
    if isinstance(v, bytearray):
        return bytes(v)
    return v
