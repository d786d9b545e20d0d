package pysparkext.variant.write.expressions

import org.apache.spark.sql.catalyst.expressions.Expression

import pysparkext.variant.write.schema.SpecShreddingSchema

/** The SQL function `shred_variant(v, 'schema' [, 'draft' | 'spec'])`: the draft layout by default. */
object ShredVariantFunction {
  def build(args: Seq[Expression]): Expression = args match {
    case Seq(_, _) => ShredDraftVariant.build(args)
    case Seq(v, schema, layout) if ShredDraftVariant.constantString(layout) =>
      Option(layout.eval()).map(_.toString.trim.toLowerCase(java.util.Locale.ROOT)) match {
        case Some("draft") => ShredDraftVariant.build(Seq(v, schema))
        case Some("spec") =>
          if (!ShredDraftVariant.constantString(schema)) {
            throw new IllegalArgumentException(
              "shred_variant(variant, 'shredding schema', 'spec'): the schema must be a constant string")
          }
          ShredSpecVariant(v, SpecShreddingSchema.parse(v.sql, ShredDraftVariant.schemaDdl(schema)))
        case other => throw new IllegalArgumentException(
          s"shred_variant: layout must be 'draft' or 'spec', not ${other.map(o => s"'$o'").getOrElse("null")}")
      }
    case _ => throw new IllegalArgumentException(
      "shred_variant(variant, 'shredding schema' [, 'draft' | 'spec']) takes a VARIANT and constant strings")
  }
}
