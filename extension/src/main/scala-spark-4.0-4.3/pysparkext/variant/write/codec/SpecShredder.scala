package pysparkext.variant.write.codec

import java.math.{BigDecimal => JBigDecimal, RoundingMode}

import org.apache.parquet.io.api.Binary

import org.apache.spark.types.variant.{VariantSchema, VariantUtil}
import org.apache.spark.types.variant.VariantSchema.IntegralSize

import pysparkext.variant.codec.LittleEndian

/**
 * Spark's rules for a shredded scalar, as `VariantShreddingWriter.castShredded` applies them with
 * Spark's writer's numeric rule (a value may change scale, or move between integers and decimals,
 * when no digit is lost), on a value's raw position: what [[SpecColumnWriter]] writes to
 * `typed_value`, and what it leaves to `value`.
 */
object SpecShredder {
  /**
   * `v` as the typed value of `target`, or null where it goes to `value` instead: Spark's rules,
   * numeric scale changes allowed. Integers and dates are boxed Java numbers, decimals are at the
   * target's scale, strings are a [[Binary]] of their UTF-8 bytes, binaries a byte array.
   */
  def typed(value: Array[Byte], pos: Int, t: VariantUtil.Type, target: VariantSchema.ScalarType): AnyRef =
    t match {
    case VariantUtil.Type.LONG => target match {
      case i: VariantSchema.IntegralType => integral(VariantUtil.getLong(value, pos), i.size)
      case d: VariantSchema.DecimalType =>
        val scaled = JBigDecimal.valueOf(VariantUtil.getLong(value, pos)).setScale(d.scale)
        if (scaled.precision <= d.precision) scaled else null
      case _ => null
    }
    case VariantUtil.Type.DECIMAL => target match {
      case d: VariantSchema.DecimalType =>
        val x = VariantUtil.getDecimalWithOriginalScale(value, pos)
        if (x.precision <= d.precision && x.scale == d.scale) x
        else {
          val scaled = x.setScale(d.scale, RoundingMode.FLOOR)
          if (scaled.compareTo(x) == 0 && scaled.precision <= d.precision) scaled else null
        }
      case i: VariantSchema.IntegralType =>
        val x = VariantUtil.getDecimal(value, pos)
        val whole = i.size match {
          case IntegralSize.BYTE => JBigDecimal.valueOf(x.byteValue.toLong)
          case IntegralSize.SHORT => JBigDecimal.valueOf(x.shortValue.toLong)
          case IntegralSize.INT => JBigDecimal.valueOf(x.intValue.toLong)
          case IntegralSize.LONG => JBigDecimal.valueOf(x.longValue)
        }
        if (x.compareTo(whole) == 0) integral(whole.longValue, i.size) else null
      case _ => null
    }
    case VariantUtil.Type.BOOLEAN if target.isInstanceOf[VariantSchema.BooleanType] =>
      java.lang.Boolean.valueOf(VariantUtil.getBoolean(value, pos))
    case VariantUtil.Type.STRING if target.isInstanceOf[VariantSchema.StringType] => utf8(value, pos)
    case VariantUtil.Type.DOUBLE if target.isInstanceOf[VariantSchema.DoubleType] =>
      java.lang.Double.valueOf(VariantUtil.getDouble(value, pos))
    case VariantUtil.Type.DATE if target.isInstanceOf[VariantSchema.DateType] =>
      Integer.valueOf(VariantUtil.getLong(value, pos).toInt)
    case VariantUtil.Type.TIMESTAMP if target.isInstanceOf[VariantSchema.TimestampType] =>
      java.lang.Long.valueOf(VariantUtil.getLong(value, pos))
    case VariantUtil.Type.TIMESTAMP_NTZ if target.isInstanceOf[VariantSchema.TimestampNTZType] =>
      java.lang.Long.valueOf(VariantUtil.getLong(value, pos))
    case VariantUtil.Type.FLOAT if target.isInstanceOf[VariantSchema.FloatType] =>
      java.lang.Float.valueOf(VariantUtil.getFloat(value, pos))
    case VariantUtil.Type.BINARY if target.isInstanceOf[VariantSchema.BinaryType] => VariantUtil.getBinary(value, pos)
    case _ => null
  }

  private def integral(x: Long, size: IntegralSize): AnyRef = size match {
    case IntegralSize.BYTE => if (x == x.toByte) java.lang.Byte.valueOf(x.toByte) else null
    case IntegralSize.SHORT => if (x == x.toShort) java.lang.Short.valueOf(x.toShort) else null
    case IntegralSize.INT => if (x == x.toInt) Integer.valueOf(x.toInt) else null
    case IntegralSize.LONG => java.lang.Long.valueOf(x)
  }

  /** A string value's UTF-8 bytes, in place (a short string or a long one, by its header). */
  private[write] def utf8(value: Array[Byte], pos: Int): Binary = {
    val header = value(pos) & 0xff
    if ((header & VariantUtil.BASIC_TYPE_MASK) == VariantUtil.SHORT_STR) {
      Binary.fromReusedByteArray(value, pos + 1, header >> VariantUtil.BASIC_TYPE_BITS)
    } else {
      Binary.fromReusedByteArray(value, pos + 1 + VariantUtil.U32_SIZE,
        LittleEndian.readUnsigned(value, pos + 1, VariantUtil.U32_SIZE))
    }
  }
}
