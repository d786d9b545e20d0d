"""The fuzzer's tables, written once per test run (shared by the fuzz test modules)."""
from __future__ import annotations

import pytest

from devtools.data import write_tables


@pytest.fixture(scope="session")
def fuzz_tables(spark, tmp_path_factory) -> dict[str, str]:
    return write_tables(spark, tmp_path_factory.mktemp("fuzz"), rows=1200)
