package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

/** Optimizer hooks that differ between Spark lines. */
object OptimizerHooksShim {
  /** Injects `rule` into the batch right before Spark's operator optimisation (Spark 4.3+). */
  def injectBeforeOperatorOptimization(
      extensions: SparkSessionExtensions, rule: Rule[LogicalPlan],
      atAnalysis: Rule[LogicalPlan]): Unit =
    extensions.injectPreOperatorOptimizationRule(_ => rule)

  /** The rules injected before operator optimisation, as Spark builds them for `session`. */
  def beforeOperatorOptimizationRules(
      extensions: SparkSessionExtensions, session: SparkSession): Seq[Rule[LogicalPlan]] =
    extensions.buildPreOperatorOptimizationRules(session)
}
