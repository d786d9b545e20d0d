package pysparkext.variant.codec

import java.math.{BigDecimal => JBigDecimal}

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.types.variant.{VariantBuilder, VariantUtil}

/**
 * DECIMAL4 and DECIMAL8 read as their unscaled long, against what Spark's `VariantBuilder` writes
 * and what Spark's validation accepts, at the edges of each width.
 */
class SmallDecimalSuite extends AnyFunSuite {
  private val NoKeys = Array[Byte](1, 0, 0)

  private def built(d: String): Array[Byte] = {
    val b = new VariantBuilder(false)
    b.appendDecimal(new JBigDecimal(d))
    b.result().getValue
  }

  private def raw(typeId: Int, scale: Int, unscaled: Long, width: Int): Array[Byte] =
    Array(VariantUtil.primitiveHeader(typeId), scale.toByte) ++ (0 until width).map(i => (unscaled >> (8 * i)).toByte)

  test("every DECIMAL4 and DECIMAL8 Spark writes is read with its scale and unscaled value") {
    val values = Seq("0", "1", "-1", "0.5", "999999999", "-999999999", "0.999999999", "1234.5678",
      "999999999999999999", "-999999999999999999", "0.000000000000000001", "-12345678901.2345678")
    for (d <- values) {
      val bytes = built(d)
      val decimal = new JBigDecimal(d)
      assert(Set(VariantUtil.DECIMAL4, VariantUtil.DECIMAL8).contains(VariantHeader.primitiveTypeId(bytes)), d)
      assert(SmallDecimal.isWellFormed(bytes), d)
      assert(SmallDecimal.scale(bytes) == decimal.scale, d)
      assert(SmallDecimal.unscaled(bytes) == decimal.unscaledValue.longValueExact, d)
    }
  }

  test("a value wider than DECIMAL8 is not one, and is left to Spark") {
    assert(!SmallDecimal.isWellFormed(built("9999999999999999999")))
  }

  test("out-of-range scales and unscaled values, and wrong lengths, are not well formed") {
    val bad = Seq(
      raw(VariantUtil.DECIMAL4, 10, 1, 4),            // scale past 9 digits
      raw(VariantUtil.DECIMAL4, -1, 1, 4),            // negative scale
      raw(VariantUtil.DECIMAL4, 0, 1000000000L, 4),   // 10 digits
      raw(VariantUtil.DECIMAL8, 19, 1, 8),
      raw(VariantUtil.DECIMAL8, 0, 1000000000000000000L, 8),
      raw(VariantUtil.DECIMAL4, 0, 1, 4) :+ 0.toByte,  // a byte after it
      raw(VariantUtil.DECIMAL8, 0, 1, 8).dropRight(1)) // truncated
    for (bytes <- bad) assert(!SmallDecimal.isWellFormed(bytes), bytes.toSeq)
    // The edges themselves are well formed, and Spark's validation takes them too.
    for (bytes <- Seq(raw(VariantUtil.DECIMAL4, 9, 999999999L, 4), raw(VariantUtil.DECIMAL4, 0, -999999999L, 4),
        raw(VariantUtil.DECIMAL8, 18, 999999999999999999L, 8))) {
      assert(SmallDecimal.isWellFormed(bytes), bytes.toSeq)
      assert(SparkInternals.isValidVariant(bytes, NoKeys), bytes.toSeq)
    }
  }
}
