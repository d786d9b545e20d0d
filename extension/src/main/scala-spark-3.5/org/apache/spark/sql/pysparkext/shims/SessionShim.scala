package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.SparkSession

/** Sessions on Spark 3.5, which has no `sql.classic` package: every session runs plans itself. */
object SessionShim {
  /** A copy of `session` (its settings, catalog and extensions). */
  def cloneSession(session: SparkSession): SparkSession = session.cloneSession()
}
