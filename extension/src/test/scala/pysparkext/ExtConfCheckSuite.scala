package pysparkext

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation

import pysparkext.pruning.WholePlanSchemaPruning
import pysparkext.testing.RuleSuite

/** `ExtConf.check`, which every rule runs first, validates the settings once per change. */
class ExtConfCheckSuite extends RuleSuite {
  private val plan = LocalRelation($"id".long)
  private val olderKey = ExtConf.ShreddedVariant.alternatives.head

  /** How many validations running the rule `times` times takes. */
  private def validationsOf(times: Int): Long = {
    val before = ExtConf.validationCount
    (1 to times).foreach(_ => WholePlanSchemaPruning(plan))
    ExtConf.validationCount - before
  }

  test("unchanged settings are validated once, and again after each change") {
    validationsOf(1)  // whatever the suites before left
    assert(validationsOf(10) == 0)
    withConf(ExtConf.NestedSchemaPruning.key -> "false") {
      assert(validationsOf(10) == 1)
      withConf(ExtConf.NestedSchemaPruning.key -> "true")(assert(validationsOf(10) == 1))
      assert(validationsOf(10) == 1)
    }
    assert(validationsOf(10) == 1)
  }

  test("a bad value set after a good check fails the next rule, and every rule until it is fixed") {
    validationsOf(1)
    // Spark checks a value at `SET` by the key's type, but an older key is not Spark's to check.
    withConf(olderKey -> "maybe") {
      (1 to 2).foreach { _ =>
        val e = intercept[IllegalArgumentException](WholePlanSchemaPruning(plan))
        assert(e.getMessage.contains(s"set as $olderKey"))
      }
    }
    // back to the settings that passed before: they are not validated again
    assert(validationsOf(1) == 0)
  }

  test("an unknown key set after a good check is warned about, naming the nearest key") {
    validationsOf(1)
    val misspelt = "spark.pyspark_ext.nestedSchemaPrunnig.enabled"
    withConf(misspelt -> "true") {
      validationsOf(1)
      assert(ExtConf.unknownKeyWarnings.exists(w => w.contains(misspelt) &&
        w.contains(ExtConf.NestedSchemaPruning.key)))
    }
  }
}
