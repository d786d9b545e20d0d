"""Differential fuzzer: ``python -m devtools.fuzz --queries N --seed S [--kind ...]``.

Writes its own tables (``data``) to a temp dir, starts a Spark session with the extension in
strict mode (an internal error in a rule fails the query instead of falling back), and runs each
random query with the extension off and on. Rows must match (as multisets, or in order where the
query orders totally); errors must match by error class, or both be errors of a row's value
(which row fails first depends on the plan); VARIANT values and ``schema_of_variant`` as the
variant spec's equivalence classes say (``equivalence``). A difference that stock Spark's own
answer without its scan rewrite of variant reads removes is a stock-Spark divergence, reported
apart (``PUSH_VARIANT``). A mismatch is reduced to a small query and saved as a regression test.
The last line printed is ``fuzz: N queries, M mismatches, E errors, D stock-Spark divergences``
(E: queries that failed alike both ways); the exit code is 1 on any mismatch.

Query ``i`` of seed ``S`` is drawn from ``random.Random(S * 1_000_003 + i)``, so one query is
reproduced with ``--seed S --start i --queries 1``.

``--table-format iceberg`` writes the same tables as Iceberg tables with a history of deletes and
schema and partition evolution (``fuzz_iceberg``), and runs the same queries over them, each
judged against stock Spark + Iceberg on its own table; about one query in three reads older
snapshots of its table by time travel (``VERSION AS OF``, ``TIMESTAMP AS OF``), whose ids and
commit times are those of the tables written, so a seed reproduces the same SQL over the same
tables only.
"""
from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyspark
from pyspark.sql import SparkSession
from sqlglot import exp

from pyspark_ext._variant_types import VARIANT_TYPES
from pyspark_ext import jar
from . import fuzz_iceberg, grammar_nested, grammar_variant
from .case import Case
from .data import write_tables
from .equivalence import exact_numeric_schemas
from pyspark_ext.outcome import ROW_ERRORS, Outcome, difference, run
from pyspark_ext.scoped_confs import scoped_confs
from .reduce import reduce
from .regressions import save
from .skipping import Skips

ANSI = "spark.sql.ansi.enabled"
GRAMMARS = {"nested": grammar_nested.query, "variant": grammar_variant.query}


@dataclass
class Result:
    case: Case
    want: Outcome
    got: Outcome
    finding: str | None
    explained: str | None = None
    diverged: str | None = None  # how stock Spark's answer differed from its own without PUSH_VARIANT


def draw(seed: int, number: int, kind: str, table_format: str = "parquet",
         tables: dict[str, str] | None = None) -> Case:
    """Query ``number`` of ``seed``. In Iceberg mode, with the ``tables`` it will run over (their
    recorded snapshots), about one in three reads older snapshots (``fuzz_iceberg.travel``)."""
    rnd = random.Random(seed * 1_000_003 + number)
    name = kind if kind != "all" else rnd.choice(sorted(GRAMMARS))
    case = GRAMMARS[name](rnd)
    case.ansi = rnd.random() < 0.5
    if table_format == "iceberg":
        # every logical table is then an Iceberg table stock Spark reads (there is no draft
        # layout): each query is judged against stock Spark on its own table
        case.reference = None
        table = (tables or {}).get(case.table)
        fuzz_iceberg.travel(rnd, case, getattr(table, "snapshots", ()), getattr(table, "refs", ()))
    return case


#: Stock Spark's own behaviours that make it fail where the extension's plan does not; each is
#: (when it applies, the setting that turns it off, what it explains). Where stock Spark fails so
#: and the extension does not, the stock query runs again with the setting: if it then agrees,
#: the difference is explained, not counted.
EXPLANATIONS = [
    # Stock Spark casts the VARIANT reads it pushes into a Parquet scan in the reader, for every
    # row, so a bad value in a row that a filter or join then drops fails the query (Spark's conf
    # deferCastError documents it).
    (lambda error: error in ROW_ERRORS, {"spark.sql.variant.pushVariantIntoScan.deferCastError": "true"},
     "stock Spark casts in its scan before filtering"),
    # Under spark.sql.planChangeValidation (tests set it), some of Spark's own rules fail the
    # validation on stock plans (RewriteIntersectAll, seen on correlated scalar subqueries too).
    (lambda error: error.startswith("PLAN_VALIDATION_FAILED"), {"spark.sql.planChangeValidation": "false"},
     "stock Spark fails its own plan-change validation"),
]


