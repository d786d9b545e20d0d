"""The skipping suite (``python -m benchmarks run --suite skipping``) at a tiny scale, with small
row groups: every form holds the same rows as stock Spark reads from it (the timing helper fails
otherwise), the bloom-filtered files read one row group for the lookup where the plain files read
all, the clustered files few for the range, and the report gives every figure it promises."""
import json

import pytest
from pyspark.sql import SparkSession

from benchmarks import datasets, skipping

pytestmark = pytest.mark.benchmark

ROWS = 20_000


@pytest.fixture(scope="module")
def measured(spark: SparkSession, tmp_path_factory) -> tuple:
    out = tmp_path_factory.mktemp("skipping")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(datasets.CACHE_ENV, str(out / "data"))
        result = skipping.run_skipping(spark, ROWS, out, repeat=1, row_group_bytes=256 * 1024)
    return out, result


def test_bloom_filters_and_clustering_skip_where_plain_files_do_not(measured) -> None:
    _, r = measured
    lookup, ranged = r["queries"]["lookup"], r["queries"]["range"]
    groups = lookup["row_groups"]["plain"]
    assert groups >= 8  # enough row groups for skipping to show
    assert "1700000000111" in lookup["rows"][0]  # the event of id 3: ts = 1700000000000 + 3 * 37
    assert lookup["row_groups_read"]["plain:ext"] == groups
    assert lookup["row_groups_read"]["bloom:ext"] <= 2
    assert r["queries"]["lookup_in"]["row_groups_read"]["bloom:ext"] <= 5 * 2
    assert ranged["row_groups_read"]["plain:ext"] == ranged["row_groups"]["plain"]
    assert ranged["row_groups_read"]["clustered:ext"] <= 2  # each file sorted by ts: one row group each


def test_report_gives_every_figure(measured) -> None:
    out, r = measured
    saved = json.loads((out / "skipping.json").read_text())
    assert set(saved["ratios"]) == set(skipping.ratios(r))
    assert saved["ratios"]["lookup_bloom_row_groups_skipped"] > 0.5
    assert set(saved["bytes"]) == set(saved["write_seconds"]) == set(skipping.FORMS)
    assert "| lookup | bloom |" in (out / "skipping.md").read_text()
