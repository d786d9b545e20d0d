"""The benchmark's variant forms hold the layouts their names promise (Spark 4.3 shreds every
VARIANT it writes by default, which once made the "unshredded" form a copy of the spec form)."""
import pytest

from benchmarks import datasets, variant_data
from benchmarks.variant_runner import CONFIGS, _sql, time_writers
from benchmarks.variant_queries import queries

pytestmark = pytest.mark.benchmark

UNSHREDDED = {"metadata", "value"}


@pytest.fixture(scope="module")
def forms(spark, tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(datasets.CACHE_ENV, str(tmp_path_factory.mktemp("bench")))
        return variant_data.variant_events(spark, 3000, sorted_by_id=True, files=1)


def test_each_form_has_its_layout(forms):
    assert variant_data.variant_layout(forms["variant"]) == UNSHREDDED
    assert variant_data.variant_layout(forms["spec"]) == UNSHREDDED | {"typed_value"}
    assert variant_data.variant_layout(forms["draft"]) == {"untyped_value", "object"}


def test_the_check_rejects_variants_written_with_spark_defaults(spark, forms, tmp_path):
    default = str(tmp_path / "default")
    spark.read.parquet(forms["variant"]).write.parquet(default)
    with pytest.raises(RuntimeError, match="column v holds .*typed_value.*expected"):
        variant_data.check_variant_layouts({"variant": default})


def test_stock_forms_are_read_from_their_files(spark, forms):
    # A temp view made with the extension on would keep the extension's analysis when it is off.
    variant_data.register(spark, forms)
    q = queries(3000)["one_path_sum"]
    for config in ("variant", "variant_ext", "spec_stock", "spec_ext"):
        assert f"FROM parquet.`{forms[CONFIGS[config][0][2:]]}`" in _sql(q, config)


def test_the_unshredded_writer_writes_unshredded_files(spark, forms, tmp_path):
    secs = time_writers(spark, forms["variant"], str(tmp_path), variant_data.SHREDDING, repeat=1)
    assert set(secs) == {"unshredded", "draft_shred", "spec_shred"}
    assert variant_data.variant_layout(str(tmp_path / "unshredded")) == UNSHREDDED
    assert "typed_value" in variant_data.variant_layout(str(tmp_path / "spec"))
