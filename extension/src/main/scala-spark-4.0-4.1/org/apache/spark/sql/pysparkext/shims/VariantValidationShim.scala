package org.apache.spark.sql.pysparkext.shims

import java.time.ZoneOffset

import org.apache.spark.types.variant.Variant

/**
 * Whether a variant value is well formed against its metadata, before Spark 4.2 had
 * `VariantUtil.isValidVariant`: the value is decoded whole (every nested value, every dictionary
 * id), which throws on bytes out of bounds, unknown type ids and ids past the dictionary. It is
 * the nearest check these lines have; it may accept a value 4.2's check would reject for a
 * non-canonical encoding that still decodes, which then reads as it decodes.
 */
object VariantValidationShim {
  val description: String = "a whole decode of the value (Spark before 4.2 has no isValidVariant)"

  def isValid(value: Array[Byte], metadata: Array[Byte]): Boolean = {
    new Variant(value, metadata).toJson(ZoneOffset.UTC)
    true
  }
}
