package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.SparkSession

/** Sessions on Spark 4.x, where the session that runs plans is `sql.classic.SparkSession`. */
object SessionShim {
  /** A copy of `session` (its settings, catalog and extensions). */
  def cloneSession(session: SparkSession): SparkSession =
    session.asInstanceOf[org.apache.spark.sql.classic.SparkSession].cloneSession()
}
