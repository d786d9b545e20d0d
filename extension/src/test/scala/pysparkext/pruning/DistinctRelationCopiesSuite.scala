package pysparkext.pruning

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.dsl.plans._
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.{Inner, LeftOuter}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation, LogicalPlan}
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.pysparkext.SparkInternals

import pysparkext.ExtConf
import pysparkext.testing.{SparkRuleSuite, TestFiles}

class DistinctRelationCopiesSuite extends SparkRuleSuite {
  private lazy val relation: LogicalRelation =
    spark.read.parquet(TestFiles.users).queryExecution.analyzed.collectFirst { case r: LogicalRelation => r }.get
  private val id10 = $"id10".long

  /** The decorrelated plan of the rule's scaladoc, with `copy` as the subquery's relation. */
  private def decorrelated(copy: LogicalRelation): LogicalPlan = {
    val Seq(id, u) = relation.output
    val outerSide = Filter(path(u, "geo.lat") < Literal(10.0), relation)
    val distinct = SparkInternals.newAlias(id, "id20")
    val Seq(cid, cu) = copy.output
    val copied = Filter(path(cu, "geo.lat") < Literal(10.0), copy)
      .groupBy(cid)(SparkInternals.alias(cid, "id20", distinct.exprId))
      .join(LocalRelation(id10), Inner, Some(id10 >= distinct.toAttribute))
      .groupBy(distinct.toAttribute)(distinct.toAttribute)
    outerSide.join(copied, LeftOuter, Some(distinct.toAttribute <=> id))
  }

  test("a second copy of a scan with the same ids gets ids of its own") {
    val fresh = relation.newInstance()
    comparePlans(DistinctRelationCopies(decorrelated(relation)), decorrelated(fresh))
  }

  test("a plan whose scans are distinct is left alone") {
    assertUnchanged(DistinctRelationCopies, decorrelated(relation.newInstance()))
  }

  test("nothing changes with nested schema pruning off") {
    withConf(ExtConf.NestedSchemaPruning.key -> "false") {
      assertUnchanged(DistinctRelationCopies, decorrelated(relation))
    }
  }
}
