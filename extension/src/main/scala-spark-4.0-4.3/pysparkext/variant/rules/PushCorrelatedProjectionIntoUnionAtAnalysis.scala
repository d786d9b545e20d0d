package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeMap, Expression, NamedExpression, OuterReference, SubqueryExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Project, SubqueryAlias, Union}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.pysparkext.SparkInternals.{AggregateOf, ProjectOf}

import pysparkext.{ExtConf, GuardedRule}

/**
 * [[PushCorrelatedProjectionThroughUnion]] for Spark lines that have no batch before operator
 * optimisation (4.0 to 4.2): the same push, done at the end of analysis (post-hoc resolution),
 * before `PullupCorrelatedPredicates` has moved the correlation into the subquery's expression.
 *
 * Why: Spark's `PushProjectionThroughUnion` fails on a `Project` holding a correlated subquery
 * over a `Union` on these lines too, and the extension reads every table whose files shred
 * differently as such a Union ([[ResolveShreddedVariantRelations]]). An extension's optimizer
 * rules run after Spark's in the operator optimisation batch, too late; analysis is the nearest
 * point before it. Here the correlation is still an `OuterReference` inside the subquery's plan,
 * with the outer columns it reads as the subquery expression's children, so both are mapped to
 * each Union child's columns.
 *
 * Safe for the reason Spark's own rule is: a deterministic projection evaluated per child of a
 * UNION ALL gives the same rows as evaluated over the Union, and the subquery is the same plan
 * for every child, with only its outer columns mapped. Aliases over the Union (the table's name)
 * are dropped: analysis is over, nothing resolves by them any more. An Aggregate grouping by a
 * correlated subquery over a Union gets its grouping expressions pulled out into a Project below
 * it first, as Spark's `PullOutGroupingExpressions` does, and that Project is pushed.
 *
 * Before (analysed):
 * {{{
 *   Project [id#2L, scalar-subquery#0 [id#2L] AS s#1]
 *   :  +- Aggregate [max(x.id)] +- Filter (x.id >= outer(id#2L)) +- ...
 *   +- SubqueryAlias e
 *      +- Union
 *         :- Project [id#2L, reconstruct_shredded_variant(v#4) AS v#3]  (file group 1)
 *         +- Project [id#5L, reconstruct_shredded_variant(v#6) AS v#7]  (file group 2)
 * }}}
 * After:
 * {{{
 *   Union
 *   :- Project [id#2L, scalar-subquery#0 [id#2L] AS s#1]       (outer(id#2L) inside)
 *   :  +- Project [id#2L, reconstruct_shredded_variant(v#4) AS v#3]
 *   +- Project [id#5L, scalar-subquery#0 [id#5L] AS s#20]      (outer(id#5L) inside)
 *      +- Project [id#5L, reconstruct_shredded_variant(v#6) AS v#7]
 * }}}
 */
object PushCorrelatedProjectionIntoUnionAtAnalysis extends GuardedRule {
  override protected def featureConf = ExtConf.ShreddedVariant

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case ProjectOf(list, UnderAliases(u: Union)) if u.children.size > 1 &&
        list.forall(_.deterministic) && list.exists(holdsCorrelatedSubquery) =>
      pushed(list, u)
    // Spark pulls grouping expressions out into a Project below the Aggregate before operator
    // optimisation (PullOutGroupingExpressions), which meets the same failure: pull them out
    // here, as Spark would, and push that Project.
    case a @ AggregateOf(groups, aggregates, UnderAliases(u: Union)) if u.children.size > 1 &&
        groups.forall(_.deterministic) && groups.exists(holdsCorrelatedSubquery) =>
      val pulled = groups.filter(holdsCorrelatedSubquery).distinct
        .map(g => g -> SparkInternals.newAlias(g, "_groupingexpression"))
      def byColumn(e: Expression): Expression = e.transformDown {
        case g if pulled.exists(_._1.semanticEquals(g)) =>
          pulled.find(_._1.semanticEquals(g)).get._2.toAttribute
      }
      a.asInstanceOf[Aggregate].copy(
        groupingExpressions = groups.map(byColumn),
        aggregateExpressions = aggregates.map(byColumn(_).asInstanceOf[NamedExpression]),
        child = pushed(u.output ++ pulled.map(_._2), u))
  }

  /** `Project(list, u)` as a Union of one Project per child. */
  private def pushed(list: Seq[NamedExpression], u: Union): LogicalPlan = {
    val first = u.children.head
    u.withNewChildren(Project(list, first) +: u.children.tail.map { child =>
      val rewrites = AttributeMap(first.output.zip(child.output))
      Project(list.map(toChild(_, rewrites)), child)
    })
  }

  private object UnderAliases {
    def unapply(plan: LogicalPlan): Option[LogicalPlan] = plan match {
      case a: SubqueryAlias => unapply(a.child)
      case other => Some(other)
    }
  }

  private def holdsCorrelatedSubquery(e: Expression): Boolean =
    SubqueryExpression.hasCorrelatedSubquery(e)

  private def toChild(e: NamedExpression, rewrites: AttributeMap[Attribute]): NamedExpression =
    mapped(e, rewrites) match {
      // Each child of a Union defines its own columns.
      case a: Alias => SparkInternals.newAlias(a.child, a.name)
      case other: NamedExpression => other
      case other => throw new IllegalStateException(s"not a named expression: $other")
    }

  /** `e` reading the child's columns: its own, and those its subqueries read as outer columns. */
  private def mapped(e: Expression, rewrites: AttributeMap[Attribute]): Expression = e.transform {
    case s: SubqueryExpression if SubqueryExpression.hasCorrelatedSubquery(s) =>
      s.withNewPlan(s.plan.transformAllExpressionsWithSubqueries {
        case OuterReference(a: Attribute) if rewrites.contains(a) => OuterReference(rewrites(a))
      })
    case a: Attribute => rewrites.getOrElse(a, a)
  }
}
