package org.apache.spark.sql.pysparkext.shims

import org.apache.parquet.schema.MessageType

import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.execution.datasources.parquet.ParquetFilters

/** `ParquetFilters` on Spark 3.5 to 4.2: eight parameters. */
object ParquetFiltersShim {
  val signature: String =
    "ParquetFilters(MessageType, boolean, boolean, boolean, boolean, int, boolean, RebaseSpec)"

  val parameterTypes: Seq[Class[_]] = Seq(classOf[MessageType], java.lang.Boolean.TYPE,
    java.lang.Boolean.TYPE, java.lang.Boolean.TYPE, java.lang.Boolean.TYPE, Integer.TYPE,
    java.lang.Boolean.TYPE, classOf[RebaseSpec])

  def apply(
      schema: MessageType, date: Boolean, timestamp: Boolean, decimal: Boolean,
      stringPredicate: Boolean, inThreshold: Int, caseSensitive: Boolean,
      rebase: RebaseSpec): ParquetFilters =
    new ParquetFilters(schema, date, timestamp, decimal, stringPredicate, inThreshold,
      caseSensitive, rebase)
}
