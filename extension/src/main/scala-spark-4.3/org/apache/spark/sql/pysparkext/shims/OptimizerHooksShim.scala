package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

/** Optimizer hooks that differ between Spark lines. */
object OptimizerHooksShim {
  /** Where rules that must run before Spark's operator optimisation go on this line. */
  val beforeOperatorOptimization: String = "the pre-operator-optimization batch"

  /** Injects `rule` to run right before Spark's operator optimisation batch. */
  def injectBeforeOperatorOptimization(
      extensions: SparkSessionExtensions, rule: Rule[LogicalPlan]): Unit =
    extensions.injectPreOperatorOptimizationRule(_ => rule)
}
