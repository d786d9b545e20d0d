"""The optimizer rules' SQL fixtures: every case of ``tests/rules/fixtures/<Rule>.sql`` is a test
(its id is ``<Rule>.sql:<line>``) that runs the query with the extension off and on, checks that
both give the same rows (``pyspark_ext.outcome``'s one definition of the same rows) and that the
extension on reads, scan by scan, the read schemas the case lists.

A case costs two lines, the query and one line per scan (a comment line above names it)::

    -- project_filter
    SELECT user.geo.city FROM events WHERE user.geo.country = 'US';
    events: struct<user:struct<geo:struct<country:string,city:string>>>

To add one, write the query with a placeholder line (``events: struct<x>``), run this module,
check the lines the failure prints against what the query should read, and paste them.

The queries name the tables of ``tests.support.rule_fixtures.TABLES``, built once per run, each
only when a case reads it; the format is in ``tests/support/rule_fixtures.py``. A file that breaks
the format fails the collection of this module, naming its file and line; a failing case prints
the lines the query does read, in the fixture's format. Cases that read VARIANT tables run where
the extension's variant half does (Spark 4.1 and later) and are skipped elsewhere.
"""
from __future__ import annotations

import pytest
from pyspark.sql import SparkSession

from pyspark_ext import jar
from tests.support.differential import same_outcome
from tests.support.rule_fixtures import ARRAYS, FIXTURES, TABLES, VARIANT_TABLES, Case, FixtureError, load, parse
from tests.support.variant_data import FULL, mixed_truth, write_spec, write_spec_three_ways

CASES = load()
_UNKNOWN = [f"{case.id}: no table {table!r} (tests.support.rule_fixtures.TABLES)"
            for case in CASES for table in sorted(case.tables - TABLES)]
if _UNKNOWN:
    raise FixtureError("\n".join(_UNKNOWN))


class Tables:
    """The fixtures' tables, each written and registered the first time a case reads it."""

    def __init__(self, spark: SparkSession, events: str, base) -> None:
        self.spark, self.base = spark, base
        self.paths: dict[str, str] = {"events": events}

    def ready(self, names: frozenset[str]) -> None:
        for name in sorted(names - set(self.paths)):
            self.paths[name] = getattr(self, f"_{name}")(str(self.base / name))

    def _arrays(self, path: str) -> str:
        self.spark.sql(ARRAYS).write.parquet(path)
        return self._catalog("arrays", path, "")

    def _spec(self, path: str) -> str:
        # Files shredded three ways, as Spark's writer does per file: read as a Union of scans
        parts = self.base / "spec_parts"
        parts.mkdir()
        write_spec_three_ways(self.spark, self._truth(), parts)
        return self._catalog("spec", str(parts / "table"), "(id BIGINT, v VARIANT)")

    def _spec_one(self, path: str) -> str:
        write_spec(self.spark, self._truth(), path, FULL)
        return self._catalog("spec_one", path, "(id BIGINT, v VARIANT)")

    def _truth(self):
        return mixed_truth(self.spark, 600, seed=3)

    def _catalog(self, name: str, path: str, columns: str) -> str:
        self.spark.sql(f"DROP TABLE IF EXISTS {name}")
        self.spark.sql(f"CREATE TABLE {name} {columns} USING parquet LOCATION '{path}'")
        return path

    def name_of(self, scan: dict) -> str:
        """The fixture's name of the table a scan of the read-schema report reads."""
        table = scan["table"]
        for name, path in self.paths.items():
            if table == name or table.endswith(f".{name}") or table.removeprefix("file:") == path:
                return name
        return table

    def drop(self) -> None:
        for name in self.paths:
            if name != "events":
                self.spark.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.fixture(scope="session")
def rule_tables(spark: SparkSession, events: str, tmp_path_factory):
    tables = Tables(spark, events, tmp_path_factory.mktemp("rule_fixtures"))
    yield tables
    tables.drop()


def _param(case: Case):
    marks = []
    if case.tables & VARIANT_TABLES and not jar.carries_variant():
        marks.append(pytest.mark.skip(reason=f"reads a VARIANT table: the extension's variant half "
                                             f"does not run on Spark {jar.spark_line()}"))
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(case) for case in CASES])
def test_rule_fixture(spark: SparkSession, rule_tables: Tables, case: Case) -> None:
    rule_tables.ready(case.tables)
    _, ext = same_outcome(spark, case.sql)
    read = sorted((rule_tables.name_of(scan), scan["read_schema"]) for scan in ext.scans)
    assert read == sorted(case.scans), (
        f"{case.id} ({case.name}) reads, with the extension on:\n"
        + "\n".join(f"{table}: {schema}" for table, schema in read))


def test_every_fixture_file_is_a_wired_rule_with_cases() -> None:
    files = {path.name for path in FIXTURES.glob("*.sql")}
    assert files and files == {case.file for case in CASES}
    # the table of wired rules that `python -m pyspark_ext rules` prints (checked against the wiring
    # by tests/extension/test_wired_rules.py)
    wired = (FIXTURES.parents[2] / "docs" / "architecture.md").read_text()
    assert all(f"`{name.removesuffix('.sql')}`" in wired for name in files), files


@pytest.mark.parametrize("text, error", [
    ("SELECT 1 FROM events\nevents: struct<id:bigint>\n", "a query without its ';'"),
    ("events: struct<id:bigint>\n", "an expected read schema without a query above it"),
    ("-- a case\nSELECT 1 FROM events;\n\n", "a query without an expected read schema below it"),
    ("SELECT id FROM events;\nevents: bigint\n", "not a read schema"),
    ("SELECT id FROM events;\nevents: struct<id:bigint\n", "not a read schema"),
    ("-- same\nSELECT 1;\nevents: struct<id:bigint>\n-- same\nSELECT 2;\nevents: struct<id:bigint>\n",
     "two cases named 'same'"),
])
def test_a_malformed_fixture_fails_with_its_line(text: str, error: str) -> None:
    with pytest.raises(FixtureError, match=f"^Bad.sql:\\d+: {error}"):
        parse(text, "Bad.sql")


def test_a_case_costs_two_lines() -> None:
    [note, case] = [parse(text, "Rule.sql") for text in (
        "-- a note on the cases below\n\n", "SELECT id FROM events;\nevents: struct<id:bigint>\n")]
    assert note == [] and case == [Case("Rule.sql", 1, "", "SELECT id FROM events", (("events", "struct<id:bigint>"),))]
