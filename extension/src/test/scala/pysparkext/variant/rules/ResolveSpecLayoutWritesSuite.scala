package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan, Project}
import org.apache.spark.sql.execution.CommandExecutionMode
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
import org.apache.spark.sql.pysparkext.{DataError, SparkInternals}
import org.apache.spark.sql.types.{LongType, Metadata, StringType, StructField, StructType, VariantType}

import pysparkext.{ExtConf, PySparkExtRuleException}
import pysparkext.testing.{SparkRuleSuite, TestSpark}
import pysparkext.variant.expressions.{ShredDraftVariant, ShredSpecVariant}
import pysparkext.variant.format.SpecShreddingParquetFormat
import pysparkext.variant.layout.SpecShreddingSchema

class ResolveSpecLayoutWritesSuite extends SparkRuleSuite {
  private val id = AttributeReference("id", LongType)()
  private val variant = AttributeReference("v", VariantType)()
  private val relation = LocalRelation(id, variant)
  private val schema = StructType(Seq(StructField("id", LongType), StructField("name", StringType)))
  private val mark = SpecShreddingSchema.metadata(schema)

  /**
   * A Parquet write of `query` as analysis leaves it before this rule: Spark's own analysis of an
   * insert into a Parquet table (the rule switched off), with its query replaced by `query`.
   */
  private def write(query: LogicalPlan): InsertIntoHadoopFsRelationCommand = {
    val table = "resolve_spec_layout_writes"
    val location = java.nio.file.Files.createDirectories(TestSpark.dir.resolve(table))
    spark.sql(s"CREATE TABLE IF NOT EXISTS $table (id BIGINT, v VARIANT) USING parquet LOCATION '${location.toUri}'")
    val cmd = withConf(ExtConf.SpecLayoutWriter.key -> "false") {
      val parsed = spark.sessionState.sqlParser.parsePlan(
        s"INSERT INTO $table SELECT 1L AS id, parse_json('1') AS v")
      spark.sessionState.executePlan(parsed, CommandExecutionMode.SKIP).analyzed
    }.collectFirst { case c: InsertIntoHadoopFsRelationCommand => c }.get
    SparkInternals.withWriteFormat(cmd, cmd.fileFormat, cmd.options, query)
  }

  private def writtenBy(plan: LogicalPlan): InsertIntoHadoopFsRelationCommand =
    plan.asInstanceOf[InsertIntoHadoopFsRelationCommand]

  test("shred_variant(v, schema, 'spec') AS s becomes v AS s with the schema in its metadata") {
    val marked = SparkInternals.newAlias(ShredSpecVariant(variant, schema), "s")
    val before = Project(Seq(marked), relation)
    val after = Project(Seq(SparkInternals.alias(variant, "s", marked.exprId,
      explicitMetadata = Some(mark))), relation)
    comparePlans(ResolveSpecLayoutWrites(before), after)
  }

  test("references to the marked column carry the mark up") {
    val marked = SparkInternals.newAlias(ShredSpecVariant(variant, schema), "s")
    val before = Project(Seq(marked.toAttribute), Project(Seq(marked), relation))
    val out = ResolveSpecLayoutWrites(before)
    assert(out.schema("s").metadata == mark)
    assert(SpecShreddingSchema.hasSchemas(out.schema))
  }

  // The class scaladoc's Before/After.
  test("a Parquet write of a marked column goes through the spec-layout format") {
    val marked = SparkInternals.newAlias(ShredSpecVariant(variant, schema), "v")
    val before = write(Project(Seq(id, marked), relation))
    val out = writtenBy(ResolveSpecLayoutWrites(before))
    assert(out.fileFormat.isInstanceOf[SpecShreddingParquetFormat])
    assert(out.options(ResolveSpecLayoutWrites.WriterOption) == "true")
    comparePlans(out.query, Project(Seq(id, SparkInternals.alias(variant, "v", marked.exprId,
      explicitMetadata = Some(mark))), relation))
  }

  test("a Parquet write of unmarked data is left alone") {
    assertUnchanged(ResolveSpecLayoutWrites, write(Project(Seq(id, variant), relation)))
  }

  // marksThroughRenames' Before/After: an insert's rename `v AS v` keeps the mark.
  test("a rename at the top of the write's query keeps the mark") {
    val markedBelow = SparkInternals.alias(variant, "v", explicitMetadata = Some(mark))
    val below = Project(Seq(id, markedBelow), relation)
    // As an insert's rename: the table column's metadata (none) over the marked column.
    val rename = SparkInternals.alias(markedBelow.toAttribute, "v", explicitMetadata = Some(Metadata.empty))
    val before = write(Project(Seq(id, rename), below))
    val out = writtenBy(ResolveSpecLayoutWrites(before))
    assert(out.fileFormat.isInstanceOf[SpecShreddingParquetFormat])
    comparePlans(out.query, Project(Seq(id, SparkInternals.alias(rename.child, "v", rename.exprId,
      explicitMetadata = Some(mark))), below))
  }

  // draftColumnsMarked's Before/After: the draft layout's expression becomes a marked VARIANT.
  test("shred_variant(v, schema) AS v at the top of a Parquet write becomes v AS v marked") {
    val shred = SparkInternals.newAlias(ShredDraftVariant(variant, "a bigint"), "v")
    val before = write(Project(Seq(id, shred), relation))
    val out = writtenBy(ResolveSpecLayoutWrites(before))
    assert(out.fileFormat.isInstanceOf[SpecShreddingParquetFormat])
    comparePlans(out.query, Project(Seq(id, SparkInternals.alias(variant, "v", shred.exprId,
      explicitMetadata = Some(SpecShreddingSchema.draftMetadata("a bigint")))), relation))
    withConf(ExtConf.ColumnarSpecWriter.key -> "false") {
      assertUnchanged(ResolveSpecLayoutWrites, before)
    }
  }

  test("a column that is not a variant fails naming it, in any mode") {
    val before = Project(Seq(SparkInternals.newAlias(ShredSpecVariant(id, schema), "s")), LocalRelation(id))
    val e = intercept[DataError](ResolveSpecLayoutWrites(before))
    assert(e.getMessage.contains("id") && e.getMessage.contains("not VARIANT"))
    withConf(ExtConf.Strict.key -> "false") {
      intercept[DataError](ResolveSpecLayoutWrites(before))
    }
  }

  test("an internal error keeps the plan, or in strict mode fails naming the rule") {
    val before = Project(Seq(SparkInternals.newAlias(ShredSpecVariant(variant, schema), "s")), relation)
    withConf(ExtConf.ForceFailure.key -> "true") {
      val e = intercept[PySparkExtRuleException](ResolveSpecLayoutWrites(before))
      assert(e.getMessage.contains("ResolveSpecLayoutWrites"))
      withConf(ExtConf.Strict.key -> "false")(assert(ResolveSpecLayoutWrites(before) eq before))
    }
  }

  test("nothing changes with the spec writer switch or the master switch off") {
    val before = Project(Seq(SparkInternals.newAlias(ShredSpecVariant(variant, schema), "s")), relation)
    withConf(ExtConf.SpecLayoutWriter.key -> "false") {
      assertUnchanged(ResolveSpecLayoutWrites, before)
    }
    withConf(ExtConf.Enabled.key -> "false") {
      assertUnchanged(ResolveSpecLayoutWrites, before)
    }
  }
}
