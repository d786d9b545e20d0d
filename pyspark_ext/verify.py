"""Shadow run of a workload: each query with the extension off and on, over the user's tables.

``python -m pyspark_ext verify --queries workload.sql [--conf k=v ...]`` reads one statement per
``;`` (split by sqlglot's Spark tokenizer, so semicolons in strings and comments do not split),
runs statements that are not queries (``SET``, ``USE``, ``CREATE TEMP VIEW``, ...) once, in order,
as setup, and runs every query twice, stock Spark first. Rows are compared as multisets, or in
order where the query has a top-level ORDER BY (rows that tie on the sort keys in any order, when
the keys are output columns); errors by class. Per query it reports same, different, or failed
both ways (the same error with the extension off and on: usually a mistake in the workload, so it
fails the gate unless allowed), the leaves and bytes its scans read (``explain_read_schema``) and
its time, both ways; then totals.

Exit codes: 0 every query gave the same rows both ways; 1 some query differs; 2 bad arguments, a
workload file that cannot be read, no queries, or a failing setup statement; 3 no query differs but
some failed both ways (0 with ``--allow-failing-queries``).
"""
from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from . import sql_script
from .loaded import ExtensionNotLoadedError, require_extension
from .testing.outcome import Outcome, difference, run

QUERY_STARTS = {"SELECT", "WITH", "FROM", "VALUES", "TABLE", "("}
SAME, DIFFERENT, FAILED_BOTH_WAYS = "same", "different", "failed both ways"


def split_statements(text: str) -> list[str]:
    """The statements of a SQL script, each as its original text. Text sqlglot cannot tokenize
    (an unclosed quote) stays one statement, for Spark to report."""
    return [s.text for s in sql_script.split_statements(text, "spark")]


def parse(statement: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(statement, dialect="spark")
    except Exception:  # noqa: BLE001 - Spark SQL sqlglot cannot parse still runs in Spark
        return None


def is_query(statement: str) -> bool:
    tree = parse(statement)
    if tree is not None:
        return isinstance(tree, exp.Query)
    return statement.lstrip().split(None, 1)[0].upper() in QUERY_STARTS if statement.strip() else False


def sort_keys(statement: str) -> list[int] | None:
    """None: no top-level ORDER BY. Else the output positions of the sort keys, or [] when a key
    is not an output column (then the whole order is compared, ties included)."""
    tree = parse(statement)
    order = tree.args.get("order") if isinstance(tree, exp.Query) else None
    if order is None:
        return None
    outputs = tree.selects if isinstance(tree, exp.Select) else []
    names = [o.alias_or_name for o in outputs]
    keys = []
    for key in order.expressions:
        e = key.this
        if isinstance(e, exp.Literal) and e.is_int:
            keys.append(int(e.this) - 1)
        elif any(e == o or (isinstance(o, exp.Alias) and e == o.this) for o in outputs):
            keys.append(next(i for i, o in enumerate(outputs) if e == o or (isinstance(o, exp.Alias) and e == o.this)))
        elif isinstance(e, exp.Column) and not e.table and e.name in names and names.count(e.name) == 1:
            keys.append(names.index(e.name))
        else:
            return []
    return keys


@dataclass
class Side:
    seconds: float
    rows: int | None
    error: str | None
    leaves: int
    bytes_read: int

    @classmethod
    def of(cls, o: Outcome) -> "Side":
        return cls(round(o.seconds, 3), None if o.error else len(o.rows), o.error, o.leaves, o.bytes_read)


@dataclass
class QueryReport:
    number: int
    sql: str
    result: str   # SAME, DIFFERENT or FAILED_BOTH_WAYS
    detail: str
    off: Side
    on: Side

    @property
    def same(self) -> bool:
        return self.result == SAME


def classify(off: Outcome, on: Outcome, keys: list[int] | None) -> tuple[str, str]:
    """The result of one query run both ways and its detail line."""
    detail = difference(off, on, keys)
    if detail is not None:
        return DIFFERENT, detail
    if off.error is not None:
        message = off.message if off.message and off.message != off.error else ""
        also = f" (extension on: {on.error})" if on.error != off.error else ""  # two row errors
        return FAILED_BOTH_WAYS, f"failed both ways: {off.error}{also}" + (f": {message}" if message else "")
    return SAME, "same rows"


@dataclass
class Report:
    queries: list[QueryReport] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)

    def count(self, result: str) -> int:
        return sum(q.result == result for q in self.queries)

    @property
    def differences(self) -> int:
        return self.count(DIFFERENT)

    def exit_code(self, allow_failing: bool = False) -> int:
        if self.differences:
            return 1
        return 3 if self.count(FAILED_BOTH_WAYS) and not allow_failing else 0

    def totals(self) -> dict[str, Any]:
        def total(side: str, attr: str) -> float:
            return sum(getattr(getattr(q, side), attr) for q in self.queries)
        return {
            "queries": len(self.queries), "same": self.count(SAME), "different": self.differences,
            "failed_both_ways": self.count(FAILED_BOTH_WAYS),
            "seconds_off": round(total("off", "seconds"), 3), "seconds_on": round(total("on", "seconds"), 3),
            "leaves_off": int(total("off", "leaves")), "leaves_on": int(total("on", "leaves")),
            "bytes_off": int(total("off", "bytes_read")), "bytes_on": int(total("on", "bytes_read")),
        }


