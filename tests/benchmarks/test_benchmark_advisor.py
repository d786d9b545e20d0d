"""The advisor suite (``python -m benchmarks run --suite advisor``) at a tiny scale: the three
Spark-written forms hold the same events (every workload query returns the same rows on each, with
the extension on and off), the advisor's schema shreds exactly the workload's paths with fewer
Parquet leaves than shredding everything, and the report is written."""
import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from benchmarks import advisor_schema, datasets
from benchmarks.variant_queries import queries
from pyspark_ext.outcome import canonical_rows, same_rows
from tests.support.differential import ENABLED

pytestmark = pytest.mark.benchmark

# Enough rows that every query finds some (the filter's 0.05% holds 2 ids; the mismatched types,
# 1% and 0.5% of rows, occur), few enough to stay fast.
ROWS = 4000
WORKLOAD_PATHS = ["$.id", "$.kind", "$.price", "$.user.geo.country", "$.user.id", "$.user.name"]


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("advisor")


@pytest.fixture(scope="module")
def doc(spark: SparkSession, out: Path) -> dict:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(datasets.CACHE_ENV, str(out / "data"))
        return advisor_schema.run_advisor(spark, ROWS, out, repeat=1, row_group_rows=ROWS // 4)


@pytest.mark.parametrize("name", list(advisor_schema.WORKLOAD))
def test_every_form_returns_the_same_rows(spark: SparkSession, doc: dict, name: str) -> None:
    sql = queries(ROWS)[name].variant
    runs = {}
    for form, path in doc["paths"].items():
        for on in ("true", "false"):
            spark.conf.set(ENABLED, on)
            runs[f"{form}/{on}"] = canonical_rows(tuple(r) for r in spark.sql(sql.format(t=f"parquet.`{path}`")).collect())
    reference = runs["recommended/false"]
    assert reference and all(v not in (None, 0) for r in reference for v in r), reference  # finds something
    for config, rows in runs.items():
        assert same_rows(rows, reference), (config, rows[:3], reference[:3])


def test_recommended_schema_shreds_the_workload_paths_with_fewer_leaves(doc: dict) -> None:
    files = doc["files"]
    assert files["recommended"]["typed_paths"] == WORKLOAD_PATHS
    assert set(WORKLOAD_PATHS) < set(files["everything"]["typed_paths"])
    assert files["recommended"]["leaves_max"] < files["everything"]["leaves_min"]
    assert files["recommended"]["footer_bytes"] < files["everything"]["footer_bytes"]
    # the forms differ in their schema only: row groups of the same rows (ROWS // 4 each, so
    # more than one per file), however large each form's rows are
    row_groups = [files[f]["row_groups"] for f in advisor_schema.FORMS]
    assert len(set(row_groups)) == 1 and row_groups[0] > files["recommended"]["files"], row_groups
    # Spark's per-file inference shreds the columns too: the form is a shredded one, not a strawman
    assert files["inferred"]["typed_paths"], files["inferred"]


def test_report_weights_each_query_by_its_count(doc: dict, out: Path) -> None:
    config = "recommended_ext"
    expected = sum(q["count"] * q["seconds"][config] for q in doc["queries"])
    assert doc["totals"][config]["seconds"] == pytest.approx(expected)
    assert [q["query"] for q in doc["queries"]] == list(advisor_schema.WORKLOAD)
    table = [line for line in advisor_schema.markdown(doc).splitlines() if line.startswith("| ")]
    assert [line.split(" | ")[0][2:] for line in table[1:4]] == list(advisor_schema.FORMS)
    assert all((out / name).stat().st_size > 0 for name in ("advisor.md", "advisor.png"))
    assert json.loads((out / "advisor.json").read_text())["meta"]["rows"] == ROWS
