package pysparkext.pruning

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.dsl.plans._
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, Explode, Expression,
  GetArrayStructFields, GetStructField, Inline, IsNotNull, Literal, PosExplode, Size}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, Generate, LocalRelation, LogicalPlan, Project}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

import pysparkext.ExtConf
import pysparkext.testing.RuleSuite

class NarrowPrunedGeneratorsSuite extends RuleSuite {
  private val item = StructType(Seq(StructField("item_id", LongType), StructField("cpc", DoubleType),
    StructField("clicked", BooleanType), StructField("tags", ArrayType(StringType))))
  private val narrowItem = StructType(Seq(StructField("cpc", DoubleType), StructField("clicked", BooleanType)))
  private val narrowView = StructType(Seq(StructField("items", ArrayType(narrowItem))))
  private val narrowPage = StructType(Seq(StructField("views", ArrayType(narrowView))))

  /** The scan's column as whole-plan pruning reads it: only `cpc` and `clicked` of each item. */
  private val page = SparkInternals.attribute("page", narrowPage)
  private val relation = LocalRelation(page)

  private def attr(name: String, t: DataType, nullable: Boolean = true): AttributeReference =
    SparkInternals.attribute(name, t, nullable)

  private def alias(e: Expression, name: String): Alias = SparkInternals.newAlias(e, name)

  private def aliasAs(e: Expression, of: Attribute): Alias =
    SparkInternals.alias(e, of.name, of.exprId, of.qualifier, Some(of.metadata))

  /** `arr.f` of an array of structs. */
  private def fields(arr: Expression, name: String): Expression = {
    val ArrayType(s: StructType, containsNull) = arr.dataType: @unchecked
    val i = s.fieldIndex(name)
    GetArrayStructFields(arr, s(i), i, s.length, containsNull || s(i).nullable)
  }

  private def generate(generator: org.apache.spark.sql.catalyst.expressions.Generator, outer: Boolean,
      qualifier: String, output: Seq[Attribute], child: LogicalPlan): Generate =
    Generate(generator, Seq(0), outer, Some(qualifier), output, child)

  /** The generated column as the operators above read it (qualified by the generator). */
  private def generated(g: Generate, a: Attribute): Attribute = g.output.find(_.exprId == a.exprId).get

  /**
   * `LATERAL VIEW explode(<items>) v AS view LATERAL VIEW explode(view.items) i AS item` over the
   * scan, as Spark plans it, with items of type `itemType`: the second Generate and its `item`.
   */
  private def chainedExplodes(items: Alias, itemType: StructType): (Generate, Attribute) = {
    val view = attr("view", ArrayType(itemType))
    val g1 = generate(Explode(items.toAttribute), outer = false, "v", Seq(view), Project(Seq(items), relation))
    val v = generated(g1, view)
    val viewItems = alias(v, "_extract_items")
    val itemCol = attr("item", itemType)
    val g2 = generate(Explode(viewItems.toAttribute), outer = false, "i", Seq(itemCol),
      Project(Seq(viewItems), Filter(Size(v, false) > 0 && IsNotNull(v), g1)))
    (g2, generated(g2, itemCol))
  }

  test("chained explodes explode the narrow arrays and the widening disappears (the scaladoc's plan)") {
    val items = fields(path(page, "views"), "items")
    val scanItems = alias(WidenPrunedValue(items, ArrayType(ArrayType(item))), "_extract_items")
    val (g2, i) = chainedExplodes(scanItems, item)
    val cpc = alias(getField(i, "cpc"), "_extract_cpc")
    val before = Project(Seq(cpc), Filter(IsNotNull(getField(i, "clicked")) && getField(i, "clicked"), g2))
      .groupBy()(sum(cpc.toAttribute).as("revenue"))

    val (h2, ni) = chainedExplodes(alias(items, "_extract_items"), narrowItem)
    val after = Filter(IsNotNull(getField(ni, "clicked")) && getField(ni, "clicked"), h2)
      .groupBy()(sum(getField(ni, "cpc")).as("revenue"))

    val out = NarrowPrunedGenerators(before)
    comparePlans(out, after)
    assert(out.schema == before.schema)
    assert(!out.expressions.exists(_.exists(_.isInstanceOf[WidenPrunedValue])))
  }

