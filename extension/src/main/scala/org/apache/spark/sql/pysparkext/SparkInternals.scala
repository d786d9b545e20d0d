package org.apache.spark.sql.pysparkext

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.DataSourceStrategy
import org.apache.spark.sql.sources

/** The few Spark APIs the extension needs that Spark keeps package-private. */
object SparkInternals {
  /** A data filter as Spark hands it to a file format that reaches nested fields (Parquet). */
  def toSourceFilter(e: Expression): Option[sources.Filter] =
    DataSourceStrategy.translateFilter(e, supportNestedPredicatePushdown = true)
}
