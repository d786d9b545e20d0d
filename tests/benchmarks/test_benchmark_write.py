"""The write suite (``python -m benchmarks run --suite write``) at a tiny scale: every writer
writes the layout its name promises, so the side-by-side times compare the writers they claim to,
and the report gives each one's ratio to the unshredded write."""
import json

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from benchmarks import datasets, write_speed

pytestmark = pytest.mark.benchmark

ROWS = 3000


@pytest.fixture(scope="module")
def written(spark: SparkSession, tmp_path_factory) -> tuple:
    out = tmp_path_factory.mktemp("write")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(datasets.CACHE_ENV, str(out / "data"))
        result = write_speed.run_write(spark, ROWS, out, repeat=1)
    return out, result


def _variant_fields(path) -> set[str]:
    first = min(path.glob("*.parquet"))
    return {f.name for f in pq.ParquetFile(first).schema_arrow.field("v").type}


def _typed_tree(path) -> str:
    first = min(path.glob("*.parquet"))
    return str(pq.ParquetFile(first).schema_arrow.field("v").type.field("typed_value").type)


def test_each_writer_writes_its_own_layout(written) -> None:
    out, _ = written
    work = out / "_writes"
    assert _variant_fields(work / "unshredded") == {"metadata", "value"}
    for name in ("spark_forced", "spark_inferred", "spec", "spec_rows"):
        assert _variant_fields(work / name) == {"metadata", "value", "typed_value"}, name
    assert _variant_fields(work / "draft") == _variant_fields(work / "draft_rows") == {"untyped_value", "object"}
    # the spec writer and Spark's forced writer shred by the same schema: the same typed tree
    assert _typed_tree(work / "spec") == _typed_tree(work / "spark_forced")
    # spec is written column by column, spec_rows row by row (the switch off)
    def footer(name: str) -> dict[bytes, bytes]:
        return pq.ParquetFile(min((work / name).glob("*.parquet"))).metadata.metadata
    assert footer("spec")[b"pyspark_ext.columnarShreddedColumns"] == b"v"
    assert b"pyspark_ext.columnarShreddedColumns" not in footer("spec_rows")
    assert footer("draft")[b"pyspark_ext.columnarShreddedColumns"] == b"v"
    assert b"pyspark_ext.columnarShreddedColumns" not in footer("draft_rows")


def test_report_gives_every_writer_its_ratio_to_the_unshredded_write(written) -> None:
    out, result = written
    saved = json.loads((out / "write.json").read_text())
    assert saved["ratio"]["unshredded"] == 1.0
    assert set(saved["ratio"]) == set(write_speed.WRITERS)
    assert all(s > 0 for s in saved["seconds"].values())
    table = (out / "write.md").read_text().splitlines()
    assert [row.split(" | ")[0][2:] for row in table if row.startswith("| ") and "writer" not in row] \
        == list(write_speed.WRITERS)
