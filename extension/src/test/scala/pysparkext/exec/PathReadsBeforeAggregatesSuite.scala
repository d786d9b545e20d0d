package pysparkext.exec

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, NamedExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateFunction, Partial}
import org.apache.spark.sql.execution.{ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.pysparkext.SparkInternals

import pysparkext.ExtConf
import pysparkext.testing.{SparkRuleSuite, TestFiles}
import pysparkext.variant.expressions.ShreddedVariantGet

class PathReadsBeforeAggregatesSuite extends SparkRuleSuite {
  /** The physical plan before the columnar rules, with the extension's logical rewrites. */
  private def planOf(query: String): SparkPlan = {
    spark.read.parquet(TestFiles.draft("draft")).createOrReplaceTempView("draft_events")
    spark.sql(query).queryExecution.sparkPlan
  }

  private def partial(plan: SparkPlan): HashAggregateExec = plan.collectFirst {
    case a: HashAggregateExec if a.aggregateExpressions.forall(_.mode == Partial) => a
  }.getOrElse(fail(s"no partial aggregate in\n$plan"))

  test("an aggregate's path-reading input is computed in the projection below it") {
    val before = planOf("SELECT id % 2 AS k, sum(variant_get(v, '$.a', 'bigint')) AS total " +
      "FROM draft_events GROUP BY 1")
    val agg = partial(before)
    val (list, below) = agg.child match {
      case ProjectExec(list, below) => (list, below)
      case other => fail(s"expected a projection under the aggregate, got\n$other")
    }
    val input = agg.aggregateExpressions.head.aggregateFunction.children.head
    assert(input.exists(_.isInstanceOf[ShreddedVariantGet]), s"the input reads a path: $input")
    // The input as the projection computes it: the projection's aliases substituted.
    val defined = list.collect { case a: Alias => a.toAttribute.exprId -> a.child }.toMap
    val computed = SparkInternals.newAlias(input.transformUp {
      case r: Attribute if defined.contains(r.exprId) => defined(r.exprId)
    }, "_variant_path")
    val aggregate = agg.copy(
      aggregateExpressions = agg.aggregateExpressions.map(ae => SparkInternals.withAggregateFunction(ae,
        ae.aggregateFunction.withNewChildren(Seq(computed.toAttribute)).asInstanceOf[AggregateFunction])),
      child = ProjectExec(list.filter(e => agg.groupingExpressions.exists(_.references.contains(e.toAttribute))) :+
        (computed: NamedExpression), below))
    val after = before.transformUp { case a: HashAggregateExec if a eq agg => aggregate }
    comparePlans(PathReadsBeforeAggregates(before), after)
  }

  test("an aggregate with a FILTER clause is left alone (it evaluates its input for fewer rows)") {
    val before = planOf("SELECT sum(variant_get(v, '$.a', 'bigint')) FILTER (WHERE id > 0) FROM draft_events")
    assert(partial(before).aggregateExpressions.head.filter.isDefined)
    assertUnchanged(PathReadsBeforeAggregates, before)
  }

  test("nothing changes with the switch off") {
    val before = planOf("SELECT sum(variant_get(v, '$.a', 'bigint')) FROM draft_events")
    withConf(ExtConf.PathReadsBeforeAggregates.key -> "false") {
      assertUnchanged(PathReadsBeforeAggregates, before)
    }
  }
}
