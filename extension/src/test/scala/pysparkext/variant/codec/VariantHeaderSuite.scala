package pysparkext.variant.codec

import java.math.{BigDecimal => JBigDecimal}

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}

import pysparkext.testing.VariantValues.{built, json}

/** A value's first byte read as Spark's `Variant` reads it, for every kind of value Spark builds. */
class VariantHeaderSuite extends AnyFunSuite {
  private val primitives: Seq[(Int, VariantBuilder => Unit)] = Seq(
    VariantUtil.NULL -> (_.appendNull()), VariantUtil.TRUE -> (_.appendBoolean(true)),
    VariantUtil.FALSE -> (_.appendBoolean(false)),
    VariantUtil.INT1 -> (_.appendLong(-128)), VariantUtil.INT2 -> (_.appendLong(128)),
    VariantUtil.INT4 -> (_.appendLong(Int.MinValue)), VariantUtil.INT8 -> (_.appendLong(Int.MaxValue + 1L)),
    VariantUtil.DOUBLE -> (_.appendDouble(0.0)), VariantUtil.FLOAT -> (_.appendFloat(0f)),
    VariantUtil.DECIMAL4 -> (_.appendDecimal(new JBigDecimal("1.5"))),
    VariantUtil.DECIMAL8 -> (_.appendDecimal(new JBigDecimal("1234567890.5"))),
    VariantUtil.DECIMAL16 -> (_.appendDecimal(new JBigDecimal("12345678901234567890.5"))),
    VariantUtil.DATE -> (_.appendDate(0)), VariantUtil.TIMESTAMP -> (_.appendTimestamp(0)),
    VariantUtil.TIMESTAMP_NTZ -> (_.appendTimestampNtz(0)),
    VariantUtil.BINARY -> (_.appendBinary(Array.emptyByteArray)),
    VariantUtil.LONG_STR -> (_.appendString("x" * 64)), VariantUtil.UUID -> (_.appendUuid(new java.util.UUID(0, 0))))

  test("a primitive's type id is the one Spark wrote, and it refers to no dictionary entry") {
    for ((id, append) <- primitives) {
      val v = built(append)
      assert(VariantHeader.primitiveTypeId(v.getValue) == id, s"type id $id")
      assert(VariantHeader.primitiveTypeId(v.getValue) == v.getTypeInfo, s"type id $id")
      assert(VariantHeader.isScalar(v.getValue), s"type id $id")
    }
  }

  test("a short string is a scalar without a primitive type id; objects and arrays are neither") {
    for (s <- Seq("", "x", "x" * 63)) {
      val v = built(_.appendString(s))
      assert(VariantHeader.primitiveTypeId(v.getValue) == -1 && VariantHeader.isScalar(v.getValue), s.length)
    }
    for (j <- Seq("{}", "[]", "{\"a\": 1}", "[1, 2]", "[{\"a\": []}]")) {
      val v = json(j)
      assert(VariantHeader.primitiveTypeId(v.getValue) == -1, j)
      assert(!VariantHeader.isScalar(v.getValue), j)
    }
  }

  test("only the first byte is read, and an empty value is no primitive and no scalar") {
    assert(VariantHeader.primitiveTypeId(Array.emptyByteArray) == -1)
    assert(!VariantHeader.isScalar(Array.emptyByteArray))
    // A bare header of an INT8 with its payload missing is still read as an INT8 header.
    assert(VariantHeader.primitiveTypeId(Array(VariantUtil.primitiveHeader(VariantUtil.INT8))) == VariantUtil.INT8)
    val field = json("{\"a\": 300}").getFieldByKey("a")
    assert(VariantHeader.primitiveTypeId(field.getValue) == VariantUtil.INT2, "a field's value read alone")
    assert(new Variant(field.getValue, json("{}").getMetadata).getLong == 300)
  }
}
