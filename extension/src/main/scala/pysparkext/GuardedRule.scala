package pysparkext

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.pysparkext.{DataError, SparkInternalsProbe}
import org.apache.spark.sql.types.DataType

/** Raised in strict mode when a rule of the extension fails internally. */
class PySparkExtRuleException(rule: String, cause: Throwable)
  extends RuntimeException(
    s"pyspark-ext rule $rule failed (strict mode, ${ExtConf.Strict}=true): ${cause.getMessage}",
    cause)

/**
 * A rewrite (of a logical or a physical plan) run under the extension's switches. It does nothing
 * when the master switch or its feature switch is off. An internal error, or a rewrite that would
 * change the query's output schema, leaves the plan as Spark planned it and logs a warning; in
 * strict mode it fails the query instead. Optimisations are best effort, so falling back is always
 * correct.
 */
abstract class GuardedPlanRule[P <: QueryPlan[P]] extends Rule[P] with Logging {
  /** The switch of this feature. */
  protected def featureConf: ConfEntry[Boolean]

  protected def rewrite(plan: P): P

  /** False for rules whose purpose is to change what a relation presents (analysis rules). */
  protected def preservesSchema: Boolean = true

  final override def apply(plan: P): P = {
    ExtConf.check()  // outside the fallback below: a bad setting is the user's to fix
    if (!ExtConf.enabled || !SparkInternalsProbe.on(featureConf)) return plan
    try {
      if (ExtConf.forceFailure) {
        throw new IllegalStateException(s"forced failure (${ExtConf.ForceFailure}=true)")
      }
      val out = rewrite(plan)
      if (preservesSchema && !(out eq plan) && !DataType.equalsIgnoreNullability(out.schema, plan.schema)) {
        throw new IllegalStateException(
          s"rewrite changed the query output from ${plan.schema.catalogString} " +
            s"to ${out.schema.catalogString}")
      }
      out
    } catch {
      // Bad input is the user's to fix, in any mode: falling back would only fail later, worse.
      case e: DataError => throw e
      case NonFatal(e) if !ExtConf.strict =>
        logWarning(s"pyspark-ext rule $ruleName failed, so this query runs without it " +
          s"(set ${ExtConf.Strict}=true to fail instead): $e", e)
        plan
      case e: PySparkExtRuleException => throw e
      case NonFatal(e) => throw new PySparkExtRuleException(ruleName, e)
    }
  }
}

/** A guarded logical rewrite. */
abstract class GuardedRule extends GuardedPlanRule[LogicalPlan]
