"""One strict Spark session for the whole run (see ``tests.support.differential.strict_session``)."""
from __future__ import annotations

import os
import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# Shared test assertions, rewritten as a test module's are, so that a failure shows its values.
pytest.register_assert_rewrite("tests.support.battery.outcomes")


from pyspark_ext import jar  # noqa: E402
from pyspark_ext.data import adtech  # noqa: E402
from devtools.table_formats import PRODUCTS  # noqa: E402
from tests.support import line_share  # noqa: E402
from tests.support.differential import ENABLED, strict_session  # noqa: E402
from tests.support.lines import EVERY_TEST_OPTION, keeps_line_subset  # noqa: E402
from tests.support.rule_fixtures import VARIANT_TABLES, Case  # noqa: E402


#: The differential subset CI runs on every other Spark line (``.ci/run-lines``), each against that
#: line's own stock Spark, chosen so that each line tests what no other line's run covers
#: (docs/development.md gives the times): nested pruning over the shapes and Spark's own
#: SchemaPruningSuite cases under Spark's pruning switch both ways (all of them on 3.5, shared out
#: between 4.0, 4.1 and 4.2: ``SHARED_OUT``), explain, what the line carries, the fuzzer's
#: random queries at the line's own seed (in the subset's JVM, already warm),
#: and the check of the settings a session starts with (a bad one hangs a 4.1 driver without it), on
#: every line. The variant half's reads, filters, skipping and writers, and its edge cases whose code
#: sits above the shims (tables whose files shred differently, read as a Union of per-file scans;
#: skipped damaged files; VARIANTs nested in structs), on the oldest line that carries it (4.1):
#: 4.2 shares each of its shim folders with 4.1 or 4.3, where the full suite runs them, and the
#: fuzzer's variant grammar and the Delta variant tests still run against stock 4.2. The producers
#: pipelines (``pytest.mark.producers_lines``, test by test: a few whole pipelines and the workers'
#: conversions) on the oldest line that has them (4.0): they use pyspark's public API only, and the
#: full suite runs them all on the newest. The rules' SQL fixtures (``tests/rules``) run as the area of
#: their tables: the nested cases (the nested shapes among them) with nested pruning, the cases over
#: VARIANT tables with the variant subset, each (``_variant_rule_case``).
PRUNING_SUBSET = frozenset({
    "test_nested_pruning.py", "test_rule_fixtures.py", "test_schema_pruning_suite.py", "test_spark_pruning_switch.py",
    "test_explain.py", "test_spark_lines.py", "test_settings_at_start.py", "test_line_fuzz.py",
})
VARIANT_SUBSET = frozenset({
    "test_spec_variant.py", "test_draft_variant.py", "test_variant_skipping.py",
    "test_bloom_skipping.py", "test_page_skipping.py", "test_spec_writer.py", "test_cluster_by.py",
})
VARIANT_EDGES = frozenset({
    "test_conflicting_files.py", "test_file_tolerance.py", "test_nested_variant.py",
    "test_struct_variant_paths.py",
})
#: Run on 3.5 as well as in the full suite: 3.5's jar is a build of its own (Scala 2.12), so its
#: executors on a cluster load a jar no other line's do; and 3.5's own Connect server, which
#: only 3.5 runs.
ON_SPARK_35 = frozenset({"test_cluster_mode.py", "test_connect_spark35.py"})
OLDEST_VARIANT_LINE = "4.1"
OLDEST_PRODUCERS_LINE = "4.0"
SPARK_LINES_SUBSET = (
    PRUNING_SUBSET
    | (VARIANT_SUBSET | VARIANT_EDGES if jar.spark_line() == OLDEST_VARIANT_LINE else frozenset()))

#: Batteries the older lines share out (``tests.support.line_share``): each case runs on one line of
#: its group, besides the newest line, and 3.5 runs every case. The nested shapes and Spark's
#: pruning switch over 4.0, 4.1 and 4.2, whose pruning half is the 4.x code 3.5 and 4.3 also run
#: (the SchemaPruningSuite port shares out its cases itself, with the same group); the Delta and
#: Iceberg batteries between the lines each product is tested on (its 4.x line and 3.5): Delta's
#: shapes, column-mapping and time-travel queries, every other one on 4.2; Iceberg's shapes, and
#: its row-level and evolution tests over format versions 2 and 3, of which 4.1, Iceberg's
#: variant line, runs version 3.
_ICEBERG_V3_ON_41 = ("3.5", "4.1")
SHARED_OUT = {
    "test_rule_fixture": line_share.PRUNING,
    "test_correlated_outer_references_keep_rows": line_share.PRUNING,
    "test_widened_arrays_and_maps_keep_rows_in_generated_code": line_share.PRUNING,
    "test_spark_switch_off_reads_what_stock_reads": line_share.PRUNING,
    "test_shapes_on_deletion_vectors": PRODUCTS["delta"].lines,
    "test_column_mapping": PRODUCTS["delta"].lines,
    "test_time_travel_merge_partitions": PRODUCTS["delta"].lines,
    "test_shape_on_v2_table_reads_minimal_schema": PRODUCTS["iceberg"].lines,
    **dict.fromkeys(("test_position_deletes", "test_merge_on_read_update_and_merge_write_what_stock_writes",
                     "test_equality_deletes", "test_nested_schema_evolution", "test_partition_evolution"),
                    _ICEBERG_V3_ON_41),
}


