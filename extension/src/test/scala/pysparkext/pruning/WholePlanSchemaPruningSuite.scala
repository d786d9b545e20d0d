package pysparkext.pruning

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.dsl.plans._
import org.apache.spark.sql.catalyst.expressions.{CreateNamedStruct, Expression, If, IsNull, Literal}
import org.apache.spark.sql.catalyst.plans.Inner
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation, LogicalPlan, Project}
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

import pysparkext.ExtConf
import pysparkext.testing.{SparkRuleSuite, TestFiles}

class WholePlanSchemaPruningSuite extends SparkRuleSuite {
  private lazy val relation: LogicalRelation =
    spark.read.parquet(TestFiles.users).queryExecution.analyzed.collectFirst { case r: LogicalRelation => r }.get
  private val name = $"name".string
  private val names = LocalRelation(name)

  /** The plan of the scaladoc: the join reads `u.geo.city`, the filter `u.geo.lat`. */
  private def joined(scanSide: LogicalPlan, u: Expression): LogicalPlan =
    Project(Seq(relation.output.head, name),
      scanSide.join(names, Inner, Some(path(u, "geo.city") === name)))

  test("a struct column is read with only the fields the whole plan reads, padded back above") {
    val Seq(id, u) = relation.output
    val before = joined(Filter(path(u, "geo.lat") > Literal(0.0), relation), u)

    val geo = StructType(Seq(StructField("city", StringType), StructField("lat", DoubleType)))
    val prunedType = StructType(Seq(StructField("geo", geo)))
    val pruned = SparkInternals.attribute("u", prunedType, nullable = true, u.metadata, qualifier = u.qualifier)
    val fs = relation.relation.asInstanceOf[HadoopFsRelation]
    val scan = SparkInternals.withRelation(relation,
      SparkInternals.withDataSchema(fs,
        StructType(Seq(fs.dataSchema("id"), fs.dataSchema("u").copy(dataType = prunedType)))),
      Seq(id, pruned))
    val g = path(pruned, "geo")
    val padded = If(IsNull(pruned), Literal(null, u.dataType), CreateNamedStruct(Seq(
      Literal("name"), Literal(null, StringType),
      Literal("geo"), If(IsNull(g), Literal(null, path(u, "geo").dataType), CreateNamedStruct(Seq(
        Literal("city"), path(g, "city"), Literal("lat"), path(g, "lat"),
        Literal("lon"), Literal(null, DoubleType))))))).asInstanceOf[Expression]
    val after = joined(
      Project(Seq(id, SparkInternals.alias(padded, "u", u.exprId, u.qualifier, Some(u.metadata))),
        Filter(path(pruned, "geo.lat") > Literal(0.0), scan)), u)

    val out = WholePlanSchemaPruning(before)
    comparePlans(out, after)
    assert(out.schema == before.schema)
  }

  test("a column read whole is not pruned") {
    val Seq(_, u) = relation.output
    assertUnchanged(WholePlanSchemaPruning, Project(Seq(u), Filter(path(u, "geo.lat") > Literal(0.0), relation)))
  }

  test("nothing changes with nested schema pruning off") {
    val Seq(_, u) = relation.output
    withConf(ExtConf.NestedSchemaPruning.key -> "false") {
      assertUnchanged(WholePlanSchemaPruning, joined(Filter(path(u, "geo.lat") > Literal(0.0), relation), u))
    }
  }
}
