package pysparkext.variant

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
    case _ => None
  }
}
