package pysparkext.variant.codec

import org.apache.spark.sql.types.Decimal
import org.apache.spark.types.variant.VariantUtil

/**
 * Variant DECIMAL4 and DECIMAL8 primitives read as their unscaled long: a header byte, a scale
 * byte, then a little-endian integer of 4 or 8 bytes. Spark's own accessors, and its validation,
 * make a BigDecimal of every such value, which is most of what reading a residual number costs.
 */
object SmallDecimal {
  val PowersOfTen: Array[Long] = Array.iterate(1L, Decimal.MAX_LONG_DIGITS + 1)(_ * 10)

  /** The digits a value's width allows, or -1 when it is no DECIMAL4 or DECIMAL8. */
  private def digits(value: Array[Byte]): Int = VariantHeader.primitiveTypeId(value) match {
    case VariantUtil.DECIMAL4 => VariantUtil.MAX_DECIMAL4_PRECISION
    case VariantUtil.DECIMAL8 => VariantUtil.MAX_DECIMAL8_PRECISION
    case _ => -1
  }

  /**
   * Whether `value` is exactly such a decimal, with no bytes after it, its scale and unscaled
   * integer within the digits its width allows. Spark's validation accepts every such value; a
   * false only means the caller must ask Spark's.
   */
  def isWellFormed(value: Array[Byte]): Boolean = {
    val d = digits(value)
    d >= 0 && value.length == 2 + width(d) && value(1) >= 0 && value(1) <= d && {
      val n = unscaled(value)
      n > -PowersOfTen(d) && n < PowersOfTen(d)
    }
  }

  private def width(digits: Int): Int = if (digits == VariantUtil.MAX_DECIMAL4_PRECISION) 4 else 8

  /** The scale of a well-formed value. */
  def scale(value: Array[Byte]): Int = value(1)

  /** The unscaled integer of a well-formed value. */
  def unscaled(value: Array[Byte]): Long = {
    val w = width(digits(value))
    var n = 0L
    var i = w - 1
    while (i >= 0) { n = (n << 8) | (value(2 + i) & 0xffL); i -= 1 }
    if (w == 4) n.toInt.toLong else n
  }
}
