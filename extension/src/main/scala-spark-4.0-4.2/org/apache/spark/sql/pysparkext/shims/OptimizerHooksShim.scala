package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

/** Optimizer hooks that differ between Spark lines. */
object OptimizerHooksShim {
  /** Where rules that must run before Spark's operator optimisation go on this line. */
  val beforeOperatorOptimization: String = "the pre-operator-optimization batch"

  /**
   * Spark before 4.3 has no batch before operator optimisation that an extension can join:
   * `injectOptimizerRule` appends to the operator optimisation batch itself, after the rule this
   * hook exists to run ahead of. So nothing is injected here; see `docs/spark-versions.md`.
   */
  def injectBeforeOperatorOptimization(
      extensions: SparkSessionExtensions, rule: Rule[LogicalPlan]): Unit = ()
}
