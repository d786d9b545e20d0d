package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{EqualTo, ScalarSubquery}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, Project, Union}
import org.apache.spark.sql.pysparkext.SparkInternals

import pysparkext.ExtConf
import pysparkext.testing.{RuleSuite, UnionChildren}

class PushCorrelatedProjectionThroughUnionSuite extends RuleSuite with UnionChildren {
  private val union = Union(Seq(first, second))
  // The subquery as PullupCorrelatedPredicates leaves it: its correlation in joinCond.
  private val inner = Project(Seq(xValue, xId), LocalRelation(xId, xValue))
  private def subquery(outer: org.apache.spark.sql.catalyst.expressions.Attribute) =
    ScalarSubquery(plan = inner, outerAttrs = Seq(outer), joinCond = Seq(EqualTo(xId, outer)))

  test("a correlated projection over a Union goes into each child, mapped to its columns") {
    val sub = subquery(id1)
    val before = Project(Seq(SparkInternals.newAlias(sub, "s")), union)
    val after = Union(Seq(
      Project(Seq(SparkInternals.newAlias(sub, "s")), first),
      Project(Seq(SparkInternals.newAlias(
        ScalarSubquery(plan = inner, outerAttrs = Seq(id2), exprId = sub.exprId,
          joinCond = Seq(EqualTo(xId, id2))), "s")), second)))
    val out = PushCorrelatedProjectionThroughUnion(before)
    comparePlans(out, after)
    assert(out.output.map(_.exprId) == before.output.map(_.exprId), "the first child keeps the ids")
  }

  test("a projection Spark pushes by itself is left to Spark") {
    val before = Project(Seq(SparkInternals.newAlias(id1 + 1L, "n")), union)
    assertUnchanged(PushCorrelatedProjectionThroughUnion, before)
  }

  test("nothing changes with the variant switch off") {
    val before = Project(Seq(SparkInternals.newAlias(subquery(id1), "s")), union)
    withConf(ExtConf.ShreddedVariant.key -> "false") {
      assertUnchanged(PushCorrelatedProjectionThroughUnion, before)
    }
  }
}
