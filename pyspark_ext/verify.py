"""Shadow run of a workload: each query with the extension off and on, over the user's tables.

``python -m pyspark_ext verify --queries workload.sql [--conf k=v ...]`` reads one statement per
``;`` (split by sqlglot's Spark tokenizer, so semicolons in strings and comments do not split),
runs statements that are not queries (``SET``, ``USE``, ``CREATE TEMP VIEW``, ...) once, in order,
as setup, and runs every query both ways, stock Spark first. A statement is setup only when Spark
parses it: one that does not parse (a mistyped ``SELEC``) is a query that fails, reported with its
file and line. Rows are compared as multisets, or in order where the query has a top-level ORDER
BY (rows that tie on the sort keys in any order, when the keys are output columns); errors by
class, Spark's wrapper errors looked through (``outcome``). Per query it reports same,
different, or failed both ways (the same error with the extension off and on: usually a mistake in
the workload, so it fails the gate unless allowed), the leaves and bytes its scans read
(``explain_read_schema``) and its time, both ways; then totals. Times are of warm runs only: after
the compared run each way, the query runs ``repeat`` more times each way, alternating which goes
first (``alternating.alternate``), and the medians are reported.

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
from .alternating import ResultMismatch, alternate, canonical_rows
from .loaded import ExtensionNotLoadedError, require_extension
from .outcome import Outcome, difference, run

SAME, DIFFERENT, FAILED_BOTH_WAYS = "same", "different", "failed both ways"
OFF, ON = "off", "on"
UNTIMED = "its rows change from run to run, so its times are not compared"


class SetupError(RuntimeError):
    """A setup statement that Spark parses but fails to run; the message says where it is."""


@dataclass(frozen=True)
class Statement:
    text: str
    where: str = ""            # "workload.sql:12": the file and the line the statement starts on
    error: str | None = None   # why sqlglot's tokenizer could not read it (an unclosed quote)


def split_statements(text: str) -> list[str]:
    """The statements of a SQL script, each as its original text. Text sqlglot cannot tokenize
    (an unclosed quote) stays one statement, for Spark to report."""
    return [s.text for s in sql_script.split_statements(text, "spark")]


def read_statements(files: list[str]) -> list[Statement]:
    """The statements of the workload files, in order, each with where it starts."""
    return [Statement(s.text, f"{f}:{s.line}", s.error)
            for f in files for s in sql_script.split_statements(sql_script.read_text(f), "spark")]


def parse(statement: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(statement, dialect="spark")
    except Exception:  # noqa: BLE001 - Spark SQL sqlglot cannot parse still runs in Spark
        return None


def is_query(spark, statement: str) -> bool:
    """Whether ``statement`` is run both ways and compared; else it is setup, run once.

    A query where sqlglot parses one. Setup needs Spark to parse the statement: one that does not
    parse is a query, so that its error is reported as that query's failure and the run goes on
    (a mistyped query must not stop the run as a failing setup statement). Where sqlglot cannot
    parse a statement Spark can (Spark syntax sqlglot lacks), Spark's plan decides: a command is
    setup."""
    tree = parse(statement)
    if isinstance(tree, exp.Query):
        return True
    command = spark_command(spark, statement)
    if command is None:
        return True
    if tree is not None and not isinstance(tree, exp.Command):  # exp.Command: sqlglot gave up
        return False
    return not command


def spark_command(spark, statement: str) -> bool | None:
    """Whether Spark's parser makes a command of ``statement`` (True) or a query (False); None
    when it cannot parse it. Only parses: nothing runs."""
    try:
        plan = spark._jsparkSession.sessionState().sqlParser().parsePlan(statement)
    except Exception:  # noqa: BLE001 - a statement Spark cannot parse: its query run reports why
        return None
    command = spark._jvm.java.lang.Class.forName("org.apache.spark.sql.catalyst.plans.logical.Command")
    return bool(command.isInstance(plan))


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
    seconds: float | None   # median of the warm runs; None where the query's rows change run to run
    rows: int | None
    error: str | None
    leaves: int
    bytes_read: int

    @classmethod
    def of(cls, o: Outcome, seconds: float | None) -> "Side":
        return cls(None if seconds is None else round(seconds, 3), None if o.error else len(o.rows), o.error,
                   o.leaves, o.bytes_read)


@dataclass
class QueryReport:
    number: int
    sql: str
    result: str   # SAME, DIFFERENT or FAILED_BOTH_WAYS
    detail: str
    off: Side
    on: Side
    where: str = ""

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
    repeat: int = 1

    @property
    def timed(self) -> list[QueryReport]:
        return [q for q in self.queries if q.off.seconds is not None and q.on.seconds is not None]

    def timing(self) -> str:
        """How the times were measured, in words."""
        runs = f"{self.repeat} warm run{'s' if self.repeat > 1 else ''}"
        untimed = len(self.queries) - len(self.timed)
        return (f"median of {runs} each way, alternating which goes first, after one run each way to "
                f"warm up" + (f"; {untimed} quer{'y' if untimed == 1 else 'ies'} untimed: rows change from "
                              f"run to run" if untimed else ""))

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
        def total(side: str, attr: str, queries: list[QueryReport] = self.queries) -> float:
            return sum(getattr(getattr(q, side), attr) for q in queries)
        return {
            "queries": len(self.queries), "same": self.count(SAME), "different": self.differences,
            "failed_both_ways": self.count(FAILED_BOTH_WAYS),
            # of the timed queries only, so that both sides add up the same queries
            "seconds_off": round(total("off", "seconds", self.timed), 3),
            "seconds_on": round(total("on", "seconds", self.timed), 3),
            "timed_queries": len(self.timed), "timing": self.timing(),
            "leaves_off": int(total("off", "leaves")), "leaves_on": int(total("on", "leaves")),
            "bytes_off": int(total("off", "bytes_read")), "bytes_on": int(total("on", "bytes_read")),
        }


def measure(spark, sql: str, repeat: int) -> tuple[Outcome, Outcome, dict[str, float] | None]:
    """The query's first outcome each way, stock Spark first (these are compared), and the median
    seconds each way of ``repeat`` more runs, alternating which way goes first: the first runs
    warm both ways, so neither is charged the JVM's first-run costs. No times (None) where a
    query's rows change from one run to the next the same way."""
    first: dict[str, Outcome] = {}

    def once(config: str) -> tuple[list[Any], float, dict[str, int]]:
        outcome = run(spark, sql, config == ON, config not in first)
        first.setdefault(config, outcome)
        rows = [("error", outcome.error)] if outcome.error is not None else canonical_rows(outcome.rows)
        return rows, outcome.seconds, {}

    try:
        _, seconds, _ = alternate([OFF, ON], repeat, once, sql, group=lambda config: config)
    except ResultMismatch:
        return first[OFF], first[ON], None
    return first[OFF], first[ON], seconds