#: Stock Spark rewrites the VARIANT reads of a query into fields of its Parquet scan. Its answer
#: then sometimes differs from its own answer without that rewrite: it casts in the scan, for every
#: row and before filters and joins, values the query would never cast (an error where there are
#: no rows), and it builds a map cast from a shredded object in the order of the file's shredded
#: fields, then the residual's, where a variant's keys (and the unshredded table's maps) are sorted.
#: Where the extension's answer differs from stock Spark's and stock Spark then agrees with it once
#: the rewrite is off, the difference is stock Spark's own, a stock-Spark divergence: reported
#: apart from mismatches (the extension's), never hidden.
PUSH_VARIANT = "spark.sql.variant.pushVariantIntoScan"


def check(spark: SparkSession, case: Case, paths: dict[str, str]) -> Result:
    """Stock Spark on the reference table against the extension on the case's table."""
    judged = judged_as(case)
    with scoped_confs(spark, {ANSI: str(case.ansi).lower()}):
        want = run(spark, judged.sql(paths, table=case.reference), enabled=False)
        # the read report of variant queries: how much the shredded tables' skipping skipped
        got = run(spark, judged.sql(paths), enabled=True, scans=case.kind == "variant")
        finding = difference(want, got, case.order)
        # Stock Spark failed where the extension did not, or failed otherwise (a validation
        # failure of stock Spark's plan hides the row error both plans then meet).
        if finding and want.error and want.error != got.error:
            for applies, settings, reason in EXPLANATIONS:
                if applies(want.error) and _agrees(spark, judged, paths, settings, got):
                    return Result(case, want, got, None, explained=reason)
        if finding and case.kind == "variant" and _agrees(spark, judged, paths, {PUSH_VARIANT: "false"}, got):
            return Result(case, want, got, None, diverged=finding)
    return Result(case, want, got, finding)


#: Iceberg's scans: of a relation as Iceberg plans it, and of a staged set of a relation's files
ICEBERG_SCANS = {"SparkBatchQueryScan": "Iceberg", "SparkStagedScan": "Iceberg"}


def iceberg_readers(scans: list[dict]) -> str:
    """Who read a query's files: the extension, Iceberg's reader, or both in one query."""
    kinds = {ICEBERG_SCANS.get(s.get("format"), "the extension") for s in scans}
    staged = any(s.get("format") == "SparkStagedScan" for s in scans)
    if kinds == {"Iceberg", "the extension"} and staged:
        return "by both readers in one query"
    return " and ".join(sorted(f"by {k}" for k in kinds))


def judged_as(case: Case) -> Case:
    """The case as it is run: where the reference table holds the same events in another storage
    (the draft layout against the unshredded table), ``schema_of_variant`` is read with the exact
    numeric types as one (``equivalence.exact_numeric_schemas``), as the variant spec allows."""
    if case.reference is None or case.reference == case.table:
        return case
    return dataclasses.replace(case, ast=exact_numeric_schemas(case.ast))


def _agrees(spark: SparkSession, case: Case, paths: dict[str, str], settings: dict[str, str], got: Outcome) -> bool:
    before = {k: spark.conf.get(k, None) for k in settings}
    for k, v in settings.items():
        spark.conf.set(k, v)
    try:
        again = run(spark, case.sql(paths, table=case.reference), enabled=False)
    finally:
        for k, v in before.items():
            spark.conf.unset(k) if v is None else spark.conf.set(k, v)
    return difference(again, got, case.order) is None


