"""The differential fuzzer over files written for skipping: its shredded tables carry bloom filters,
small row groups and pages (``devtools.data.SKIPPING``), so its variant queries run
with Parquet's row-group and page skipping under them. A short fixed run loses no row (no
mismatch) and skips: a fuzz over such files that never skips would prove nothing about skipping.
"""
from __future__ import annotations

import io

import pytest
from pyspark.sql import SparkSession

from pyspark_ext import jar, settings
from devtools import fuzz
from devtools.skipping import Skips
from tests.support.differential import confs
from tests.support.fuzz_fixtures import fuzz_tables  # noqa: F401 - a fixture

pytestmark = pytest.mark.skipif(not jar.carries_variant(), reason="the variant half: Spark 4.1 and later")

METRICS = {settings.ROW_GROUP_METRICS: "true"}
SEED, QUERIES = 11, 20


@pytest.mark.slow
def test_fuzz_over_bloom_filtered_files_loses_no_row_and_skips(spark: SparkSession, fuzz_tables) -> None:
    out = io.StringIO()
    # a session of its own: what the suite's earlier tests set on the shared one must not decide
    # what this run skips
    session = spark.newSession()
    with confs(session, METRICS):
        summary = fuzz.fuzz(session, fuzz_tables, QUERIES, SEED, "variant", reduce_limit=0, progress=False,
                            out=out)
    skips = summary.skips
    assert summary.mismatches == 0, out.getvalue()
    # the spec-layout table's files are grouped into scans by their layouts, not by the order the
    # file system lists them in (pysparkext.variant.layout.FileGroups), so every run skips alike
    assert skips.by_statistics and skips.by_pages and skips.at_run_time, skips.line()


def test_skips_count_only_scans_that_filter_shredded_paths() -> None:
    skips = Skips()
    shredded = "or(eq(v.typed_value.kind.typed_value, Binary{\"u3\"}), noteq(v.typed_value.kind.value, null))"
    skips.add([{"parquet_filters": ["lt(id, 60)"], "row_groups": 4, "row_groups_skipped": 3}])
    skips.add([{"parquet_filters": [shredded, "lt(id, 60)"], "row_groups": 4, "row_groups_skipped": 3}])
    assert skips.queries == 0  # a plain column's filter may have done the skipping
    skips.add([{"parquet_filters": [shredded, "noteq(id, null)"], "row_groups": 4, "row_groups_skipped": 1,
                "pages": 8, "pages_skipped": 2, "row_groups_skipped_metric": 3}])
    assert (skips.queries, skips.by_statistics, skips.by_pages, skips.at_run_time) == (1, 1, 1, 1)
    assert (skips.row_groups_skipped, skips.pages_skipped, skips.beyond_statistics) == (1, 2, 2)
