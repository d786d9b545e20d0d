package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{And, EqualTo, In, IsNotNull, Literal, Not, Or}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation, Project}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{IntegerType, LongType}

import pysparkext.ExtConf
import pysparkext.testing.{DraftTypes, RuleSuite}

class ShreddedSkipPredicatesSuite extends RuleSuite {
  private val s = DraftTypes.column("s", DraftTypes.events)
  private val relation = LocalRelation(s)
  private def id = ShreddedPaths.get(s, "v", "$.id", LongType, failOnError = true,
    Some(SQLConf.get.sessionLocalTimeZone))
  private def typedId = path(s, "object.id.typed_value")
  /** Where else `$.id` can be: its own residual, then the root's residual. */
  private def orUntyped(typed: org.apache.spark.sql.catalyst.expressions.Expression) =
    Or(Or(typed, IsNotNull(path(s, "object.id.untyped_value"))), IsNotNull(path(s, "untyped_value")))

  test("a comparison of a path gains its typed leaf's comparison, or the value is untyped") {
    val cond = EqualTo(id, Literal(7L))
    val before = Filter(cond, relation)
    val after = Filter(And(cond, orUntyped(EqualTo(typedId, Literal(7L)))), relation)
    comparePlans(ShreddedSkipPredicates(before), after)
  }

  test("IN and AND are pushed, a read as a wider integer with literals that fit") {
    val cond = And(In(id, Seq(Literal(1L), Literal(2L))), id > Literal(0L))
    // One added conjunct per original conjunct, after them.
    val after = Filter(And(And(cond, orUntyped(In(typedId, Seq(Literal(1L), Literal(2L))))),
      orUntyped(typedId > Literal(0L))), relation)
    comparePlans(ShreddedSkipPredicates(Filter(cond, relation)), after)
  }

  test("a negation is never pushed") {
    assertUnchanged(ShreddedSkipPredicates, Filter(Not(EqualTo(id, Literal(7L))), relation))
  }

  test("a read narrower than the typed column is not pushed (a cast decides the rows)") {
    val narrow = ShreddedPaths.get(s, "v", "$.id", IntegerType, failOnError = true,
      Some(SQLConf.get.sessionLocalTimeZone))
    assertUnchanged(ShreddedSkipPredicates, Filter(EqualTo(narrow, Literal(7)), relation))
  }

  test("only filters straight over a scan gain predicates") {
    val before = Filter(EqualTo(id, Literal(7L)), Project(Seq(s), relation))
    assertUnchanged(ShreddedSkipPredicates, before)
  }

  test("nothing changes with the skipping switch off") {
    withConf(ExtConf.VariantSkipping.key -> "false") {
      assertUnchanged(ShreddedSkipPredicates, Filter(EqualTo(id, Literal(7L)), relation))
    }
  }
}
