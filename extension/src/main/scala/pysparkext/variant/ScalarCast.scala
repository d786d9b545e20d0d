package pysparkext.variant

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
    case (VariantUtil.Type.DECIMAL, d: DecimalType) => unrounded(v.getDecimal, d)
    case (VariantUtil.Type.LONG, d: DecimalType) => unrounded(java.math.BigDecimal.valueOf(v.getLong), d)
    case _ => None
  }

  /**
   * A number as a decimal of type `d` where that needs no rounding (its scale is at most `d`'s)
   * and fits: then the cast's value is the number itself at `d`'s scale. Rounding and overflow are
   * left to the cast.
   */
  private def unrounded(n: java.math.BigDecimal, d: DecimalType): Option[Decimal] =
    if (n.scale > d.scale) None else {
      val value = Decimal(n.setScale(d.scale))
      if (value.precision <= d.precision) Some(value) else None
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
