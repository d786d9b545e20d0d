package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.optimizer.{CollapseProject, ColumnPruning, RemoveNoopOperators}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.RuleExecutor
import org.apache.spark.sql.internal.SQLConf

import pysparkext.{ExtConf, GuardedRule}

/**
 * Turns path reads of a shredded variant (draft or spec layout) into reads of its shredded columns.
 *
 * A shredded column reaches the plan as `reconstruct_shredded_variant(s) AS v` over the struct `s`
 * ([[ResolveShreddedVariantRelations]], [[ReadIcebergVariantFiles]]). Every `variant_get`,
 * `try_variant_get`, `v:path` and cast of `v` with a constant path becomes a
 * [[pysparkext.variant.expressions.ShreddedVariantGet]] over `s`, and `v IS [NOT] NULL` (which
 * Spark also infers above filters on paths) and `count(v)` a null test of the parts of `s`
 * ([[ShreddedPaths.isPresent]]). Three steps, each an algorithm of its own:
 *  1. [[InlineShreddedPathReads]]: where the reconstruction is inline (filters pushed under the
 *     Project), in place;
 *  1. [[PushShreddedPathReadsIntoUnion]]: where an operator above a Union reads paths of a
 *     variant its children rebuild each from their own struct, into the children;
 *  1. [[CarryShreddedStructsUp]]: where an operator above reads `v` by attribute, `s` is carried
 *     up next to `v` and the operator reads the path from `s`.
 * Column pruning then drops `v` wherever nothing needs it whole (the clean-up batch below), and
 * nested schema pruning reads only the leaves on the paths.
 *
 * Safe because each step is (see each one's own account), and the clean-up is Spark's own
 * column pruning.
 *
 * {{{
 *   Before: Project [variant_get(reconstruct_shredded_variant(s), $.user.id, int) AS id]
 *           +- Relation [s: struct<untyped_value, object: struct<user: struct<...>>>]
 *   After:  Project [shredded_variant_get(s.object.user.object.id.typed_value,
 *                                         s.object.user.untyped_value, ..., $.user.id, int) AS id]
 *           +- Relation [s]
 * }}}
 */
object RewriteShreddedVariantPaths extends GuardedRule {
  override protected def featureConf = ExtConf.ShreddedVariant

  /**
   * Two passes, not a fixed point: the one thing a pass can leave for another is a read it pushed
   * into a Union's children, which becomes inline there once the first pass's clean-up has dropped
   * the variant column, and the second pass rewrites it. A third pass found nothing left in any
   * test; run to a fixed point it would cost every rewritten query that confirming pass.
   */
  override protected def rewrite(plan: LogicalPlan): LogicalPlan = {
    val once = rewriteOnce(plan)
    if (once eq plan) once else rewriteOnce(once)
  }

  private def rewriteOnce(plan: LogicalPlan): LogicalPlan = {
    if (!InlineShreddedPathReads.rebuildsAny(plan)) return plan
    val inlined = InlineShreddedPathReads(plan)
    val carried = CarryShreddedStructsUp(PushShreddedPathReadsIntoUnion(inlined))
    if (carried eq inlined) return inlined
    val narrowed = if (carried.output == plan.output) carried else Project(plan.output, carried)
    InlineShreddedPathReads(CleanUp.execute(narrowed))
  }

  /**
   * Drops what the steps left unread: the variant where only paths of it are read now, the
   * projections that only passed it on. One round can leave a column a later round removes, so
   * the rules run to a fixed point, bounded as Spark bounds its own operator optimisation.
   */
  private object CleanUp extends RuleExecutor[LogicalPlan] {
    override protected def batches: Seq[Batch] = Seq(Batch("Prune after shredded path reads",
      FixedPoint(SQLConf.get.optimizerMaxIterations, maxIterationsSetting = SQLConf.OPTIMIZER_MAX_ITERATIONS.key),
      ColumnPruning, CollapseProject, RemoveNoopOperators))
  }
}
