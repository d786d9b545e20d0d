package pysparkext.pruning

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.dsl.plans._
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.Inner
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.{Rule, RuleExecutor}
import org.apache.spark.sql.execution.datasources.{LogicalRelation, SchemaPruning}
import org.apache.spark.sql.pysparkext.{SparkInternals, WiredRules}
import org.apache.spark.sql.types._

import pysparkext.ExtConf
import pysparkext.testing.{SparkRuleSuite, TestFiles}

/**
 * The extension's pre-CBO rules as one batch, in the order the entry class wires them (read back
 * from Spark's `SparkSessionExtensions`), followed by Spark's own `SchemaPruning`, which the
 * optimizer runs in the next batch ("Early Filter and Projection Push-Down"). As Spark's
 * `NestedColumnAliasingSuite` runs its rules in an optimizer of its own, this checks how the
 * rules fit together on in-memory plans: what the extension prunes stays pruned, Spark's rule
 * finds nothing left to do after it, and with the extension's pruning off Spark's still works.
 */
class PreCBOBatchSuite extends SparkRuleSuite {
  private class Optimizer(preCBO: Seq[Rule[LogicalPlan]]) extends RuleExecutor[LogicalPlan] {
    override protected val batches: Seq[Batch] = Seq(
      Batch("Pre CBO Rules", Once, preCBO: _*),
      Batch("Early Filter and Projection Push-Down", Once, SchemaPruning))
  }

  private lazy val wired = WiredRules.preCBORules(spark)
  private lazy val optimizer = new Optimizer(wired)
  private lazy val sparkOnly = new Optimizer(Nil)

  private lazy val relation: LogicalRelation =
    spark.read.parquet(TestFiles.users).queryExecution.analyzed.collectFirst { case r: LogicalRelation => r }.get
  private val name = $"name".string

  /** The type the scan reads `u` as. */
  private def readType(plan: LogicalPlan): DataType =
    plan.collectFirst { case r: LogicalRelation => r.output.find(_.name == "u").get.dataType }.get

  private def struct(fields: (String, DataType)*): StructType =
    StructType(fields.map { case (n, t) => StructField(n, t) })

  private val cityAndLat = struct("geo" -> struct("city" -> StringType, "lat" -> DoubleType))

  /** The join reads `u.geo.city`, the filter below it `u.geo.lat`: no projection sits on the scan. */
  private def joined: LogicalPlan = {
    val Seq(id, u) = relation.output
    Project(Seq(id, name), Filter(path(u, "geo.lat") > Literal(0.0), relation)
      .join(LocalRelation(name), Inner, Some(path(u, "geo.city") === name)))
  }

  test("the batch runs the wired pre-CBO rules in their documented order") {
    assert(wired.map(_.getClass.getSimpleName.stripSuffix("$")) == Seq("RewriteShreddedVariantPaths",
      "ShreddedSkipPredicates", "DistinctRelationCopies", "WholePlanSchemaPruning", "NarrowPrunedGenerators"))
  }

  test("a scan read across a join is pruned by the pre-CBO rules, which SchemaPruning alone leaves whole") {
    assert(readType(sparkOnly.execute(joined)) == relation.output(1).dataType)
    val out = optimizer.execute(joined)
    assert(readType(out) == cityAndLat)
    assert(out.schema == joined.schema)
  }

  test("SchemaPruning finds nothing left to prune after the pre-CBO rules") {
    val preCBOOnly = wired.foldLeft(joined)((p, rule) => rule(p))
    comparePlans(optimizer.execute(joined), preCBOOnly)
    val Seq(_, u) = relation.output
    val projected = Project(Seq(SparkInternals.newAlias(path(u, "geo.city"), "city")), relation)
    comparePlans(optimizer.execute(projected), wired.foldLeft(projected: LogicalPlan)((p, rule) => rule(p)))
    assert(readType(optimizer.execute(projected)) == struct("geo" -> struct("city" -> StringType)))
  }

  test("with the extension's pruning off, Spark's SchemaPruning still prunes a projection on the scan") {
    val Seq(_, u) = relation.output
    val projected = Project(Seq(SparkInternals.newAlias(path(u, "geo.city"), "city")), relation)
    withConf(ExtConf.NestedSchemaPruning.key -> "false") {
      assert(readType(optimizer.execute(joined)) == relation.output(1).dataType)
      assert(readType(optimizer.execute(projected)) == struct("geo" -> struct("city" -> StringType)))
    }
  }
}
