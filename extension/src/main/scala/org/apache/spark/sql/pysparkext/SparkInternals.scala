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

/** Shipping a Hadoop configuration to executors, as Spark's own file formats do. */
object HadoopConfShipping {
  /** A serializable function that returns `conf` on an executor, broadcast once per scan. */
  def ship(sc: org.apache.spark.SparkContext,
           conf: org.apache.hadoop.conf.Configuration): () => org.apache.hadoop.conf.Configuration = {
    val shipped = org.apache.spark.util.SerializableConfiguration.broadcast(sc, conf)
    () => shipped.value.value
  }
}