def category(finding: str) -> str:
    """What kind of mismatch (with the error classes involved), so a reduction keeps to it."""
    if finding.startswith("errors differ"):
        return finding.split(" (")[0]
    if finding.startswith("expected error"):
        return finding.split(",")[0]
    if "got error " in finding:
        return "got error " + finding.split("got error ")[1].split(":")[0]
    return "rows differ"


def shrink(spark: SparkSession, result: Result, paths: dict[str, str], budget: int) -> Result:
    kind = category(result.finding or "")

    def still_fails(ast: exp.Expression) -> bool:
        r = check(spark, _with(result.case, ast), paths)
        return r.finding is not None and category(r.finding) == kind

    small = reduce(result.case.ast, still_fails, budget=budget)
    return check(spark, _with(result.case, small), paths)


def _with(case: Case, ast: exp.Expression) -> Case:
    top_order = ast.args.get("order") if isinstance(ast, exp.Select) else None
    return Case(ast=ast, kind=case.kind, table=case.table, order=case.order if top_order else None,
                ansi=case.ansi, reference=case.reference, notes=case.notes)


def session(master: str, confs: dict[str, str]) -> tuple[SparkSession, bool]:
    """The active session if there is one (not ours to stop), else a new strict one."""
    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    from pyspark_ext.session import local_session
    # Spark checks each rule's output plan for integrity, so a rule that breaks it fails the query
    # that triggers it (as in the tests) instead of going unnoticed.
    checked = {"spark.sql.planChangeValidation": "true", **confs}
    return local_session("pyspark-ext-fuzz", master=master, confs=checked, strict=True), True


@dataclass
class Summary:
    queries: int = 0
    mismatches: int = 0
    travelled: int = 0  # queries that read older snapshots (Iceberg mode)
    errors: Counter = field(default_factory=Counter)  # class -> queries failing alike both ways
    messages: dict[str, str] = field(default_factory=dict)  # class -> its first message
    explained: Counter = field(default_factory=Counter)  # reason -> differences it explains
    findings: Counter = field(default_factory=Counter)  # (kind of mismatch, table) -> mismatches
    divergences: Counter = field(default_factory=Counter)  # (kind of difference, table) -> stock-Spark divergences
    skips: Skips = field(default_factory=Skips)  # what Parquet's skipping skipped, over variant queries
    readers: Counter = field(default_factory=Counter)  # who read an Iceberg variant query's files -> queries

    def lines(self) -> list[str]:
        out = [f"failed alike both ways: {k} {v} (e.g. {self.messages[k][:160]})" for k, v in self.errors.most_common()]
        out += [f"explained: {v} where {k}" for k, v in self.explained.most_common()]
        out += [f"stock-Spark divergences: {v} x {k[0]} on {k[1]} (stock Spark agrees with the extension once "
                f"{PUSH_VARIANT}=false)" for k, v in self.divergences.most_common()]
        out += [f"mismatches: {v} x {k[0]} on {k[1]}" for k, v in self.findings.most_common()]
        out += [self.skips.line()] if self.skips.queries else []
        out += [f"time travel: {self.travelled} of {self.queries} queries read older snapshots"] if self.travelled else []
        out += [f"readers of Iceberg variant queries: {', '.join(f'{v} {k}' for k, v in self.readers.most_common())}"
                ] if self.readers else []
        return out + [f"fuzz: {self.queries} queries, {self.mismatches} mismatches, {sum(self.errors.values())} errors, "
                      f"{sum(self.divergences.values())} stock-Spark divergences"]


