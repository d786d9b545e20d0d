package org.apache.spark.sql.pysparkext

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.DataSourceStrategy
import org.apache.spark.sql.sources

/** The few Spark APIs the extension needs that Spark keeps package-private. */
object SparkInternals {
  /** A data filter as Spark hands it to a file format that reaches nested fields (Parquet). */
  def toSourceFilter(e: Expression): Option[sources.Filter] =
    DataSourceStrategy.translateFilter(e, supportNestedPredicatePushdown = true)

  /** Whether `t` or a type nested in it (fields, elements, map keys and values) satisfies `p`. */
  def existsRecursively(t: org.apache.spark.sql.types.DataType)(
      p: org.apache.spark.sql.types.DataType => Boolean): Boolean = t.existsRecursively(p)

  /** A copy of the session (its settings, catalog and extensions) with some settings changed. */
  def withSettings(session: org.apache.spark.sql.SparkSession, settings: Map[String, String])
      : org.apache.spark.sql.SparkSession = {
    val copy = session.asInstanceOf[org.apache.spark.sql.classic.SparkSession].cloneSession()
    settings.foreach { case (k, v) => copy.sessionState.conf.setConfString(k, v) }
    copy
  }
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
