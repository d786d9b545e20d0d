package pysparkext.exec

import org.apache.spark.sql.catalyst.expressions.{And, Expression, PredicateHelper}
import org.apache.spark.sql.execution.{FileSourceScanExec, FilterExec, SparkPlan}

import pysparkext.ExtConf
import pysparkext.testing.{SparkRuleSuite, TestFiles}
import pysparkext.variant.rules.ShreddedSkipPredicates

class SkipPredicatesOnlyInScansSuite extends SparkRuleSuite with PredicateHelper {
  /** The physical plan before the columnar rules, with the extension's logical rewrites. */
  private def planOf(query: String): SparkPlan = {
    spark.read.parquet(TestFiles.draft("draft")).createOrReplaceTempView("draft_events")
    spark.sql(query).queryExecution.sparkPlan
  }

  private def filterOf(plan: SparkPlan): FilterExec = plan.collectFirst {
    case f @ FilterExec(_, _: FileSourceScanExec) => f
  }.getOrElse(fail(s"no filter over a scan in\n$plan"))

  private def scanOf(plan: SparkPlan): FileSourceScanExec =
    plan.collectFirst { case s: FileSourceScanExec => s }.getOrElse(fail(s"no scan in\n$plan"))

  private val query = "SELECT id FROM draft_events WHERE variant_get(v, '$.a', 'bigint') = 1"

  test("the row filter drops the skip predicate, the scan keeps pushing it") {
    val before = planOf(query)
    val conjuncts = splitConjunctivePredicates(filterOf(before).condition)
    val (added, others) = conjuncts.partition(ShreddedSkipPredicates.isAdded)
    assert(added.size == 1 && others.size == 1, s"one path filter and its skip predicate: $conjuncts")
    val after = before.transformUp {
      case f: FilterExec => f.copy(condition = others.reduce[Expression](And))
    }
    val rewritten = SkipPredicatesOnlyInScans(before)
    comparePlans(rewritten, after)
    assert(scanOf(rewritten).dataFilters == scanOf(before).dataFilters)
    assert(scanOf(rewritten).dataFilters.exists(_.references.exists(_.name == "v")))
  }

  test("a filter of the user's own is kept whole") {
    // the same predicate written in the query is not one the extension added
    val before = planOf("SELECT id FROM draft_events WHERE id > 0 AND id < 5")
    assert(splitConjunctivePredicates(filterOf(before).condition).size >= 2)
    assertUnchanged(SkipPredicatesOnlyInScans, before)
  }

  test("nothing changes with the skipping switch off") {
    val before = planOf(query)
    withConf(ExtConf.VariantSkipping.key -> "false") {
      assertUnchanged(SkipPredicatesOnlyInScans, before)
    }
  }
}
