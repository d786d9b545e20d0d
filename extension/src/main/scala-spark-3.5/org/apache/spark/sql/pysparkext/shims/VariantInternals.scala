package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.types.StructType

/**
 * Spark 3.5 has no VARIANT, so the variant half's internals are absent here; the one question
 * shared code asks of any struct, whether it is Spark's struct of variant extractions, is
 * always no.
 */
trait VariantInternals {
  def isVariantStruct(s: StructType): Boolean = false
}
