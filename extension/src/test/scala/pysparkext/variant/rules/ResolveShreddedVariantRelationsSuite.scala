package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project, Union}
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

import pysparkext.ExtConf
import pysparkext.parquet.ListedFilesParquetFormat
import pysparkext.testing.{SparkRuleSuite, TestFiles, TestSpark}
import pysparkext.variant.ShreddedVariantException
import pysparkext.variant.expressions.ReconstructShreddedVariant
import pysparkext.variant.layout.LayoutMarks

class ResolveShreddedVariantRelationsSuite extends SparkRuleSuite {
  private def rule = new ResolveShreddedVariantRelations(spark)

  /**
   * The relation of a path read as the analyzer meets it: resolved by Spark alone, and not marked
   * analyzed (a copy), as the rule sees it in the resolution batch.
   */
  private def relationOf(path: String): LogicalRelation = withConf(ExtConf.Enabled.key -> "false") {
    spark.read.parquet(path).queryExecution.analyzed.collectFirst { case r: LogicalRelation => r }
      .get.newInstance()
  }

  private def flagged(f: StructField, keys: String*): StructField =
    f.copy(metadata = keys.foldLeft(new MetadataBuilder().withMetadata(f.metadata))(_.putBoolean(_, true)).build())

  /**
   * The draft struct of TestFiles.draft with what analysis learnt from the footers: `a` is
   * shredded in every file, no residual holds a value. Nullability is the footer's (Spark wrote
   * the never-null fields as required).
   */
  private val readType: StructType = {
    val a = StructType(Seq(flagged(StructField("untyped_value", BinaryType), LayoutMarks.NullEverywhere),
      StructField("typed_value", LongType, nullable = false)))
    StructType(Seq(
      flagged(StructField("untyped_value", BinaryType), LayoutMarks.NullEverywhere),
      StructField("object", StructType(Seq(
        flagged(StructField("a", a, nullable = false), LayoutMarks.ShreddedEverywhere))), nullable = false)))
  }

  test("a draft-layout column is presented as VARIANT over its shredded struct") {
    val before = relationOf(TestFiles.draft("draft"))
    val Seq(id, v) = before.output
    val out = rule(before)
    val read = out match {
      case Project(_, r: LogicalRelation) => r
      case other => fail(s"expected Project over the relation, got\n$other")
    }
    val fs = read.relation.asInstanceOf[HadoopFsRelation]
    assert(fs.fileFormat.isInstanceOf[ListedFilesParquetFormat])
    assert(LayoutMarks.isMarked(fs.dataSchema("v")))
    val struct = SparkInternals.attribute("v", readType, nullable = true,
      LayoutMarks.mark(StructField("v", readType)).metadata)
    val after = Project(Seq(id, SparkInternals.alias(ReconstructShreddedVariant(struct, "v"), "v", v.exprId)),
      SparkInternals.withRelation(read, fs, Seq(id, struct)))
    comparePlans(out, after)
    assert(out.schema("v").dataType == VariantType)
    assert(out.output.map(_.exprId) == before.output.map(_.exprId), "the column keeps its id")
  }

  test("files whose typed columns conflict are read by separate relations under a Union") {
    val path = TestFiles.draft("conflicting", "bigint", Seq(0, 1))
    TestFiles.draftRows("string", Seq(2, 3)).write.mode("append").parquet(path)
    val before = relationOf(path)
    val out = rule(before)
    val branches = out match {
      case u: Union => u.children
      case other => fail(s"expected a Union, got\n$other")
    }
    assert(branches.length == 2)
    val typed = branches.map { case Project(_, r: LogicalRelation) =>
      assert(r.relation.asInstanceOf[HadoopFsRelation].location.inputFiles.length == 1)
      r.schema("v").dataType.asInstanceOf[StructType]("object").dataType.asInstanceOf[StructType]("a")
        .dataType.asInstanceOf[StructType]("typed_value").dataType
    }
    assert(typed.toSet == Set(LongType, StringType))
    assert(out.output.map(_.exprId) == before.output.map(_.exprId), "the first branch keeps the ids")
    assert(branches(1).output.map(_.exprId).intersect(before.output.map(_.exprId)).isEmpty)
  }

  test("a struct that is not a draft level stays a struct") {
    assertUnchanged(rule, relationOf(TestFiles.users): LogicalPlan)
  }

  test("a file whose draft level is malformed fails naming the file and column") {
    val path = TestSpark.dir.resolve("malformed").toString
    spark.range(1).selectExpr("named_struct('untyped_value', cast(NULL AS binary), " +
      "'typed_value', named_struct('x', 1)) AS v").write.parquet(path)
    val e = intercept[ShreddedVariantException](rule(relationOf(path)))
    assert(e.getMessage.contains("part-") && e.getMessage.contains("typed_value"), e.getMessage)
  }

  test("nothing changes with the variant switch or inference off") {
    val before = relationOf(TestFiles.draft("draft"))
    withConf(ExtConf.ShreddedVariant.key -> "false")(assertUnchanged(rule, before: LogicalPlan))
    withConf(ExtConf.InferDraftLayout.key -> "false")(assertUnchanged(rule, before: LogicalPlan))
  }
}
