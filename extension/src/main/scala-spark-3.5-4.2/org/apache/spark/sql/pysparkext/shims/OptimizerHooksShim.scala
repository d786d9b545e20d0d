package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule

/** Optimizer hooks that differ between Spark lines. */
object OptimizerHooksShim {
  /**
   * Spark before 4.3 has no batch before operator optimisation that an extension can join:
   * `injectOptimizerRule` appends to the operator optimisation batch itself, after the Spark rule
   * that `rule` must run ahead of. So `atAnalysis`, the same rewrite made before the optimizer
   * starts, is injected instead (see `docs/spark-versions.md`).
   */
  def injectBeforeOperatorOptimization(
      extensions: SparkSessionExtensions, rule: Rule[LogicalPlan],
      atAnalysis: Rule[LogicalPlan]): Unit =
    extensions.injectPostHocResolutionRule(_ => atAnalysis)

  /** The rules injected before operator optimisation: none, as these lines have no such batch. */
  def beforeOperatorOptimizationRules(
      extensions: SparkSessionExtensions, session: SparkSession): Seq[Rule[LogicalPlan]] = Nil
}
