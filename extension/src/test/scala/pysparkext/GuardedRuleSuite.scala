package pysparkext

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation

import pysparkext.pruning.WholePlanSchemaPruning
import pysparkext.testing.RuleSuite

class GuardedRuleSuite extends RuleSuite {
  private val plan = LocalRelation($"id".long)

  test("a rule that fails inside keeps the plan, or in strict mode fails naming itself") {
    withConf(ExtConf.ForceFailure.key -> "true") {
      val e = intercept[PySparkExtRuleException](WholePlanSchemaPruning(plan))
      assert(e.getMessage.contains("WholePlanSchemaPruning"))
      withConf(ExtConf.Strict.key -> "false")(assert(WholePlanSchemaPruning(plan) eq plan))
    }
  }

  test("the master switch turns every rule off") {
    withConf(ExtConf.Enabled.key -> "false", ExtConf.ForceFailure.key -> "true") {
      assert(WholePlanSchemaPruning(plan) eq plan)
    }
  }
}
