"""``python -m benchmarks.skipping_repeats`` at a tiny scale: both forms are written as it says
(the bare one without statistics or page indexes, neither with bloom filters), every query runs on
each with skipping on and off (the repeat helper fails if a run returns other rows), and each
result has its ratio and interval."""
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from benchmarks import datasets, skipping, skipping_repeats

pytestmark = pytest.mark.benchmark


def test_both_forms_and_every_query_are_measured(spark: SparkSession, tmp_path) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(datasets.CACHE_ENV, str(tmp_path / "data"))
        r = skipping_repeats.run_repeats(spark, 2_000, 1, tmp_path)
    assert spark.conf.get(skipping_repeats.SKIPPING, None) is None  # left as it was
    measured = {(x["query"], x["form"]) for x in r["results"]}
    assert measured == {(q, f) for q in skipping.queries(2_000) for f in skipping_repeats.FORMS}
    for x in r["results"]:
        assert len(x["seconds"]["on"]) == len(x["seconds"]["off"]) == 1
        assert x["interval_90"][0] <= x["interval_90"][1]
    for form, indexed in (("plain", True), ("bare", False)):
        files = sorted(Path(tmp_path, "_files", form).glob("*.parquet"))
        assert files
        for f in files:
            group = pq.ParquetFile(f).metadata.row_group(0)
            chunks = [group.column(i) for i in range(group.num_columns)]
            assert all(c.bloom_filter_offset is None for c in chunks), f
            assert any(c.has_column_index for c in chunks) == indexed, f
            assert any(c.is_stats_set for c in chunks) == indexed, f
