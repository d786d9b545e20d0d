package pysparkext.testing

import scala.collection.mutable

import org.scalatest.Assertions

import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, Exists, Expression, ExprId,
  ListQuery, NamedLambdaVariable, ScalarSubquery}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.util.sideBySide
import org.apache.spark.sql.pysparkext.SparkInternals

/**
 * Compares plans as Spark's `PlanTest.comparePlans` does, without Spark's test jars (published
 * only for some Spark versions), so the suites compile against whichever pyspark is installed.
 *
 * Expression ids differ between a rule's output and a plan written by hand, so both plans are
 * normalised first: every id (attributes, aliases, subqueries, aggregate results, lambda
 * variables, inside subquery plans too) is renumbered in the order the plan first mentions it.
 * Unlike PlanTest, which sets every id to 0, renumbering keeps which references point at which
 * definition, so a rule that wires a column to the wrong source still fails. Names, types,
 * nullability and metadata are compared as they are.
 */
trait PlanComparison extends Assertions {

  def normalizeExprIds[P <: QueryPlan[P]](plan: P): P = {
    val ids = mutable.HashMap.empty[ExprId, ExprId]
    def id(old: ExprId): ExprId = ids.getOrElseUpdate(old, ExprId(ids.size.toLong))
    val renumber: PartialFunction[Expression, Expression] = {
      case a: AttributeReference => a.withExprId(id(a.exprId))
      case a: Alias => SparkInternals.alias(a.child, a.name, id(a.exprId), a.qualifier,
        a.explicitMetadata, a.nonInheritableMetadataKeys)
      case s: ScalarSubquery => s.copy(exprId = id(s.exprId))
      case e: Exists => e.copy(exprId = id(e.exprId))
      case l: ListQuery => l.copy(exprId = id(l.exprId))
      case a: AggregateExpression => a.copy(resultId = id(a.resultId))
      case v: NamedLambdaVariable => v.copy(exprId = id(v.exprId))
    }
    plan.transformDownWithSubqueries { case p => p.transformExpressionsDown(renumber) }
  }

  /** Fails, showing both plans side by side, unless they are equal up to expression ids. */
  def comparePlans[P <: QueryPlan[P]](actual: P, expected: P): Unit = {
    val a = normalizeExprIds(actual)
    val e = normalizeExprIds(expected)
    if (a != e) {
      fail(s"""
        |== plans differ (actual | expected), after renumbering expression ids ==
        |${sideBySide(a.treeString, e.treeString).mkString("\n")}
        |${attributeDifferences(a, e)}""".stripMargin)
    }
  }

  /** Plan strings hide types' nullability and metadata: name the first attributes that differ. */
  private def attributeDifferences[P <: QueryPlan[P]](a: P, e: P): String = {
    def attributes(p: P) = p.collect { case node => node.expressions.flatMap(_.collect {
      case r: AttributeReference => r
    }) }.flatten
    attributes(a).zip(attributes(e)).find { case (x, y) => x != y }.map { case (x, y) =>
      s"""first differing attribute:
        |  actual   ${x.name}#${x.exprId.id} ${x.dataType.json} nullable=${x.nullable} ${x.metadata.json}
        |  expected ${y.name}#${y.exprId.id} ${y.dataType.json} nullable=${y.nullable} ${y.metadata.json}""".stripMargin
    }.getOrElse("")
  }

  /** Fails unless `rule` returns `plan` itself: the rule must leave it alone. */
  def assertUnchanged[P <: QueryPlan[P]](rule: Rule[P], plan: P): Unit = {
    val out = rule(plan)
    if (!(out eq plan)) comparePlans(out, plan)
  }
}
