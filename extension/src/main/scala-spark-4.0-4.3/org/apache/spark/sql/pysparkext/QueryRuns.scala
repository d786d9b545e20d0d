package org.apache.spark.sql.pysparkext

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic
import org.apache.spark.sql.execution.SQLExecution

/** A DataFrame for a plan, and running one for its metrics (Spark keeps both package-private). */
object QueryRuns {
  def dataFrame(session: classic.SparkSession, plan: LogicalPlan): DataFrame =
    classic.Dataset.ofRows(session, plan)

  /**
   * Runs `df`'s executed plan once as an action named `name` (shown in the UI's SQL tab), rows
   * discarded on the executors, so the plan's SQL metrics hold what this run read.
   */
  def runDiscardingRows(df: DataFrame, name: String): Unit = {
    val qe = df.asInstanceOf[classic.Dataset[_]].queryExecution
    SQLExecution.withNewExecutionId(qe, Some(name)) {
      qe.executedPlan.resetMetrics()
      qe.executedPlan.execute().foreach(_ => ())
    }
  }
}
