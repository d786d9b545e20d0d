"""The optimizer rules' SQL fixtures (``tests/rules/fixtures/<Rule>.sql``): queries, each with the
read schema it must have with the extension on, one line per scan.

A case is the comment lines directly above its query (the first names the case), the query (one
line or more, ending with ``;``), then one line per scan, ``<table>: <read schema>``, the schema
as ``pyspark_ext.explain_read_schema`` reports it::

    -- project_filter
    SELECT user.geo.city FROM events WHERE user.geo.country = 'US';
    events: struct<user:struct<geo:struct<country:string,city:string>>>

A comment block followed by a blank line is a note on the cases below it, no case's. Anything
that does not fit (an expectation without a query, a query without expectations or without its
``;``, a schema that is not a struct, two cases of one name) is a ``FixtureError`` naming the file
and line: the driver fails its collection on it rather than skip the case. Parsing needs no Spark.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "rules" / "fixtures"

_EXPECTATION = re.compile(r"^(\w+):\s*(\S.*)$")


class FixtureError(ValueError):
    """A fixture file that does not follow the format, with its file and line."""


@dataclass(frozen=True)
class Case:
    file: str  # the fixture file's name, ``<Rule>.sql``
    line: int  # the query's first line
    name: str  # the case's first comment line ('' when it has none)
    sql: str
    scans: tuple[tuple[str, str], ...]  # (table, read schema), in the file's order

    @property
    def rule(self) -> str:
        return self.file.removesuffix(".sql")

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"

    @property
    def tables(self) -> frozenset[str]:
        return frozenset(table for table, _ in self.scans)

    @property
    def read_schemas(self) -> list[str]:
        return sorted(schema for _, schema in self.scans)


def parse(text: str, file: str) -> list[Case]:
    """The cases of one fixture file's ``text``; a ``FixtureError`` where it breaks the format."""
    cases: list[Case] = []
    comments: list[str] = []  # the comment lines since the last blank line
    query: list[str] = []  # the lines of a query not yet ended by ';'
    sql, name, start = "", "", 0  # the last query, its case's name and first line
    scans: list[tuple[str, str]] = []

    def fail(number: int, why: str) -> FixtureError:
        return FixtureError(f"{file}:{number}: {why}")

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if query:
            if not line or line.startswith("--"):
                raise fail(start, "a query without its ';'")
            query.append(line)
        else:
            expectation = _EXPECTATION.match(line)
            if sql and expectation:
                scans.append((expectation.group(1), _schema(expectation.group(2), lambda why: fail(number, why))))
                continue
            if sql:
                if not scans:
                    raise fail(start, "a query without an expected read schema below it")
                cases.append(Case(file, start, name, sql, tuple(scans)))
                sql, scans = "", []
            if expectation:
                raise fail(number, f"an expected read schema without a query above it: {line!r}")
            if not line:
                comments = []
                continue
            if line.startswith("--"):
                comments.append(line.removeprefix("--").strip())
                continue
            start, name, comments, query = number, (comments[0] if comments else ""), [], [line]
        if query[-1].endswith(";"):
            sql, query = " ".join(query).removesuffix(";").strip(), []
    if query:
        raise fail(start, "a query without its ';'")
    if sql:
        if not scans:
            raise fail(start, "a query without an expected read schema below it")
        cases.append(Case(file, start, name, sql, tuple(scans)))
    names = [case.name for case in cases if case.name]
    for case in cases:
        if names.count(case.name) > 1:
            raise fail(case.line, f"two cases named {case.name!r}")
    return cases


def _schema(text: str, fail) -> str:
    if not text.startswith("struct<") or not _balanced(text):
        raise fail(f"not a read schema (struct<...>): {text!r}")
    return text


def _balanced(schema: str) -> bool:
    depth = 0
    for ch in schema:
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def load(directory: Path = FIXTURES) -> list[Case]:
    files = sorted(directory.glob("*.sql"))
    if not files:
        raise FixtureError(f"no fixture files in {directory}")
    return [case for path in files for case in parse(path.read_text(), path.name)]


def load_rule(rule: str) -> list[Case]:
    path = FIXTURES / f"{rule}.sql"
    return parse(path.read_text(), path.name)


# The tables the fixtures' queries name besides ``events`` (the nested event log of
# ``tests/conftest.py``). Catalog tables over Parquet files, so each query resolves them afresh
# under the setting it runs with: a temp view made from a DataFrame keeps the plan analysed when it
# was made, which for a shredded VARIANT would carry the extension's reading into the stock run.

#: Arrays of structs holding arrays, and arrays of arrays, with null and empty arrays, null
#: elements and null fields at every level (``NarrowPrunedGenerators``).
ARRAYS = """SELECT * FROM VALUES
    (1, array(named_struct('x', 1, 'y', 'a', 'inner', array(named_struct('p', 1, 'q', 'p'), null,
                                                           named_struct('p', null, 'q', 'r'))),
              named_struct('x', 2, 'y', 'b', 'inner', array())),
        array(array(named_struct('p', 10, 'q', 'u')), null, array())),
    (2, array(null, named_struct('x', 3, 'y', null, 'inner', null)), array(null)),
    (3, null, null),
    (4, array(), array()),
    (5, array(named_struct('x', null, 'y', 'c', 'inner', array(named_struct('p', 5, 'q', null)))),
        array(array(named_struct('p', 11, 'q', 'v'), null, named_struct('p', 12, 'q', null))))
    AS g(id, a, aa)"""

#: Tables whose columns are VARIANTs: their cases run where the extension's variant half does
#: (``pyspark_ext.jar.carries_variant``: Spark 4.1 and later).
VARIANT_TABLES = frozenset({"spec", "spec_one"})
TABLES = frozenset({"events", "arrays"}) | VARIANT_TABLES
