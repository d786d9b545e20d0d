package pysparkext.exec

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ColumnarRule, SparkPlan}
import org.apache.spark.sql.pysparkext.shims.VariantHalfShim

/**
 * The extension's one columnar rule: its physical rewrites, applied in the order of [[rewrites]]
 * before Spark inserts its row/column transitions (once for the whole plan, again per adaptive
 * query stage). The order is a list rather than nested calls so that the docs' table of wired
 * rules (`python -m pyspark_ext rules`) reads the order that runs.
 *
 * Each rewrite is a guarded rule with its own switch, and each leaves a plan it has already
 * rewritten as it is, so running them again on a query stage is safe.
 */
class PreColumnarRewrites(session: SparkSession) extends ColumnarRule {
  /** Path reads moved below aggregates first (their projection then feeds the scan), then nested
   * leaves as columns, then the row-group counters above the scans those leave. */
  val rewrites: Seq[Rule[SparkPlan]] =
    VariantHalfShim.beforeLeavesAsColumns ++ Seq(NestedLeavesAsColumns, new InsertRowGroupMetrics(session))

  override def preColumnarTransitions: Rule[SparkPlan] = new Rule[SparkPlan] {
    override def apply(plan: SparkPlan): SparkPlan = rewrites.foldLeft(plan)((p, rule) => rule(p))
  }
}