def verify(spark, statements: list[str] | list[Statement], progress: bool = True, repeat: int = 1) -> Report:
    from tqdm import tqdm

    require_extension(spark, "verify")

    report = Report(repeat=repeat)
    items = [s if isinstance(s, Statement) else Statement(s) for s in statements]
    queries = [is_query(spark, s.text) for s in items]
    bar = tqdm(total=sum(queries), file=sys.stderr, disable=not progress, unit="query", desc="verify")
    for statement, query in zip(items, queries):
        if not query:
            try:  # setup: once, with the session's own settings
                spark.sql(statement.text).collect()
            except Exception as e:
                at = f"at {statement.where}: " if statement.where else ""
                raise SetupError(f"{at}{' '.join(statement.text.split())[:200]}: {e}") from e
            report.setup.append(statement.text)
            continue
        off, on, seconds = measure(spark, statement.text, repeat)
        result, detail = classify(off, on, sort_keys(statement.text))
        if statement.error:
            detail += f" ({statement.error})"
        if seconds is None:
            detail += f"; {UNTIMED}"
        report.queries.append(QueryReport(len(report.queries) + 1, statement.text, result, detail,
                                          Side.of(off, None if seconds is None else seconds[OFF]),
                                          Side.of(on, None if seconds is None else seconds[ON]), statement.where))
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


def _seconds(side: Side, width: int, align: str) -> str:
    return f"{side.seconds:{align}{width}.2f}" if side.seconds is not None else f"{'-':{align}{width}}"


def format_text(report: Report) -> str:
    lines = [f"{'#':>3}  {'result':<9}  {'leaves off/on':>13}  {'bytes off/on':>21}  {'time off/on (s)':>15}  query"]
    for q in report.queries:
        text = " ".join(q.sql.split())
        label = {SAME: "same", DIFFERENT: "DIFFERENT", FAILED_BOTH_WAYS: "FAILED"}[q.result]
        lines.append(f"{q.number:>3}  {label:<9}  {q.off.leaves:>6}/{q.on.leaves:<6}  "
                     f"{_size(q.off.bytes_read):>10}/{_size(q.on.bytes_read):<10}  "
                     f"{_seconds(q.off, 7, '>')}/{_seconds(q.on, 7, '<')}  {text[:70]}")
        if not q.same:
            lines.append(f"     {q.where + ': ' if q.where else ''}{q.detail}")
    t = report.totals()
    lines.append(f"verify: {t['queries']} queries, {t['same']} same, {t['different']} different, "
                 f"{t['failed_both_ways']} failed both ways; leaves {t['leaves_off']} -> {t['leaves_on']}, "
                 f"bytes {_size(t['bytes_off'])} -> {_size(t['bytes_on'])}, time {t['seconds_off']:.2f} s -> "
                 f"{t['seconds_on']:.2f} s ({t['timing']})")
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
         progress: bool = True, allow_failing: bool = False, repeat: int = 1) -> int:
    settings = {}
    for item in confs:
        if "=" not in item:
            print(f"verify: --conf {item!r} is not key=value", file=sys.stderr)
            return 2
        key, value = item.split("=", 1)
        settings[key.strip()] = value.strip()
    if repeat < 1:
        print(f"verify: --repeat {repeat}: give 1 or more warm runs to time", file=sys.stderr)
        return 2
    try:
        statements = read_statements(files)
    except sql_script.ScriptError as e:
        print(f"verify: --queries {e}", file=sys.stderr)
        return 2
    if not statements:
        print(f"verify: no queries in {', '.join(files)}", file=sys.stderr)
        return 2
    spark = session(settings, master)
    if not any(is_query(spark, s.text) for s in statements):
        print(f"verify: no queries in {', '.join(files)}", file=sys.stderr)
        return 2
    try:
        report = verify(spark, statements, progress, repeat)
    except ExtensionNotLoadedError as e:
        print(f"verify: {e}", file=sys.stderr)
        return 2
    except SetupError as e:
        print(f"verify: setup statement failed {e}", file=sys.stderr)
        return 2
    print(format_json(report) if fmt == "json" else format_text(report))
    failed = report.count(FAILED_BOTH_WAYS)
    if failed and not allow_failing:
        print(f"verify: {failed} quer{'y' if failed == 1 else 'ies'} failed both ways (a mistake in the "
              f"workload, such as a misspelt table or column?); fix {'it' if failed == 1 else 'them'}, "
              f"or pass --allow-failing-queries if failing is expected", file=sys.stderr)
    return report.exit_code(allow_failing)