def verify(spark, statements: list[str], progress: bool = True) -> Report:
    from tqdm import tqdm

    require_extension(spark, "verify")

    report = Report()
    queries = sum(map(is_query, statements))
    bar = tqdm(total=queries, file=sys.stderr, disable=not progress, unit="query", desc="verify")
    for statement in statements:
        if not is_query(statement):
            try:  # setup: once, with the session's own settings
                spark.sql(statement).collect()
            except Exception as e:
                raise RuntimeError(f"{' '.join(statement.split())[:200]}: {e}") from e
            report.setup.append(statement)
            continue
        off = run(spark, statement, enabled=False, scans=True)
        on = run(spark, statement, enabled=True, scans=True)
        result, detail = classify(off, on, sort_keys(statement))
        report.queries.append(QueryReport(len(report.queries) + 1, statement, result, detail,
                                          Side.of(off), Side.of(on)))
        bar.update(1)
        bar.set_postfix(different=report.differences, failed=report.count(FAILED_BOTH_WAYS))
    bar.close()
    return report


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1024 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def format_text(report: Report) -> str:
    lines = [f"{'#':>3}  {'result':<9}  {'leaves off/on':>13}  {'bytes off/on':>21}  {'time off/on (s)':>15}  query"]
    for q in report.queries:
        text = " ".join(q.sql.split())
        label = {SAME: "same", DIFFERENT: "DIFFERENT", FAILED_BOTH_WAYS: "FAILED"}[q.result]
        lines.append(f"{q.number:>3}  {label:<9}  {q.off.leaves:>6}/{q.on.leaves:<6}  "
                     f"{_size(q.off.bytes_read):>10}/{_size(q.on.bytes_read):<10}  "
                     f"{q.off.seconds:>7.2f}/{q.on.seconds:<7.2f}  {text[:70]}")
        if not q.same:
            lines.append(f"     {q.detail}")
    t = report.totals()
    lines.append(f"verify: {t['queries']} queries, {t['same']} same, {t['different']} different, "
                 f"{t['failed_both_ways']} failed both ways; leaves {t['leaves_off']} -> {t['leaves_on']}, "
                 f"bytes {_size(t['bytes_off'])} -> {_size(t['bytes_on'])}, time {t['seconds_off']:.2f} s -> "
                 f"{t['seconds_on']:.2f} s")
    return "\n".join(lines)


def format_json(report: Report) -> str:
    return json.dumps({"queries": [{**asdict(q), "same": q.same} for q in report.queries], "setup": report.setup,
                       "totals": report.totals()}, indent=2)


def session(confs: dict[str, str], master: str | None):
    from pyspark.sql import SparkSession

    from .session import configure
    builder = SparkSession.builder.appName("pyspark-ext-verify")
    if master:
        builder = builder.master(master)
    for key, value in confs.items():
        builder = builder.config(key, value)
    return configure(builder).getOrCreate()


def main(files: list[str], confs: list[str], fmt: str = "text", master: str | None = None,
         progress: bool = True, allow_failing: bool = False) -> int:
    settings = {}
    for item in confs:
        if "=" not in item:
            print(f"verify: --conf {item!r} is not key=value", file=sys.stderr)
            return 2
        key, value = item.split("=", 1)
        settings[key.strip()] = value.strip()
    try:
        statements = [s for f in files for s in split_statements(sql_script.read_text(f))]
    except sql_script.ScriptError as e:
        print(f"verify: --queries {e}", file=sys.stderr)
        return 2
    if not any(map(is_query, statements)):
        print(f"verify: no queries in {', '.join(files)}", file=sys.stderr)
        return 2
    spark = session(settings, master)
    try:
        report = verify(spark, statements, progress)
    except ExtensionNotLoadedError as e:
        print(f"verify: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - a setup statement failed: say which
        print(f"verify: setup statement failed: {e}", file=sys.stderr)
        return 2
    print(format_json(report) if fmt == "json" else format_text(report))
    failed = report.count(FAILED_BOTH_WAYS)
    if failed and not allow_failing:
        print(f"verify: {failed} quer{'y' if failed == 1 else 'ies'} failed both ways (a mistake in the "
              f"workload, such as a misspelt table or column?); fix {'it' if failed == 1 else 'them'}, "
              f"or pass --allow-failing-queries if failing is expected", file=sys.stderr)
    return report.exit_code(allow_failing)
