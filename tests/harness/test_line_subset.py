"""When a bare ``python -m pytest`` on an older Spark line keeps the subset CI runs there."""
from __future__ import annotations

import pytest

from pyspark_ext import jar
from tests.support.lines import NEWEST_LINE, keeps_line_subset


def test_the_newest_line_is_the_last_supported() -> None:
    assert NEWEST_LINE == jar.SUPPORTED_LINES[-1] == max(jar.SUPPORTED_LINES, key=lambda v: tuple(map(int, v.split("."))))


@pytest.mark.parametrize("line", [v for v in jar.SUPPORTED_LINES if v != NEWEST_LINE])
def test_a_bare_run_on_an_older_line_keeps_the_subset(line: str) -> None:
    assert keeps_line_subset(line, "", paths_given=False, every_test=False)


@pytest.mark.parametrize(("markexpr", "paths_given", "every_test"), [
    ("not slow", False, False),  # the run chose its tests by marker
    ("", True, False),  # by path: python -m pytest tests/tables/delta
    ("", False, True),  # --every-test
])
def test_a_run_that_names_its_tests_gets_them(markexpr: str, paths_given: bool, every_test: bool) -> None:
    assert not keeps_line_subset("3.5", markexpr, paths_given, every_test)


def test_the_newest_line_runs_the_full_suite() -> None:
    assert not keeps_line_subset(NEWEST_LINE, "", paths_given=False, every_test=False)
