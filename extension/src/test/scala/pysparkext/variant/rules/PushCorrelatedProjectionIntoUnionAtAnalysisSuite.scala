package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{Attribute, GreaterThanOrEqual, OuterReference, ScalarSubquery}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, LocalRelation, Project, SubqueryAlias, Union}
import org.apache.spark.sql.pysparkext.SparkInternals

import pysparkext.ExtConf
import pysparkext.testing.{RuleSuite, UnionChildren}

class PushCorrelatedProjectionIntoUnionAtAnalysisSuite extends RuleSuite with UnionChildren {
  // The table's files as analysis presents them: a Union of per-file scans under the table's name.
  private val table = SubqueryAlias("e", Union(Seq(first, second)))

  // The subquery as analysis leaves it: the correlation an OuterReference inside its plan, the
  // outer column it reads among its children.
  private def inner(outer: Attribute) =
    Project(Seq(xValue), Filter(GreaterThanOrEqual(xId, OuterReference(outer)), LocalRelation(xId, xValue)))
  private val sub = ScalarSubquery(plan = inner(id1), outerAttrs = Seq(id1))
  private def subOf(outer: Attribute) =
    ScalarSubquery(plan = inner(outer), outerAttrs = Seq(outer), exprId = sub.exprId)

  test("a correlated projection over the table's Union goes into each child, outer columns mapped") {
    val before = Project(Seq(id1, SparkInternals.newAlias(sub, "s")), table)
    val after = Union(Seq(
      Project(Seq(id1, SparkInternals.newAlias(sub, "s")), first),
      Project(Seq(id2, SparkInternals.newAlias(subOf(id2), "s")), second)))
    val out = PushCorrelatedProjectionIntoUnionAtAnalysis(before)
    comparePlans(out, after)
    assert(out.output.map(_.exprId) == before.output.map(_.exprId), "the first child keeps the ids")
  }

  test("grouping by a correlated subquery is pulled into a Project, which is pushed") {
    val before = Aggregate(Seq(sub), Seq(SparkInternals.newAlias(sub, "s"),
      SparkInternals.newAlias(count(v1), "n")), table)
    val pulled = SparkInternals.newAlias(sub, "_groupingexpression")
    val after = Aggregate(Seq(pulled.toAttribute), Seq(SparkInternals.newAlias(pulled.toAttribute, "s"),
      SparkInternals.newAlias(count(v1), "n")), Union(Seq(
        Project(Seq(id1, v1, pulled), first),
        Project(Seq(id2, v2, SparkInternals.newAlias(subOf(id2), "_groupingexpression")), second))))
    comparePlans(PushCorrelatedProjectionIntoUnionAtAnalysis(before), after)
  }

  test("a projection Spark pushes by itself is left to Spark") {
    assertUnchanged(PushCorrelatedProjectionIntoUnionAtAnalysis,
      Project(Seq(SparkInternals.newAlias(id1 + 1L, "n")), table))
  }

  test("a Union of one child is left alone") {
    assertUnchanged(PushCorrelatedProjectionIntoUnionAtAnalysis,
      Project(Seq(SparkInternals.newAlias(sub, "s")), Union(Seq(first))))
  }

  test("nothing changes with the variant switch off") {
    withConf(ExtConf.ShreddedVariant.key -> "false") {
      assertUnchanged(PushCorrelatedProjectionIntoUnionAtAnalysis,
        Project(Seq(SparkInternals.newAlias(sub, "s")), table))
    }
  }
}
