package pysparkext.exec

import org.apache.spark.sql.catalyst.expressions.{And, Expression, PredicateHelper}
import org.apache.spark.sql.execution.{FileSourceScanExec, FilterExec, SparkPlan}

import pysparkext.{ExtConf, GuardedPlanRule}
import pysparkext.variant.rules.ShreddedSkipPredicates

/**
 * Leaves the skip predicates of shredded variant paths out of the row filter right above the
 * scan that pushed them to Parquet.
 *
 * Why: [[ShreddedSkipPredicates]] adds them to the filter so that Spark's planning pushes them to
 * the scan, where Parquet skips row groups and pages by them. Evaluated again on every row they
 * decide nothing, and they make the generated code of the filter larger than with skipping off.
 *
 * Safe because each such predicate (tagged [[ShreddedSkipPredicates.Added]]) is implied by the
 * filter's other conjuncts, which stay: a row passes the filter without it exactly when it
 * passes with it. The scan keeps it among its pushed filters, so what Parquet skips is unchanged.
 * A filter left with nothing else keeps everything.
 *
 * Before:
 * {{{
 *   Filter (shredded_variant_get(...) = 7) AND (v.object.id.typed_value = 7 OR isnotnull(...))
 *   +- FileScan parquet [v#1] PushedFilters: [Or(EqualTo(v.object.id.typed_value,7), ...)]
 * }}}
 * After:
 * {{{
 *   Filter shredded_variant_get(...) = 7
 *   +- FileScan parquet [v#1] PushedFilters: [Or(EqualTo(v.object.id.typed_value,7), ...)]
 * }}}
 */
object SkipPredicatesOnlyInScans extends GuardedPlanRule[SparkPlan] with PredicateHelper {
  override protected def featureConf = ExtConf.VariantSkipping

  override protected def rewrite(plan: SparkPlan): SparkPlan = plan.transformUp {
    case f @ FilterExec(condition, scan: FileSourceScanExec) =>
      val (added, others) = splitConjunctivePredicates(condition).partition(ShreddedSkipPredicates.isAdded)
      if (added.isEmpty || others.isEmpty) f else f.copy(condition = others.reduce[Expression](And), child = scan)
  }
}