#: Test modules that need what pyspark 3.5 lacks, each with why. On 3.5 each is reported as one
#: skipped module with its reason (never left out silently); on 4.x they are collected as usual.
NEEDS_PYSPARK_4 = {
    "producers": "the producers pipelines use pyspark.sql.conversion, which pyspark 3.5 lacks",
    "test_raw_typed_values.py": "VARIANT values: Spark 3.5 has no VARIANT",
    "test_variant_battery.py": "VARIANT values: Spark 3.5 has no VARIANT",
    "test_spec_writer.py": "VARIANT writes: Spark 3.5 has no VARIANT",
    "test_fuzz.py": "its unit tests build VARIANT values (the fuzzer itself runs on 3.5)",
    "test_advisor_paths.py": "its tables have VARIANT columns, a type pyspark 3.5 lacks",
    "test_delta_variant.py": "shredded VARIANT on Delta tables: Spark 3.5 has no VARIANT",
    "test_delta_skipping.py": "skipping on shredded VARIANT paths of Delta tables: Spark 3.5 has no VARIANT",
    "test_iceberg_variant.py": "VARIANT on Iceberg v3 tables: Spark 3.5 has no VARIANT",
    "test_iceberg_variant_reads.py": "VARIANT on Iceberg v3 tables: Spark 3.5 has no VARIANT",
    "test_iceberg_variant_history.py": "VARIANT on Iceberg v3 tables: Spark 3.5 has no VARIANT",
    "test_iceberg_duckdb_variant.py": "VARIANT on Iceberg v3 tables: Spark 3.5 has no VARIANT",
    "test_iceberg_variant_bad_input.py": "VARIANT on Iceberg v3 tables: Spark 3.5 has no VARIANT",
}


class _SkippedModule(pytest.Module):
    """A module that cannot be imported on this pyspark: one skip with the reason instead."""
    reason = ""

    def collect(self):
        pytest.skip(self.reason)


def pytest_pycollect_makemodule(module_path, parent):
    if jar.spark_line() != "3.5":
        return None
    for name, reason in NEEDS_PYSPARK_4.items():
        if name == module_path.name or name in module_path.parent.parts:
            module = _SkippedModule.from_parent(parent, path=module_path)
            module.reason = f"{module_path.name} needs pyspark 4.0 or later: {reason}"
            return module
    return None


def pytest_addoption(parser):
    parser.addoption(EVERY_TEST_OPTION, action="store_true",
                     help="on a Spark line older than the newest, run every collected test, not only the "
                          "spark_lines subset CI runs there")


def _keeps_line_subset(config) -> bool:
    return keeps_line_subset(jar.spark_line(), config.option.markexpr,
                             config.args_source == pytest.Config.ArgsSource.ARGS,
                             config.getoption(EVERY_TEST_OPTION))


def _line_subset_note(config) -> list[str]:
    if not _keeps_line_subset(config):
        return []
    return [f"Spark {jar.spark_line()}: the spark_lines subset, as CI runs it on this line (the full suite is "
            "written for the newest line); the table formats' tests run one product a run (python -m pytest "
            f"tests/tables/delta); {EVERY_TEST_OPTION} runs every test"]


def pytest_report_header(config):
    return _line_subset_note(config)


def pytest_terminal_summary(terminalreporter, config):
    for line in _line_subset_note(config):  # also under -q, which hides the header
        terminalreporter.write_line(line)


def pytest_collection_modifyitems(config, items):
    line = jar.spark_line()
    positions: Counter[tuple[Path, str]] = Counter()
    outer_values: dict[tuple[Path, str], list[str]] = {}
    if line == OLDEST_VARIANT_LINE:
        _each_value_of_the_variant_subset(items)
    for item in items:
        variant_case = _variant_rule_case(item)
        if (item.path.name in SPARK_LINES_SUBSET and (line == OLDEST_VARIANT_LINE or not variant_case)) or (
                line == "3.5" and item.path.name in ON_SPARK_35) or (
                line == OLDEST_PRODUCERS_LINE and item.get_closest_marker("producers_lines")):
            item.add_marker(pytest.mark.spark_lines)
        test = getattr(item, "originalname", item.name)
        if test in SHARED_OUT and not variant_case:
            position = positions[item.path, test]
            positions[item.path, test] += 1
            position += _outer_turn(item, outer_values.setdefault((item.path, test), []))
            if not line_share.runs_here(position, SHARED_OUT[test], line):
                item.add_marker(pytest.mark.another_line)
    if _keeps_line_subset(config):
        config.hook.pytest_deselected(items=[item for item in items if not item.get_closest_marker("spark_lines")])
        items[:] = [item for item in items if item.get_closest_marker("spark_lines")]


