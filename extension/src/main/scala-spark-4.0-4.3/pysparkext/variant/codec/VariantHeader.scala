package pysparkext.variant.codec

import org.apache.spark.types.variant.VariantUtil

/**
 * The first byte of a variant value, read with Spark's own constants: its basic type and, for a
 * primitive, the type id. Path reads ask it of every value they decode, before any other work.
 */
object VariantHeader {
  /** The primitive type id of `value` (`VariantUtil.INT8`, ...), or -1 for any other value. */
  def primitiveTypeId(value: Array[Byte]): Int =
    if (value.isEmpty || (value(0) & VariantUtil.BASIC_TYPE_MASK) != VariantUtil.PRIMITIVE) -1
    else VariantUtil.getTypeInfo(value, 0)

  /** A primitive or a short string: a value that refers to no dictionary entry. */
  def isScalar(value: Array[Byte]): Boolean =
    value.nonEmpty && (value(0) & VariantUtil.BASIC_TYPE_MASK) <= VariantUtil.SHORT_STR
}
