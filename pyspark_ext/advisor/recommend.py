"""Which variant paths of one column to shred, and as which type: the workload's frequency times
the bytes a path's values take in a sample, within ``max_leaves`` and ``max_depth``. Each path's
``typed_value`` type comes from the sample's types, by the draft layout's rules (integers and decimals are
one number type, the widest exact type wins); the report estimates the share of rows that would
still fall back to the residual.

It also says how to write the chosen leaves for the workload's filters (docs/variant-reads.md,
"Skipping"): a Parquet bloom filter on a leaf compared by ``=`` or ``IN`` whose values are too many
for Parquet's dictionary filter to help, and a sort within files by the leaf most often filtered by
range, or a z-order clustering by the two most often filtered by range, with what each costs."""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from pyspark.sql import DataFrame

from .paths import VariantPath
from .workload import WorkloadAnalysis, top_level_fields

Segment = str | int  # an object field, or an array element (any index: shredding covers all)
_INTEGERS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}
_INTEGERS_LOWER = {t.lower() for t in _INTEGERS}
_DECIMAL = re.compile(r"DECIMAL\((\d+),\s*(\d+)\)")
_SCALARS = {"BOOLEAN": "boolean", "STRING": "string", "DOUBLE": "double", "FLOAT": "float",
            "DATE": "date", "TIMESTAMP": "timestamp", "TIMESTAMP_NTZ": "timestamp_ntz",
            "BINARY": "binary"}


@dataclass
class PathStats:
    """What the sample holds at one path: rows per reported type, and the JSON bytes of its values."""
    types: Counter[str] = field(default_factory=Counter)
    rows: int = 0
    json_bytes: int = 0
    distinct: int = 0  # approximate distinct values, all types together


#: Bits a Parquet bloom filter spends per distinct value at its default 1% false-positive rate
#: (-ln 0.01 / ln(2)^2, the optimal size Parquet's writer picks from the expected count).
BLOOM_BITS_PER_VALUE = 9.6
#: Below this many distinct values in the sample, a leaf's row groups are dictionary-encoded and
#: Parquet's dictionary filter already skips on equality: a bloom filter would add bytes only.
BLOOM_MIN_DISTINCT = 1000
#: ...nor when the distinct values are under this share of the values present (a few values repeat).
BLOOM_MIN_DISTINCT_SHARE = 0.01
_NO_BLOOM = {"boolean"}  # two values: the dictionary or the statistics already decide


