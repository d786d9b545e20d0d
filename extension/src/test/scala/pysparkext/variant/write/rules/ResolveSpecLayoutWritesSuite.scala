package pysparkext.variant.write.rules

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, Project}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType, VariantType}

import pysparkext.ExtConf
import pysparkext.testing.RuleSuite
import pysparkext.variant.write.expressions.ShredSpecVariant
import pysparkext.variant.write.schema.SpecShreddingSchema

class ResolveSpecLayoutWritesSuite extends RuleSuite {
  private val variant = org.apache.spark.sql.catalyst.expressions.AttributeReference("v", VariantType)()
  private val relation = LocalRelation(variant)
  private val schema = StructType(Seq(StructField("id", LongType), StructField("name", StringType)))

  test("shred_variant(v, schema, 'spec') AS s becomes v AS s with the schema in its metadata") {
    val marked = SparkInternals.newAlias(ShredSpecVariant(variant, schema), "s")
    val before = Project(Seq(marked), relation)
    val after = Project(Seq(SparkInternals.alias(variant, "s", marked.exprId,
      explicitMetadata = Some(SpecShreddingSchema.metadata(schema)))), relation)
    comparePlans(ResolveSpecLayoutWrites(before), after)
  }

  test("references to the marked column carry the mark up") {
    val marked = SparkInternals.newAlias(ShredSpecVariant(variant, schema), "s")
    val before = Project(Seq(marked.toAttribute), Project(Seq(marked), relation))
    val out = ResolveSpecLayoutWrites(before)
    assert(out.schema("s").metadata == SpecShreddingSchema.metadata(schema))
    assert(SpecShreddingSchema.hasSchemas(out.schema))
  }

  test("a column that is not a variant fails naming it") {
    val id = $"id".long
    val before = Project(Seq(SparkInternals.newAlias(ShredSpecVariant(id, schema), "s")), LocalRelation(id))
    val e = intercept[IllegalArgumentException](ResolveSpecLayoutWrites(before))
    assert(e.getMessage.contains("id") && e.getMessage.contains("not VARIANT"))
  }

  test("nothing changes with the spec writer switch off") {
    val before = Project(Seq(SparkInternals.newAlias(ShredSpecVariant(variant, schema), "s")), relation)
    withConf(ExtConf.SpecLayoutWriter.key -> "false") {
      assertUnchanged(ResolveSpecLayoutWrites, before)
    }
  }
}
