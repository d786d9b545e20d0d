"""The value conversions a pipeline's Python workers use, as each Spark line's pyspark has them
(their keywords differ between lines): raw Arrow values to what Produce sees and back."""
from __future__ import annotations

import datetime
import decimal

import pyarrow as pa
import pytest
from pyspark.sql.types import (
    DecimalType, StructField, StructType, TimestampNTZType, TimestampType, VariantType, VariantVal,
)

from pyspark_ext.producers.rows import arrow_schema, arrow_type, to_user, user_to_raw

pytestmark = pytest.mark.producers_lines

ROW = StructType([StructField("at", TimestampType()), StructField("local", TimestampNTZType()),
                  StructField("v", VariantType()), StructField("d", DecimalType(10, 2))])


def test_timestamps_are_utc_in_arrow_on_every_line():
    assert arrow_type(TimestampType()) == pa.timestamp("us", tz="UTC")
    assert arrow_type(TimestampNTZType()) == pa.timestamp("us")
    assert arrow_schema(ROW).field("at").type == pa.timestamp("us", tz="UTC")


def test_raw_values_round_trip_through_what_produce_sees():
    utc = datetime.timezone.utc
    raw = {"at": datetime.datetime(2024, 11, 20, 10, 15, tzinfo=utc),
           "local": datetime.datetime(2024, 11, 20, 10, 15),
           "v": {"value": b"\x0c\x01", "metadata": b"\x01\x00\x00"},
           "d": decimal.Decimal("12.50")}
    user = to_user(ROW)(raw)
    assert isinstance(user.v, VariantVal) and user.v.toPython() == 1
    assert user.d == decimal.Decimal("12.50") and user.local == raw["local"]
    back = user_to_raw(ROW)(user)
    assert back == raw
    assert back["at"].utcoffset() == datetime.timedelta(0)
