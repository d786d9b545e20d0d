package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.types.variant.VariantUtil

/** Whether a variant value is well formed against its metadata, by Spark's own check (4.2+). */
object VariantValidationShim {
  val description: String = "VariantUtil.isValidVariant(byte[], byte[])"

  def isValid(value: Array[Byte], metadata: Array[Byte]): Boolean =
    VariantUtil.isValidVariant(value, metadata)
}
