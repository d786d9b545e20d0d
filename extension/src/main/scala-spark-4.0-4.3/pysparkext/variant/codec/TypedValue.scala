package pysparkext.variant.codec

import java.math.{BigDecimal => JBigDecimal}

import org.apache.spark.sql.types._
import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Conversions between a `typed_value` column and variant values, under the proposal's shredding
 * rules (`docs/draft-layout.md`, "Which values may be typed"): integers and decimals are one number
 * type and may be stored in any number column that holds them exactly; float and double stay
 * distinct; nothing else converts (no string to number).
 */
object TypedValue {
  def isSupported(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
         _: DecimalType | DateType | TimestampType | TimestampNTZType | BinaryType => true
    case _: StringType => true
    case _: RawTypedValue => true
    case _ => false
  }

  /**
   * Appends a non-null typed value to a builder as the variant it stands for. `keepScale` keeps
   * a decimal at its column's scale, as the spec layout (and Spark's reader) define it.
   */
  def append(b: VariantBuilder, t: DataType, v: Any, keepScale: Boolean): Unit = t match {
    case BooleanType => b.appendBoolean(v.asInstanceOf[Boolean])
    case ByteType => b.appendLong(v.asInstanceOf[Byte].toLong)
    case ShortType => b.appendLong(v.asInstanceOf[Short].toLong)
    case IntegerType => b.appendLong(v.asInstanceOf[Int].toLong)
    case LongType => b.appendLong(v.asInstanceOf[Long])
    case FloatType => b.appendFloat(v.asInstanceOf[Float])
    case DoubleType => b.appendDouble(v.asInstanceOf[Double])
    // In the draft layout a number column does not record the written value's scale, so the value
    // comes back in its shortest exact form, which is also how parse_json writes decimals.
    case _: DecimalType if keepScale => b.appendDecimal(v.asInstanceOf[Decimal].toJavaBigDecimal)
    case _: DecimalType => b.appendDecimal(normalise(v.asInstanceOf[Decimal].toJavaBigDecimal))
    case DateType => b.appendDate(v.asInstanceOf[Int])
    case TimestampType => b.appendTimestamp(v.asInstanceOf[Long])
    case TimestampNTZType => b.appendTimestampNtz(v.asInstanceOf[Long])
    case BinaryType => b.appendBinary(v.asInstanceOf[Array[Byte]])
    case _: StringType => b.appendString(v.asInstanceOf[UTF8String].toString)
    case raw: RawTypedValue => raw.append(b, v)
    case other => throw new IllegalArgumentException(s"unsupported typed_value type ${other.sql}")
  }

  private def normalise(d: JBigDecimal): JBigDecimal = {
    val s = d.stripTrailingZeros()
    if (s.scale < 0) s.setScale(0) else s
  }

  def toVariant(t: DataType, v: Any, keepScale: Boolean): Variant = {
    val b = new VariantBuilder(false)
    append(b, t, v, keepScale)
    b.result()
  }

  /**
   * The typed value a variant can be shredded into, or None when it must stay untyped. Only
   * lossless moves are made, so reading the column back gives the same variant (up to the width
   * of a number, which the proposal allows).
   */
  def fromVariant(t: DataType, v: Variant): Option[Any] = {
    val vt = v.getType
    t match {
      case BooleanType if vt == VariantUtil.Type.BOOLEAN => Some(v.getBoolean)
      case ByteType if vt == VariantUtil.Type.LONG && v.getLong.isValidByte => Some(v.getLong.toByte)
      case ShortType if vt == VariantUtil.Type.LONG && v.getLong.isValidShort => Some(v.getLong.toShort)
      case IntegerType if vt == VariantUtil.Type.LONG && v.getLong.isValidInt => Some(v.getLong.toInt)
      case LongType if vt == VariantUtil.Type.LONG => Some(v.getLong)
      case d: DecimalType if vt == VariantUtil.Type.LONG =>
        exactDecimal(new JBigDecimal(v.getLong), d)
      case d: DecimalType if vt == VariantUtil.Type.DECIMAL => exactDecimal(v.getDecimal, d)
      case FloatType if vt == VariantUtil.Type.FLOAT => Some(v.getFloat)
      case DoubleType if vt == VariantUtil.Type.DOUBLE => Some(v.getDouble)
      case DateType if vt == VariantUtil.Type.DATE => Some(v.getLong.toInt)
      case TimestampType if vt == VariantUtil.Type.TIMESTAMP => Some(v.getLong)
      case TimestampNTZType if vt == VariantUtil.Type.TIMESTAMP_NTZ => Some(v.getLong)
      case BinaryType if vt == VariantUtil.Type.BINARY => Some(v.getBinary)
      case _: StringType if vt == VariantUtil.Type.STRING => Some(UTF8String.fromString(v.getString))
      case _ => None
    }
  }

  /** `d` in a column of type `t`, when it fits exactly. */
  def exactDecimal(d: JBigDecimal, t: DecimalType): Option[Decimal] = {
    if (d.stripTrailingZeros().scale > t.scale) return None
    val scaled = d.setScale(t.scale, java.math.RoundingMode.UNNECESSARY)
    if (scaled.precision > t.precision) None else Some(Decimal(scaled, t.precision, t.scale))
  }
}
