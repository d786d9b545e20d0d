package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeMap, Expression, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project, Union}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.pysparkext.SparkInternals.ProjectOf

import pysparkext.{ExtConf, GuardedRule}

/**
 * Pushes a projection that holds a correlated subquery through a Union into the Union's
 * children, before Spark's `PushProjectionThroughUnion` would try and fail.
 *
 * Why: Spark 4.3's `PushProjectionThroughUnion` (first rule of the operator optimization batch)
 * rewrites a `Project` over a `Union` into one `Project` per child, mapping every attribute of the
 * projection from the first child's output to the other child's with `AttributeMap.apply`. After
 * `PullupCorrelatedPredicates`, a correlated subquery (scalar, `EXISTS`, `IN`) carries its
 * correlation condition as expression children (`joinCond`, e.g. `x.id = e.id`), and those name
 * attributes of the subquery's own plan (`x.id`), which no Union child outputs: the lookup throws
 * `java.util.NoSuchElementException: key not found: id#..`. Stock Spark fails so on any
 * `SELECT (SELECT .. WHERE x.id = e.id) FROM (.. UNION ALL ..) e` (SPARK-59042); the extension
 * meets it on every spec or draft table whose files are read as a Union of per-file scans
 * ([[ResolveShreddedVariantRelations]]). This rule runs in the batch just before (injected as a
 * pre-operator-optimization rule) and pushes such projections itself, mapping only the Union's
 * output attributes and leaving the subquery's own attributes as they are. Spark's rule then
 * meets a `Project` over each child, never the failing shape.
 *
 * Safe because a deterministic projection evaluated per child of a UNION ALL gives the same rows
 * as evaluated over the Union (the reasoning of Spark's own rule), and the correlated subquery
 * is the same plan for every child: only its outer side, the Union's columns, differs per child,
 * as it does when Spark pushes a filter holding a correlated subquery into a Union's children
 * (`PushPredicateThroughNonJoin`). The rule fires only where Spark's rule would throw, so no
 * plan Spark can optimise changes.
 *
 * Before (after `PullupCorrelatedPredicates`):
 * {{{
 *   Project [scalar-subquery#0 [id#2L && (id#10L = id#2L)] AS s#1]
 *   +- Union
 *      :- Project [id#2L, reconstruct_shredded_variant(v#4) AS v#3]  (file group 1)
 *      +- Project [id#5L, reconstruct_shredded_variant(v#6) AS v#7]  (file group 2)
 * }}}
 * After:
 * {{{
 *   Union
 *   :- Project [scalar-subquery#0 [id#2L && (id#10L = id#2L)] AS s#1]
 *   :  +- Project [id#2L, reconstruct_shredded_variant(v#4) AS v#3]
 *   +- Project [scalar-subquery#0 [id#5L && (id#10L = id#5L)] AS s#20]
 *      +- Project [id#5L, reconstruct_shredded_variant(v#6) AS v#7]
 * }}}
 */
object PushCorrelatedProjectionThroughUnion extends GuardedRule {
  override protected def featureConf = ExtConf.ShreddedVariant

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case ProjectOf(list, u: Union) if u.children.nonEmpty && list.forall(_.deterministic) &&
        sparkWouldFail(list, u) =>
      val first = u.children.head
      u.withNewChildren(Project(list, first) +: u.children.tail.map { child =>
        val rewrites = AttributeMap(first.output.zip(child.output))
        Project(list.map(toChild(_, rewrites)), child)
      })
  }

  /** Spark's rule looks up every attribute of the projection among the first child's columns. */
  private def sparkWouldFail(list: Seq[NamedExpression], u: Union): Boolean = {
    val columns = u.children.head.outputSet
    list.exists(_.exists {
      case a: Attribute => !columns.contains(a)
      case _ => false
    })
  }

  private def toChild(e: NamedExpression, rewrites: AttributeMap[Attribute]): NamedExpression =
    e.transform { case a: Attribute => rewrites.getOrElse(a, a) } match {
      // Each child of a Union defines its own columns.
      case a: Alias => SparkInternals.newAlias(a.child, a.name)
      case other: NamedExpression => other
      case other: Expression => throw new IllegalStateException(s"not a named expression: $other")
    }
}
