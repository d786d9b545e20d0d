package pysparkext.pruning

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{Attribute, Explode, IsNotNull, Literal, Murmur3Hash, Size}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, Generate, LocalRelation, LogicalPlan, Project}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

import pysparkext.pruning.Need._
import pysparkext.testing.RuleSuite

/** What [[PlanNeeds]] and [[ExpressionNeeds]] find a plan needs of a column, and [[Need]]'s lattice. */
class PlanNeedsSuite extends RuleSuite {
  private val geo = StructType(Seq(
    StructField("city", StringType), StructField("lat", DoubleType), StructField("lon", DoubleType)))
  private val userType = StructType(Seq(StructField("name", StringType), StructField("geo", geo)))
  private val items = ArrayType(StructType(Seq(StructField("x", LongType), StructField("y", StringType))))
  private val u = $"u".struct(userType)
  private val arr = $"arr".array(items.elementType)
  private val relation = LocalRelation(u, arr)

  private def needOf(plan: LogicalPlan, a: Attribute): Option[Need] = new PlanNeeds().analyse(plan).needOf(a)
  private def out(e: org.apache.spark.sql.catalyst.expressions.Expression, name: String = "o") =
    SparkInternals.newAlias(e, name)

  test("a field read needs that field") {
    val plan = Project(Seq(out(path(u, "geo.city"))), relation)
    assert(needOf(plan, u).contains(field("geo", field("city", Whole))))
    assert(needOf(plan, arr).isEmpty, "a column nothing reads needs nothing")
  }

  test("needs of a filter and a projection merge") {
    val plan = Project(Seq(out(path(u, "geo.city"))), Filter(path(u, "geo.lat") > Literal(0.0), relation))
    assert(needOf(plan, u).contains(field("geo", Fields(Map("city" -> Whole, "lat" -> Whole)))))
  }

  test("a null test needs only presence; a column in the output is needed whole") {
    assert(needOf(Project(Seq(out(IsNotNull(u))), relation), u).contains(Presence))
    assert(needOf(Project(Seq(u), relation), u).contains(Whole))
  }

  test("an expression the analysis does not know needs its input whole") {
    assert(needOf(Project(Seq(out(new Murmur3Hash(Seq(path(u, "geo"))))), relation), u)
      .contains(field("geo", Whole)))
  }

  test("explode needs of the array what is needed of its elements; size only presence") {
    val element = $"e".struct(items.elementType.asInstanceOf[StructType])
    val generate = Generate(Explode(arr), Nil, outer = false, None, Seq(element), relation)
    val plan = Project(Seq(out(path(element, "x"))), generate)
    assert(needOf(plan, arr).contains(Elements(field("x", Whole))))
    assert(needOf(Project(Seq(out(Size(arr))), relation), arr).contains(Presence))
  }

  test("merge is the join of the lattice; prune keeps only what a need reads") {
    assert(merge(Presence, field("a", Whole)) == field("a", Whole))
    assert(merge(field("a", Whole), field("b", Presence)) == Fields(Map("a" -> Whole, "b" -> Presence)))
    assert(merge(Elements(Whole), field("a", Whole)) == Whole)
    assert(prune(userType, field("geo", field("lat", Whole))) ==
      StructType(Seq(StructField("geo", StructType(Seq(StructField("lat", DoubleType)))))))
    // Presence keeps the cheapest leaf: a double (8 bytes) over a string.
    assert(prune(geo, Presence) == StructType(Seq(StructField("lat", DoubleType))))
    assert(prune(userType, field("nosuch", Whole)) == userType, "a need that does not fit keeps the type")
  }
}
