package pysparkext.variant.codec

import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, EvalMode, GenericInternalRow}
import org.apache.spark.sql.types._
import org.apache.spark.types.variant.{Variant, VariantUtil}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The commonest scalar casts of a variant value, without Spark's per-value `Cast` expression.
 * Each answers exactly what `VariantGet.cast` answers (a TRY cast of the value as a literal of its
 * variant type) where that cast succeeds; anything else, including every failure, is None and
 * goes to `VariantGet.cast`, which raises or returns null as the caller's mode says.
 */
object ScalarCast {
  /** `v` must be of a type Spark's variant code knows (see [[RawPrimitive.knownToSpark]]). */
  def exact(v: Variant, to: DataType): Option[Any] = (v.getType, to) match {
    case (VariantUtil.Type.LONG, LongType) => Some(v.getLong)
    case (VariantUtil.Type.LONG, IntegerType) => Some(v.getLong).filter(_.isValidInt).map(_.toInt)
    case (VariantUtil.Type.LONG, ShortType) => Some(v.getLong).filter(_.isValidShort).map(_.toShort)
    case (VariantUtil.Type.LONG, ByteType) => Some(v.getLong).filter(_.isValidByte).map(_.toByte)
    case (VariantUtil.Type.LONG, DoubleType) => Some(v.getLong.toDouble)
    case (VariantUtil.Type.DOUBLE, DoubleType) => Some(v.getDouble)
    case (VariantUtil.Type.BOOLEAN, BooleanType) => Some(v.getBoolean)
    case (VariantUtil.Type.STRING, s: StringType) if s == StringType =>
      Some(UTF8String.fromString(v.getString))
    case (VariantUtil.Type.DECIMAL, d: DecimalType) =>
      val bytes = if (d.precision <= Decimal.MAX_LONG_DIGITS) v.getValue else null
      if (bytes != null && SmallDecimal.isWellFormed(bytes)) {
        unrounded(SmallDecimal.unscaled(bytes), SmallDecimal.scale(bytes), d)
      } else unrounded(v.getDecimal, d)
    case (VariantUtil.Type.LONG, d: DecimalType) =>
      if (d.precision <= Decimal.MAX_LONG_DIGITS) unrounded(v.getLong, 0, d)
      else unrounded(java.math.BigDecimal.valueOf(v.getLong), d)
    case _ => None
  }

  /**
   * `exact` of a spec-layout residual (value bytes only) that is a whole integer (INT1 to INT8)
   * or a well-formed DECIMAL4 or DECIMAL8: the answer decoding it, validating it and `exact`
   * would give, without making a Variant (a path Spark's writer left untyped decodes one in every
   * row). Null for anything else, which the caller then decodes as usual.
   */
  def fromValueBytes(value: Array[Byte], to: DataType): Any = {
    val width = VariantHeader.primitiveTypeId(value) match {
      case VariantUtil.INT1 => 1
      case VariantUtil.INT2 => 2
      case VariantUtil.INT4 => 4
      case VariantUtil.INT8 => 8
      case _ => -1
    }
    if (width > 0) {
      if (value.length != 1 + width) return null
      val n = VariantUtil.getLong(value, 0)
      to match {
        case LongType => n
        case IntegerType => if (n.isValidInt) n.toInt else null
        case ShortType => if (n.isValidShort) n.toShort else null
        case ByteType => if (n.isValidByte) n.toByte else null
        case DoubleType => n.toDouble
        case d: DecimalType if d.precision <= Decimal.MAX_LONG_DIGITS => unrounded(n, 0, d).orNull
        case _ => null
      }
    } else to match {
      case d: DecimalType if d.precision <= Decimal.MAX_LONG_DIGITS && SmallDecimal.isWellFormed(value) =>
        unrounded(SmallDecimal.unscaled(value), SmallDecimal.scale(value), d).orNull
      case _ => null
    }
  }

  /**
   * The same as the BigDecimal form below for a target of at most 18 digits, on the unscaled long:
   * Spark's variant decimal drops trailing zeros, so only non-zero digits beyond `d`'s scale
   * would need rounding. No BigDecimal is made, which is most of what a residual number costs.
   */
  private def unrounded(unscaled: Long, scale: Int, d: DecimalType): Option[Decimal] = {
    if (d.scale < 0) return None
    var n = unscaled
    var s = scale
    while (s > d.scale && n % 10 == 0) { n /= 10; s -= 1 }
    if (s > d.scale) return None
    // Scaled up by 10^k, n fits the target's digits if it has at most precision - k of its own.
    val k = d.scale - s
    val bound = SmallDecimal.PowersOfTen(d.precision - k)
    if (n > -bound && n < bound) {
      Some(Decimal.createUnsafe(n * SmallDecimal.PowersOfTen(k), d.precision, d.scale))
    } else None
  }

  /**
   * A number as a decimal of type `d` where that needs no rounding (its scale is at most `d`'s)
   * and fits: then the cast's value is the number itself at `d`'s scale and `d`'s precision, as
   * `Cast` leaves it. Rounding and overflow are left to the cast.
   */
  private def unrounded(n: java.math.BigDecimal, d: DecimalType): Option[Decimal] =
    if (n.scale > d.scale) None else {
      val value = Decimal(n.setScale(d.scale))
      if (value.changePrecision(d.precision, d.scale)) Some(value) else None
    }

  /**
   * A string value cast to a number or boolean as `VariantGet.cast` casts it: a TRY `Cast` of the
   * string as a literal. Here one `Cast` is built per expression instead of one per value (Spark
   * builds an expression tree, reading the session conf, for every value it casts). Null where
   * that cast fails; the caller then takes `VariantGet.cast`, which raises or returns null.
   */
  final class FromString(to: DataType, timeZoneId: Option[String]) {
    private val cast = Cast(BoundReference(0, StringType, nullable = true), to, timeZoneId, EvalMode.TRY)
    private val row = new GenericInternalRow(1)

    def apply(v: Variant): Any = {
      row.update(0, UTF8String.fromString(v.getString))
      cast.eval(row)
    }
  }

  def fromString(to: DataType, timeZoneId: Option[String]): Option[FromString] = to match {
    case ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | BooleanType |
         _: DecimalType => Some(new FromString(to, timeZoneId))
    case _ => None
  }
}