def fuzz(spark: SparkSession, paths: dict[str, str], queries: int, seed: int, kind: str, start: int = 0,
         reduce_limit: int = 3, save_to: str | None = None, budget: int = 80, progress: bool = True,
         out=None, table_format: str = "parquet") -> Summary:
    from tqdm import tqdm

    out = out or sys.stdout

    summary = Summary()
    reduced: set[tuple[str, str]] = set()  # one reduction per kind of mismatch and table
    bar = tqdm(range(start, start + queries), file=sys.stderr, disable=not progress, unit="query",
               desc=f"fuzz seed {seed}")
    for number in bar:
        case = draw(seed, number, kind, table_format, paths)
        result = check(spark, case, paths)
        summary.queries += 1
        summary.travelled += "travel" in case.notes
        summary.skips.add(result.got.scans)
        if table_format == "iceberg" and result.got.scans:
            summary.readers[iceberg_readers(result.got.scans)] += 1
        if result.diverged:
            summary.divergences[(category(result.diverged), case.table)] += 1
            print(f"STOCK-SPARK DIVERGENCE seed {seed} query {number} ({case.kind} on {case.table}, ansi {case.ansi}): "
                  f"{result.diverged}\n  {case.sql()}\n  stock Spark agrees with the extension once {PUSH_VARIANT}=false",
                  file=out, flush=True)
            continue
        if result.finding is None:
            if result.explained:
                summary.explained[result.explained] += 1
            elif result.got.error:
                summary.errors[result.got.error] += 1
                summary.messages.setdefault(result.got.error, result.got.message)
            continue
        summary.mismatches += 1
        bar.set_postfix(mismatches=summary.mismatches)
        print(f"MISMATCH seed {seed} query {number} ({case.kind} on {case.table}, ansi {case.ansi}): "
              f"{result.finding}\n  {case.sql()}", file=out, flush=True)
        seen = (category(result.finding), case.table)
        summary.findings[seen] += 1
        if len(reduced) < reduce_limit and seen not in reduced:
            reduced.add(seen)
            small = shrink(spark, result, paths, budget)
            finding = small.finding or result.finding
            print(f"  reduced: {small.case.sql()}\n  finding: {finding}", file=out, flush=True)
            if save_to:
                saved = save(save_to, small.case if small.finding else case, finding, seed, number)
                print(f"  saved to {saved}", file=out, flush=True)
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kind", choices=["nested", "variant", "all"], default="all")
    parser.add_argument("--table-format", choices=["parquet", "iceberg"], default="parquet",
                        help="parquet: Parquet files; iceberg: Iceberg tables with deletes and schema and "
                             "partition evolution (Spark 4.1 and 3.5)")
    parser.add_argument("--start", type=int, default=0, help="number of the first query (to reproduce one)")
    parser.add_argument("--rows", type=int, default=1200, help="rows of the nested table (a third as many variant rows)")
    parser.add_argument("--dir", default=None, help="where to write the tables (default: a temp dir)")
    parser.add_argument("--reduce", type=int, default=3, help="reduce at most this many mismatches")
    parser.add_argument("--reduce-budget", type=int, default=80, help="query runs a reduction may take")
    parser.add_argument("--save", default=None,
                        help="directory for regression files (default: tests/harness/fuzz_regressions if ./tests "
                             "exists; with --table-format iceberg none, as those files are run over Parquet files)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.kind != "nested" and not VARIANT_TYPES:
        parser.error(f"--kind {args.kind}: pyspark {pyspark.__version__} has no VARIANT type; "
                     "use --kind nested")
    iceberg = args.table_format == "iceberg"
    if iceberg and (why := fuzz_iceberg.unsupported_line(jar.spark_line())):
        parser.error(why)
    save_to = args.save or ("tests/harness/fuzz_regressions" if Path("tests").is_dir() and not iceberg else None)
    confs = dict(c.split("=", 1) for c in args.conf)
    if iceberg:
        confs = {**fuzz_iceberg.session_confs(jar.spark_line()), **confs}
    writer = fuzz_iceberg.write_tables if iceberg else write_tables

    spark, own = session(args.master, confs)
    try:
        with tempfile.TemporaryDirectory(prefix="pyspark_ext_fuzz_") as tmp:
            directory = Path(args.dir or tmp)
            paths = writer(spark, directory / f"data-{random.randrange(10**9)}", rows=args.rows,
                           variant=args.kind != "nested")
            summary = fuzz(spark, paths, args.queries, args.seed, args.kind, args.start, args.reduce, save_to,
                           budget=args.reduce_budget, progress=not args.no_progress, table_format=args.table_format)
    finally:
        if own:
            spark.stop()
    print("\n".join(summary.lines()))
    return 1 if summary.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
