package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.expressions.{IsNotNull, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation, Project}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.IntegerType

import pysparkext.ExtConf
import pysparkext.testing.{DraftTypes, RuleSuite}
import pysparkext.variant.expressions.{ReconstructShreddedVariant, ShreddedVariantGet}

class RewriteShreddedVariantPathsSuite extends RuleSuite {
  private val s = DraftTypes.column("s", DraftTypes.events)
  private val relation = LocalRelation(s)
  private def zone = Some(SQLConf.get.sessionLocalTimeZone)
  private def userId(v: org.apache.spark.sql.catalyst.expressions.Expression) =
    SparkInternals.variantGet(v, Literal("$.user.id"), IntegerType, failOnError = true, zone)
  private def shreddedUserId = ShreddedPaths.get(s, "v", "$.user.id", IntegerType, failOnError = true, zone)

  test("a path read of the reconstructed variant reads the shredded columns") {
    val alias = SparkInternals.newAlias(userId(ReconstructShreddedVariant(s, "v")), "id")
    val before = Project(Seq(alias), relation)
    val after = Project(Seq(SparkInternals.withAliasChild(alias, shreddedUserId)), relation)
    val out = RewriteShreddedVariantPaths(before)
    comparePlans(out, after)
    assert(out.expressions.exists(_.exists(_.isInstanceOf[ShreddedVariantGet])))
    assert(!out.expressions.exists(_.exists(_.isInstanceOf[ReconstructShreddedVariant])))
  }

  test("a variant read by attribute above a filter is carried up as its struct") {
    val v = SparkInternals.newAlias(ReconstructShreddedVariant(s, "v"), "v")
    val id = SparkInternals.newAlias(userId(v.toAttribute), "id")
    val before = Project(Seq(id), Filter(IsNotNull(v.toAttribute), Project(Seq(v), relation)))
    val after = Project(Seq(SparkInternals.withAliasChild(id, shreddedUserId)),
      Filter(ShreddedPaths.isPresent(s), relation))
    comparePlans(RewriteShreddedVariantPaths(before), after)
  }

  test("a variant read whole is left as it is") {
    val before = Project(Seq(SparkInternals.newAlias(ReconstructShreddedVariant(s, "v"), "v")), relation)
    assertUnchanged(RewriteShreddedVariantPaths, before)
  }

  test("nothing changes with the variant switch off") {
    val before = Project(Seq(SparkInternals.newAlias(userId(ReconstructShreddedVariant(s, "v")), "id")), relation)
    withConf(ExtConf.ShreddedVariant.key -> "false") {
      assertUnchanged(RewriteShreddedVariantPaths, before)
    }
  }
}