  test("an outer posexplode whose element is read whole widens the element above, not the array") {
    val fullView = StructType(Seq(StructField("ts", LongType), StructField("items", ArrayType(item))))
    val scanViews = alias(WidenPrunedValue(path(page, "views"), ArrayType(fullView)), "views")
    val pos = attr("pos", IntegerType, nullable = false)
    val view = attr("view", fullView)
    val g = generate(PosExplode(scanViews.toAttribute), outer = true, "v", Seq(pos, view),
      Project(Seq(scanViews), relation))
    val before = Project(Seq(generated(g, pos), generated(g, view)), g)

    val n = alias(path(page, "views"), "views")
    val nView = attr("view", narrowView)
    val h = generate(PosExplode(n.toAttribute), outer = true, "v", Seq(pos, nView), Project(Seq(n), relation))
    val after = Project(Seq(generated(h, pos),
      aliasAs(WidenPrunedValue(generated(h, nView), fullView), generated(g, view))), h)

    val out = NarrowPrunedGenerators(before)
    comparePlans(out, after)
    assert(out.schema == before.schema)
  }

  test("an aggregate over the widened element reads the narrow element where it can") {
    val fullView = StructType(Seq(StructField("ts", LongType), StructField("items", ArrayType(item))))
    val scanViews = alias(WidenPrunedValue(path(page, "views"), ArrayType(fullView)), "views")
    val view = attr("view", fullView)
    val g = generate(Explode(scanViews.toAttribute), outer = true, "v", Seq(view), Project(Seq(scanViews), relation))
    val before = g.groupBy()(count(generated(g, view)).as("n"))

    val n = alias(path(page, "views"), "views")
    val nView = attr("view", narrowView)
    val h = generate(Explode(n.toAttribute), outer = true, "v", Seq(nView), Project(Seq(n), relation))
    val after = h.groupBy()(count(generated(h, nView)).as("n"))

    comparePlans(NarrowPrunedGenerators(before), after)
  }

  test("inline of a narrow array gives a dropped field as a null column, which nothing reads") {
    val full = StructType(Seq(StructField("a", IntegerType), StructField("b", StringType)))
    val narrow = StructType(Seq(StructField("a", IntegerType)))
    val arr = SparkInternals.attribute("arr", ArrayType(narrow))
    val rel = LocalRelation(arr)
    val scanArr = alias(WidenPrunedValue(arr, ArrayType(full)), "arr")
    val (a, b) = (attr("a", IntegerType), attr("b", StringType))
    val g = generate(Inline(scanArr.toAttribute), outer = false, "t", Seq(a, b), Project(Seq(scanArr), rel))
    val before = Project(Seq(generated(g, a)), g)

    val n = alias(arr, "arr")
    val h = generate(Inline(n.toAttribute), outer = false, "t", Seq(a), Project(Seq(n), rel))
    val after = Project(Seq(generated(h, a)), h)

    comparePlans(NarrowPrunedGenerators(before), after)
  }

  test("a read of a field the pruning dropped is not simplified") {
    val full = StructType(Seq(StructField("a", IntegerType), StructField("b", StringType)))
    val narrow = StructType(Seq(StructField("a", IntegerType)))
    val s = attr("s", narrow)
    val widened = WidenPrunedValue(s, full)
    assert(NarrowPrunedGenerators.simplify(GetStructField(widened, 1, Some("b"))).isEmpty)
    assert(NarrowPrunedGenerators.simplify(GetStructField(widened, 0, Some("a"))) ==
      Some(GetStructField(s, 0, Some("a"))))
  }

  test("a generator over a map, or over a value that is not widened, is left alone") {
    val m = SparkInternals.attribute("m", MapType(StringType, StructType(Seq(StructField("p", IntegerType)))))
    val full = MapType(StringType, StructType(Seq(StructField("p", IntegerType), StructField("q", StringType))))
    val scanMap = alias(WidenPrunedValue(m, full), "m")
    val (k, v) = (attr("key", StringType, nullable = false), attr("value", full.valueType))
    val g = generate(Explode(scanMap.toAttribute), outer = false, "x", Seq(k, v),
      Project(Seq(scanMap), LocalRelation(m)))
    assertUnchanged(NarrowPrunedGenerators, Project(Seq(generated(g, k)), g))

    val views = alias(path(page, "views"), "views")
    val view = attr("view", narrowView)
    val plain = generate(Explode(views.toAttribute), outer = false, "v", Seq(view), Project(Seq(views), relation))
    assertUnchanged(NarrowPrunedGenerators, plain)
  }

  test("nothing changes with the switch off") {
    val scanViews = alias(WidenPrunedValue(path(page, "views"),
      ArrayType(StructType(Seq(StructField("ts", LongType), StructField("items", ArrayType(item)))))), "views")
    val view = attr("view", scanViews.dataType.asInstanceOf[ArrayType].elementType)
    val g = generate(Explode(scanViews.toAttribute), outer = false, "v", Seq(view), Project(Seq(scanViews), relation))
    withConf(ExtConf.NarrowPrunedGenerators.key -> "false") {
      assertUnchanged(NarrowPrunedGenerators, g)
    }
    withConf(ExtConf.NestedSchemaPruning.key -> "false") {
      assertUnchanged(NarrowPrunedGenerators, g)
    }
  }
}