@dataclass
class Recommendation:
    schema: str                  # draft-layout DDL, for pyspark_ext.shred
    spec_schema: str             # the same as struct<...>, Spark's spec-layout shredding schema
    report: list[dict[str, object]]
    #: dotted paths whose shredded leaf gets a bloom filter (``write_shredded(bloom_filters=...)``)
    bloom_filters: list[str] = field(default_factory=list)
    #: SQL expressions each file is sorted by before it is written (``write_shredded(sort_by=...)``)
    sort_by: list[str] = field(default_factory=list)
    #: SQL expressions each file is clustered by, a z-order of them (``write_shredded(cluster_by=...)``);
    #: empty where ``sort_by`` is not: each orders the rows
    cluster_by: list[str] = field(default_factory=list)

    def format_report(self) -> str:
        cols = ["path", "type", "frequency", "avg_bytes", "present", "residual", "score", "shred",
                "filters", "distinct", "write", "reason"]
        rows = [[_cell(r.get(c, "")) for c in cols] for r in self.report]
        widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
        line = lambda cells: "  ".join(x.ljust(w) for x, w in zip(cells, widths))  # noqa: E731
        return "\n".join([line(cols), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _cell(v: object) -> str:
    if isinstance(v, float):
        return f"{v:.3f}" if v < 1000 else f"{v:.0f}"
    return str(v)


def parse_json_path(path: str) -> list[Segment] | None:
    """``$.a.b[0]['c d']`` as ["a", "b", 0, "c d"]; None for a path the advisor does not shred by."""
    if not path.startswith("$"):
        return None
    out: list[Segment] = []
    for m in re.finditer(r"\.([^.\[]+)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]|(.)", path[1:]):
        key, index, q1, q2, junk = m.groups()
        if junk is not None:
            return None
        out.append(int(index) if index is not None else key if key is not None else q1 if q1 is not None else q2)
    return out


def widest_type(types: Counter[str]) -> tuple[str | None, int]:
    """The typed_value type for a path's observed types and how many rows it holds: the commonest
    kind, integers and decimals counting as one number kind whose widest exact type wins."""
    kinds: Counter[str] = Counter()
    numbers: list[tuple[int, int]] = []  # (integer digits, scale)
    for t, n in types.items():
        m = _DECIMAL.fullmatch(t)
        if t in _INTEGERS or m:
            kinds["number"] += n
            numbers.append((_INTEGERS[t], 0) if t in _INTEGERS else (int(m[1]) - int(m[2]), int(m[2])))
        elif t in _SCALARS:
            kinds[_SCALARS[t]] += n
        elif t not in ("VOID", "NULL"):
            kinds["variant"] += n  # objects and arrays: kept whole at a leaf path
    if not kinds:
        return None, 0
    kind, rows = kinds.most_common(1)[0]
    if kind != "number":
        return kind, rows
    digits, scale = max(d for d, _ in numbers), max(s for _, s in numbers)
    if scale == 0:
        return next(k.lower() for k, d in sorted(_INTEGERS.items(), key=lambda kv: kv[1]) if d >= digits), rows
    return f"decimal({min(38, digits + scale)},{scale})", rows


def sample_stats(sample_df: DataFrame, column: str, paths: list[str]) -> dict[str, PathStats]:
    """One Spark job: per candidate path, rows per ``schema_of_variant`` type and JSON bytes."""
    from pyspark.sql import functions as F
    def value(p: str):  # noqa: ANN202 - a Column
        return F.try_variant_get(F.col(column), F.lit(p), "variant")
    entries = [F.struct(F.lit(p).alias("p"), F.schema_of_variant(value(p)).alias("t"),
                        F.to_json(value(p)).alias("j"))
               for p in paths]
    rows = (sample_df.select(F.explode(F.array(*entries)).alias("e"))
            .groupBy("e.p", "e.t").agg(F.count(F.lit(1)).alias("rows"), F.sum(F.length("e.j")).alias("bytes"),
                                       F.approx_count_distinct("e.j").alias("distinct"))
            .collect())
    stats: dict[str, PathStats] = defaultdict(PathStats)
    for r in rows:
        s = stats[r["p"]]
        s.rows += r["rows"]
        if r["t"] is not None and r["t"] != "VOID":
            s.types[r["t"]] += r["rows"]
            s.json_bytes += r["bytes"] or 0
            s.distinct += r["distinct"] or 0
    return stats


def _of(vp: VariantPath, column: str, table: str | None) -> bool:
    """Whether ``vp`` is a path of ``column`` (of ``table``, or of any table), as Spark matches names."""
    return vp.column.lower() == column.lower() and (table is None or vp.table.lower() == table.lower())


def _candidates(analysis: WorkloadAnalysis, column: str, table: str | None) -> Counter[str]:
    freq: Counter[str] = Counter()
    for vp, n in analysis.variant_paths.items():
        if _of(vp, column, table):
            freq[vp.path] += n
    return freq


def _filters(analysis: WorkloadAnalysis, column: str, table: str | None) -> dict[str, Counter[str]]:
    """Per path of ``column``: how often the workload filters it by equality and by range."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for (vp, kind), n in analysis.variant_filters.items():
        if _of(vp, column, table):
            out[vp.path][kind] += n
    return out


def choose(freq: Counter[str], stats: dict[str, PathStats], max_leaves: int,
           max_depth: int) -> tuple[list[tuple[list[Segment], str]], list[dict[str, object]]]:
    """The shredded paths with their types, and one report row per candidate path."""
    report: list[dict[str, object]] = []
    freq = _merge_elements(freq, stats)
    for path, n in freq.items():
        segments = parse_json_path(path)
        s = stats.get(path, PathStats())
        typ, typed_rows = widest_type(s.types)
        present = sum(s.types.values())
        avg = s.json_bytes / present if present else 0.0
        row: dict[str, object] = {
            "path": path, "type": typ or "-", "frequency": n, "avg_bytes": avg,
            "present": present / s.rows if s.rows else 0.0,
            "residual": (present - typed_rows) / s.rows if s.rows else 0.0,
            "score": n * avg * (present / s.rows if s.rows else 0.0), "shred": False, "_segments": segments}
        if not segments or isinstance(segments[0], int):
            row["reason"] = "whole value or top-level array: not shredded by path"
        elif len(segments) > max_depth:
            row["reason"] = f"deeper than max_depth={max_depth}"
        elif typ in (None, "variant"):
            row["reason"] = "no scalar values in the sample"
        report.append(row)
    report.sort(key=lambda r: (-float(r["score"]), str(r["path"])))  # type: ignore[arg-type]
    chosen: list[tuple[list[Segment], str]] = []
    for row in report:
        segments = row.pop("_segments")
        if "reason" in row or len(chosen) >= max_leaves:
            row.setdefault("reason", f"beyond max_leaves={max_leaves}")
            continue
        # a path through an array shreds every element alike: [0] and [3] are the same leaf
        key = [s if isinstance(s, str) else 0 for s in segments]  # type: ignore[union-attr]
        if any(_conflicts(key, [s if isinstance(s, str) else 0 for s in c]) for c, _ in chosen):
            row["reason"] = "same leaf as, or inside, a chosen path"
            continue
        chosen.append((segments, str(row["type"])))  # type: ignore[arg-type]
        row["shred"] = True
    return chosen, report


def write_choices(report: list[dict[str, object]], filters: dict[str, Counter[str]],
                  stats: dict[str, PathStats], column: str) -> tuple[list[str], list[str], list[str]]:
    """Bloom-filtered paths, sort expressions and clustering expressions (one of the two empty)
    for the shredded rows of ``report``, from the workload's ``filters``; fills each row's
    ``filters``, ``distinct``, ``write`` and ``write_cost``.

    A bloom filter goes on a leaf filtered by ``=`` or ``IN`` whose sample holds at least
    ``BLOOM_MIN_DISTINCT`` distinct values, and at least ``BLOOM_MIN_DISTINCT_SHARE`` of its values:
    fewer, and Parquet's dictionary encodes the leaf and its dictionary filter already skips. Files
    are sorted by the one leaf most often filtered by range, so each row group's statistics cover a
    narrow range; a second sort key would order rows only within ties of the first, so where the
    two leaves most often filtered by range are both numbers, dates or timestamps, files are
    clustered by a z-order of the two instead (``write_shredded(cluster_by=...)``), which keeps
    each row group narrow in both. A path through an array is none of these (its elements share
    one leaf)."""
    blooms: list[str] = []
    ranged: list[tuple[int, str, dict[str, object]]] = []  # (range filters, dotted path, report row)
    for row in report:
        path = str(row["path"])
        kinds = filters.get(path, Counter())
        s = stats.get(path, PathStats())
        present = sum(s.types.values())
        row["filters"] = ", ".join(f"{k} {kinds[k]}" for k in ("equality", "range") if kinds[k]) or "-"
        row["distinct"] = s.distinct
        row["write"] = "-"
        segments = parse_json_path(path)
        if not row["shred"] or not segments or any(isinstance(x, int) for x in segments):
            continue
        dotted = ".".join(str(x) for x in segments)
        if kinds["equality"] and row["type"] not in _NO_BLOOM:
            if s.distinct >= BLOOM_MIN_DISTINCT and s.distinct >= BLOOM_MIN_DISTINCT_SHARE * present:
                blooms.append(dotted)
                row["write"] = "bloom filter"
                # at most one bloom bit pattern per distinct value of a row group
                per_value = BLOOM_BITS_PER_VALUE / 8
                avg = float(row["avg_bytes"]) or 1.0  # type: ignore[arg-type]
                row["write_cost"] = (f"up to {per_value:.1f} bytes per distinct value in each row group "
                                     f"(values here average {avg:.0f} bytes: at most "
                                     f"{min(100.0, 100 * per_value / avg):.0f}% more for this leaf); the "
                                     f"writer hashes every value once")
            else:
                row["write_cost"] = (f"no bloom filter: {s.distinct} distinct values in the sample, "
                                     f"which Parquet's dictionary filter already skips by")
        if kinds["range"]:
            ranged.append((kinds["range"], dotted, row))
    if not ranged:
        return blooms, [], []
    ranged.sort(key=lambda r: (-r[0], r[1]))
    top = [(dotted, row) for _, dotted, row in ranged[:2]]
    exprs = [f"try_variant_get({_quote(column)}, '{row['path']}', '{row['type']}')" for _, row in top]
    if len(top) == 2 and all(_clusterable(str(row["type"])) for _, row in top):
        names = " and ".join(dotted for dotted, _ in top)
        _add_write(top[0][1], "cluster", f"clustering by a z-order of {names}: one aggregate pass (each "
                                         f"path's min and max) and one sort of each file's rows")
        _add_write(top[1][1], "cluster", f"clustered with {top[0][0]} (see there)")
        return blooms, [], exprs
    _add_write(top[0][1], "sort", "sorting: one sort of each file's rows before it is written")
    return blooms, exprs[:1], []


def _clusterable(typ: str) -> bool:
    """Whether ``write_shredded(cluster_by=...)`` orders a leaf of this type: numbers, dates and
    timestamps (it scales each to an integer between the written rows' min and max)."""
    return typ in _INTEGERS_LOWER or typ.startswith("decimal") or typ in (
        "double", "float", "date", "timestamp", "timestamp_ntz")


def _add_write(row: dict[str, object], write: str, cost: str) -> None:
    """Adds a write choice (and its cost) to a report row that may already have a bloom filter."""
    if row["write"] == "bloom filter":
        row["write"], row["write_cost"] = f"bloom filter, {write}", f"{row['write_cost']}; {cost}"
    else:
        row["write"], row["write_cost"] = write, cost


def _merge_elements(freq: Counter[str], stats: dict[str, PathStats]) -> Counter[str]:
    """Paths that differ only in array indexes are one shredded leaf (shredding covers every
    element): their frequencies add up on the one whose sample holds the most values."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for path in freq:
        segments = parse_json_path(path)
        key = tuple(0 if isinstance(x, int) else x for x in segments) if segments else (path,)
        groups[key].append(path)
    merged: Counter[str] = Counter()
    for paths in groups.values():
        best = max(paths, key=lambda p: (sum(stats.get(p, PathStats()).types.values()), p))
        merged[best] = sum(freq[p] for p in paths)
    return merged


def _conflicts(a: list[Segment], b: list[Segment]) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _quote(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else "`" + name.replace("`", "``") + "`"


def render(chosen: list[tuple[list[Segment], str]]) -> str:
    """Draft-layout DDL of the chosen paths: ``a bigint, b struct<c: string>, l array<struct<x: int>>``."""
    tree: dict = {}
    for segments, typ in chosen:
        node = tree
        for i, seg in enumerate(segments):
            key: Segment = 0 if isinstance(seg, int) else seg
            if i == len(segments) - 1:
                node[key] = typ
            else:
                node = node.setdefault(key, {})

    def typ_of(node: dict | str) -> str:
        if isinstance(node, str):
            return node
        if list(node) == [0]:
            return f"array<{typ_of(node[0])}>"
        fields = ", ".join(f"{_quote(str(k))}: {typ_of(v)}" for k, v in node.items() if k != 0)
        return f"struct<{fields}>"

    return ", ".join(f"{_quote(str(k))} {typ_of(v)}" for k, v in tree.items() if k != 0)


def recommend_shredding(analysis: WorkloadAnalysis, sample_df: DataFrame, column: str,
                        max_leaves: int = 32, max_depth: int = 4, table: str | None = None,
                        sample_rows: int = 100_000) -> Recommendation:
    """Shredding schema for VARIANT ``column``: the workload's paths of that column (of ``table``,
    or of every table with such a column), ranked by frequency times the sample's bytes."""
    freq = _candidates(analysis, column, table)
    stats = sample_stats(sample_df.limit(sample_rows), column, sorted(freq)) if freq else {}
    chosen, report = choose(freq, stats, max_leaves, max_depth)
    blooms, sort_by, cluster_by = write_choices(report, _filters(analysis, column, table), stats, column)
    schema = render(chosen)
    spec = "struct<" + ", ".join(p.replace(" ", ": ", 1) for p in top_level_fields(schema)) + ">" if schema else ""
    return Recommendation(schema, spec, report, blooms, sort_by, cluster_by)