def _variant_rule_case(item) -> bool:
    """A case of the rules' SQL fixtures over a VARIANT table: in the subset on the oldest line with
    the variant half only, and there every case, as the variant subset's modules."""
    case = getattr(item, "callspec", None) and item.callspec.params.get("case")
    return isinstance(case, Case) and bool(case.tables & VARIANT_TABLES)


def _outer_turn(item, seen: list[str]) -> int:
    """For a case of a test with two or more parameters, the index of its first parameter's value
    (the slowest to vary) among those seen: dealing each value's cases from a turn further on, a
    line runs each value of the first parameter with different values of the others (a query
    under column mapping by name, another by id), not the same ones under each."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or len(callspec.params) < 2:
        return 0
    value = repr(next(iter(callspec.params.values())))
    if value not in seen:
        seen.append(value)
    return seen.index(value)


def _each_value_of_the_variant_subset(items) -> None:
    """The variant subset on the oldest line that carries it runs each of its tests with every
    value of each parameter (``line_share.each_value``), not every combination: the full suite runs
    every combination on the newest line, and the oldest line's own code is its shims, which every
    value reaches."""
    tests: dict[tuple[str, str], list] = {}
    for item in items:
        if item.path.name in VARIANT_SUBSET | VARIANT_EDGES and hasattr(item, "callspec"):
            tests.setdefault((item.parent.nodeid, item.originalname), []).append(item)
    for cases in tests.values():
        kept = line_share.each_value([case.callspec.params for case in cases])
        for position, case in enumerate(cases):
            if position not in kept:
                case.add_marker(pytest.mark.another_line)


#: The JIT setting of the JVMs a run starts besides its own (a cluster's master, workers and
#: executors, Connect and catalog servers, the examples' and CLI tests' processes): they live
#: seconds to a few minutes, too short to repay C2's compiling, so they compile with C1 only (the
#: `local-cluster` module alone, with C1 for all its JVMs, took 111 s against 177 s). The run's
#: own JVM, the ``spark`` fixture's, which lives the whole run, keeps both compilers
#: (``_jvm_options_of_this_run``), unless the caller set C1 for every JVM itself, as
#: ``.ci/run-lines`` does; a table format's session (``tests/tables``, run in the lines' venvs)
#: compiles with C1 as the line runs do. C1 alone would also shrink the code cache to 48 MB, as
#: for a client VM, which Spark 3.5 with Iceberg outgrew ("Out of space in CodeCache for
#: adapters", then a dead JVM): it keeps the size both compilers have.
C1_ONLY = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"
_JVM_OPTIONS = "JDK_JAVA_OPTIONS"
_callers_jvm_options = os.environ.get(_JVM_OPTIONS)
if C1_ONLY not in (_callers_jvm_options or ""):
    os.environ[_JVM_OPTIONS] = f"{_callers_jvm_options} {C1_ONLY}" if _callers_jvm_options else C1_ONLY


@contextmanager
def _jvm_options_of_this_run():
    """The environment the run was started with, while this process launches its own JVM."""
    children = os.environ.get(_JVM_OPTIONS)
    if _callers_jvm_options is None:
        os.environ.pop(_JVM_OPTIONS, None)
    else:
        os.environ[_JVM_OPTIONS] = _callers_jvm_options
    try:
        yield
    finally:
        os.environ[_JVM_OPTIONS] = children


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    with _jvm_options_of_this_run():
        session = strict_session("pyspark-ext-tests", str(tmp_path_factory.mktemp("warehouse")))
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _extension_on(request):
    """The extension on before and after each test that uses the session. A test none of whose
    fixtures reaches ``spark`` (the advisor's sqlglot-only tests, tests that start processes of
    their own) starts no JVM: ``fixturenames`` is the closure of what the test requests."""
    if "spark" not in request.fixturenames:
        yield
        return
    spark = request.getfixturevalue("spark")
    spark.conf.set(ENABLED, "true")
    yield
    spark.conf.set(ENABLED, "true")


@pytest.fixture(scope="session")
def events(spark, tmp_path_factory):
    """The nested ad-tech event log as temp view ``events`` (2,000 rows in 4 files)."""
    path = str(tmp_path_factory.mktemp("data") / "events")
    adtech.write_events(spark, path, rows=2000, payload_width=24)
    spark.read.parquet(path).createOrReplaceTempView("events")
    return path
