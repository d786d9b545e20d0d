"""The helpers tests and the product share, on a fake session's confs (no Spark needed): the switch
for Spark's VARIANT writer, the three-mode runner, and the test-side Variant codec."""
from __future__ import annotations

from decimal import Decimal

import pytest

from pyspark_ext.spark_shredding import FORCED_SCHEMA, WRITE_SHREDDING, spark_shredding
from tests.support.differential import ENABLED
from tests.support import variant_codec
from tests.support.modes import in_modes


def _sorted(x):
    """repr-comparable: objects with their keys sorted (decoding returns them in field-id order),
    variant nulls as None."""
    if x is variant_codec.VARIANT_NULL:
        return None
    if isinstance(x, dict):
        return sorted((k, _sorted(v)) for k, v in x.items())
    if isinstance(x, list):
        return [_sorted(v) for v in x]
    return x


class _Conf:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = dict(values)

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(key, default)

    def set(self, key: str, value: str) -> None:
        self.values[key] = value

    def unset(self, key: str) -> None:
        self.values.pop(key, None)


class _Session:
    def __init__(self, **values: str) -> None:
        self.conf = _Conf(values)


@pytest.mark.parametrize("shred,schema,inside", [
    (False, None, {WRITE_SHREDDING: "false"}),
    (True, None, {WRITE_SHREDDING: "true"}),
    (True, "struct<a: int>", {WRITE_SHREDDING: "true", FORCED_SCHEMA: "struct<a: int>"}),
    (True, "a int, b string", {WRITE_SHREDDING: "true", FORCED_SCHEMA: "struct<a int, b string>"}),
    (False, "struct<a: int>", {WRITE_SHREDDING: "false"}),  # a schema without shredding is dropped
])
def test_spark_shredding_sets_both_confs_and_restores_them(shred, schema, inside) -> None:
    before = {FORCED_SCHEMA: "struct<outer: int>", "other": "x"}
    session = _Session(**before)
    with spark_shredding(session, shred, schema):
        assert {k: v for k, v in session.conf.values.items() if k != "other"} == inside
    assert session.conf.values == before


def test_spark_shredding_restores_after_an_error() -> None:
    session = _Session(**{WRITE_SHREDDING: "true"})
    with pytest.raises(RuntimeError), spark_shredding(session, False):
        raise RuntimeError("write failed")
    assert session.conf.values == {WRITE_SHREDDING: "true"}


def test_in_modes_measures_on_feature_off_and_stock_in_order() -> None:
    feature = "spark.pyspark_ext.some.feature.enabled"
    session = _Session(**{ENABLED: "true"})
    seen = []
    modes = in_modes(session, feature, lambda: seen.append(dict(session.conf.values)) or len(seen))
    assert (modes.on, modes.off, modes.stock) == (1, 2, 3)
    assert seen == [{ENABLED: "true"}, {ENABLED: "true", feature: "false"}, {ENABLED: "false"}]
    assert session.conf.values == {ENABLED: "true"}


@pytest.mark.parametrize("value", [
    None, True, 0, -129, 2**40, Decimal("1.50"), Decimal("-12345678901234567890.5"), 2.5, -0.0,
    "", "x" * 70, [], {}, [1, "a", [None]], {"b": {"a": [1, {"c": Decimal("0.01")}]}, "a": 1},
    {f"k{i}": i for i in range(300)},  # wide ids and offsets
])
def test_codec_round_trip(value) -> None:
    metadata, encoded = variant_codec.encode(value)
    decoded = variant_codec.decode_variant(metadata, encoded)
    assert repr(_sorted(decoded)) == repr(_sorted(value))
    assert variant_codec.split_variant_bytes(metadata + encoded) == (metadata, encoded)


def test_codec_rejects_a_bad_metadata_version() -> None:
    with pytest.raises(variant_codec.VariantDecodeError, match="version"):
        variant_codec.decode_variant(b"\x02\x00\x00", b"\x00")
