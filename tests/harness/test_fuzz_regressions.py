"""Queries the fuzzer found failing, reduced and saved in ``tests/harness/fuzz_regressions/*.sql``
(``devtools.regressions``), each run with the extension off and on over the fuzzer's
tables. An entry whose status is ``open`` is a bug not fixed yet: it must still fail (strict
xfail), so a fix shows up here and its entry is then marked ``fixed``."""
from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from devtools import fuzz
from devtools.regressions import Regression, load
from tests.support.fuzz_fixtures import fuzz_tables  # noqa: F401 - a fixture

ENTRIES = load(Path(__file__).parent / "fuzz_regressions")


def _param(entry: Regression):
    marks = [pytest.mark.xfail(strict=True, reason=entry.header.get("finding", ""))] if entry.status == "open" else []
    return pytest.param(entry, id=entry.source, marks=marks)


def test_there_are_regressions_to_run() -> None:
    assert ENTRIES


@pytest.mark.parametrize("entry", [_param(e) for e in ENTRIES])
def test_regression(spark: SparkSession, fuzz_tables, entry: Regression) -> None:
    result = fuzz.check(spark, entry.case, fuzz_tables)
    assert result.finding is None, (entry.case.sql(), result.finding)
