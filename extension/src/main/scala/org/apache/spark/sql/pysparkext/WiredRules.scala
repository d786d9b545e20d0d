package org.apache.spark.sql.pysparkext

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.analysis.SimpleFunctionRegistry
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.pysparkext.shims.OptimizerHooksShim

import pysparkext.PySparkExtSessionExtensions
import pysparkext.exec.PreColumnarRewrites

/**
 * What the entry class wires, read back from Spark's own `SparkSessionExtensions`: the class is
 * applied to a fresh one, whose builders (package-private, hence this layer) then build each
 * stage's rules as a session would, in the order Spark runs them. `docs/architecture.md`'s table
 * of wired rules is generated from [[listing]], so the docs cannot drift from the wiring.
 */
object WiredRules {
  /** The pre-CBO rules the entry class wires, as Spark builds them for `session`, in their order. */
  def preCBORules(session: SparkSession): Seq[Rule[LogicalPlan]] =
    wired.buildPreCBORules(session).toSeq

  private def wired: SparkSessionExtensions = {
    val extensions = new SparkSessionExtensions
    new PySparkExtSessionExtensions().apply(extensions)
    extensions
  }

  /** One line per wired rule or function: its stage, a tab, its name; stages in the order Spark
   * runs them, rules within a stage in their order. */
  def listing(session: SparkSession): String = {
    val extensions = wired
    val columnar = extensions.buildColumnarRules(session).toSeq.flatMap {
      case c: PreColumnarRewrites => c.rewrites.map(name)
      case other => Seq(other.getClass.getName)
    }
    val functions = extensions.registerFunctions(new SimpleFunctionRegistry).listFunction()
      .map(_.funcName).sorted
    val stages: Seq[(String, Seq[String])] = Seq(
      "analysis: resolution" -> extensions.buildResolutionRules(session).toSeq.map(name),
      "analysis: post-hoc resolution" -> extensions.buildPostHocResolutionRules(session).toSeq.map(name),
      "optimizer: before operator optimisation" ->
        OptimizerHooksShim.beforeOperatorOptimizationRules(extensions, session).map(name),
      "optimizer: operator optimisation" -> extensions.buildOptimizerRules(session).toSeq.map(name),
      "optimizer: pre-CBO" -> extensions.buildPreCBORules(session).toSeq.map(name),
      "physical: before columnar transitions" -> columnar,
      "SQL functions" -> functions)
    stages.flatMap { case (stage, names) => names.map(n => s"$stage\t$n") }.mkString("\n")
  }

  private def name(rule: Rule[_]): String = rule.getClass.getSimpleName.stripSuffix("$")
}
