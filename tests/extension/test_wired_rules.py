"""docs/architecture.md's table of wired rules is generated from the jar's wiring
(``WiredRules``: the entry class applied to a fresh ``SparkSessionExtensions``), so the map a
newcomer reads first names the rules Spark runs, in the order it runs them."""
from __future__ import annotations

from pathlib import Path

import pyspark
import pytest

from pyspark_ext import rules_table

# The docs describe the newest line; older lines wire fewer rules (no VARIANT on 3.5) or make the
# union push at analysis (4.0-4.2), as the docs say in prose.
NEWEST_LINE = (4, 3)


def _line() -> tuple[int, int]:
    major, minor = pyspark.__version__.split(".")[:2]
    return int(major), int(minor)


@pytest.mark.skipif(_line() != NEWEST_LINE, reason="docs/architecture.md describes Spark 4.3's wiring")
def test_architecture_doc_rules_table_is_the_generated_one(spark):
    doc = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text()
    table = rules_table.markdown_table(rules_table.wired(spark))
    assert table in doc, "regenerate it with: python -m pyspark_ext rules"


def test_wired_rules_come_grouped_by_stage(spark):
    stages = [stage for stage, _ in rules_table.wired(spark)]
    # Stages come grouped, each once, in the order Spark runs them.
    assert stages == sorted(stages, key=stages.index)
    assert "optimizer: pre-CBO" in stages and "physical: before columnar transitions" in stages
