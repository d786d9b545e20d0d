package pysparkext.exec

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeMap, Expression, NamedExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateFunction, Complete, Partial}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.pysparkext.SparkInternals.AggregateExpressionOf

import pysparkext.{ExtConf, GuardedPlanRule}
import pysparkext.variant.expressions.ShreddedVariantGet

/**
 * Computes the inputs of aggregate functions that read shredded variant paths in a projection
 * below the aggregate, `sum(path)` over `Project(cols)` becoming `sum(_path)` over
 * `Project(path AS _path, ...)`.
 *
 * Why: in generated code an aggregate reads every input column of a row before evaluating
 * anything, while a projection reads a column used once only where it is used. A path read's
 * general branch uses columns most rows never need, the spec layout's `metadata` above all (a
 * binary in every row, copied per row when read); under the projection they are read only in
 * the rows that fall back to the general read.
 *
 * Safe because the moved expression is an aggregate function's whole input, deterministic, in an
 * aggregate that evaluates its inputs once for every input row (partial or complete mode, no
 * `FILTER` clause, no distinct aggregation): the projection evaluates it for the same rows, once
 * each, conditional parts and errors included. Grouping keys are already projected by Spark.
 *
 * Before:
 * {{{
 *   HashAggregate [k#1], [sum(shredded_variant_get(v#2.typed_value, v#2.value, v#2.metadata, ...))]
 *   +- Project [k#1, v#2]
 *      +- FileScan parquet [k#1, v#2]
 * }}}
 * After:
 * {{{
 *   HashAggregate [k#1], [sum(_path#5)]
 *   +- Project [k#1, shredded_variant_get(v#2.typed_value, v#2.value, v#2.metadata, ...) AS _path#5]
 *      +- FileScan parquet [k#1, v#2]
 * }}}
 */
object PathReadsBeforeAggregates extends GuardedPlanRule[SparkPlan] {
  override protected def featureConf = ExtConf.PathReadsBeforeAggregates

  override protected def rewrite(plan: SparkPlan): SparkPlan = plan.transformUp {
    case agg: BaseAggregateExec if evaluatesInputsPerRow(agg) =>
      val moved = mutable.LinkedHashMap.empty[Expression, Alias]
      agg.aggregateExpressions.foreach(_.aggregateFunction.children.foreach { input =>
        if (readsPath(input) && input.deterministic && !input.foldable) {
          moved.getOrElseUpdate(input.canonicalized, SparkInternals.newAlias(input, "_variant_path"))
        }
      })
      if (moved.isEmpty) agg else rewriteOver(agg, moved)
  }

  private def evaluatesInputsPerRow(agg: BaseAggregateExec): Boolean =
    agg.aggregateExpressions.nonEmpty && agg.aggregateExpressions.forall {
      case AggregateExpressionOf(_, mode, distinct, filter) =>
        (mode == Partial || mode == Complete) && filter.isEmpty && !distinct
    }

  private def readsPath(e: Expression): Boolean = e.exists(_.isInstanceOf[ShreddedVariantGet])

  /**
   * The aggregate reading the aliases' attributes from a projection that computes them: the
   * child's projection extended (its aliases substituted into the moved expressions), or a new
   * one over the child. Columns the aggregate no longer reads are dropped from it.
   */
  private def rewriteOver(
      agg: BaseAggregateExec,
      byInput: collection.Map[Expression, Alias]): SparkPlan = {
    val aliases = byInput.values.toSeq
    val (list, below) = agg.child match {
      case p: ProjectExec => (p.projectList, p.child)
      case other => (other.output, other)
    }
    val definitions = AttributeMap(list.collect { case a: Alias => a.toAttribute -> a.child })
    // Inlining a non-deterministic definition would evaluate it twice.
    val uses = aliases.flatMap(_.child.references).filter(definitions.contains)
    if (uses.exists(r => !definitions(r).deterministic)) return agg
    val newAgg = agg.transformExpressions {
      case ae @ AggregateExpressionOf(function, _, _, _) => SparkInternals.withAggregateFunction(ae,
        function.withNewChildren(function.children.map(c =>
          byInput.get(c.canonicalized).map(_.toAttribute).getOrElse(c)))
        .asInstanceOf[AggregateFunction])
    }.asInstanceOf[BaseAggregateExec]
    val computed = aliases.map { a =>
      a.withNewChildren(Seq(a.child.transformUp {
        case r: Attribute if definitions.contains(r) => definitions(r)
      })).asInstanceOf[NamedExpression]
    }
    val needed = newAgg.references
    val kept = list.filter(e => needed.contains(e.toAttribute))
    newAgg.withNewChildren(Seq(ProjectExec(kept ++ computed, below)))
  }
}
