package pysparkext.variant.expressions

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.types.StringType

import pysparkext.variant.layout.{ShreddingSchema, SpecShreddingSchema}

/**
 * The SQL function `shred_variant(v, 'schema' [, 'draft' | 'spec'])`: the draft layout by default
 * ([[ShredDraftVariant]]), the spec layout's mark with `'spec'` ([[ShredSpecVariant]]). Either
 * layout's schema is parsed and checked here, when the function is called, so a bad schema fails
 * the query that names it, with an error naming the column.
 */
object ShredVariantFunction {
  def build(args: Seq[Expression]): Expression = args match {
    case Seq(v, schema) => draft(v, schema)
    case Seq(v, schema, layout) if constantString(layout) =>
      Option(layout.eval()).map(_.toString.trim.toLowerCase(java.util.Locale.ROOT)) match {
        case Some("draft") => draft(v, schema)
        case Some("spec") =>
          val ddl = schemaDdl(schema,
            "shred_variant(variant, 'shredding schema', 'spec'): the schema must be a constant string")
          ShredSpecVariant(v, SpecShreddingSchema.parse(v.sql, ddl))
        case other => throw new IllegalArgumentException(
          s"shred_variant: layout must be 'draft' or 'spec', not ${other.map(o => s"'$o'").getOrElse("null")}")
      }
    case _ => throw new IllegalArgumentException(
      "shred_variant(variant, 'shredding schema' [, 'draft' | 'spec']) takes a VARIANT and constant strings")
  }

  private def draft(v: Expression, schema: Expression): ShredDraftVariant = {
    val ddl = schemaDdl(schema,
      "shred_variant(variant, 'shredding schema') takes a VARIANT and a constant string")
    try ShreddingSchema.parse(ddl) catch {
      case e: IllegalArgumentException => throw new IllegalArgumentException(
        s"Cannot shred column ${v.sql} in the draft layout: ${e.getMessage}", e)
    }
    ShredDraftVariant(v, ddl)
  }

  /** Whether `e` is a constant string, as the function's schema and layout arguments must be. */
  private def constantString(e: Expression): Boolean = e.foldable && e.dataType.isInstanceOf[StringType]

  /** The shredding schema's DDL, from a constant string argument (never null); else `notConstant`. */
  private def schemaDdl(schema: Expression, notConstant: String): String = {
    if (!constantString(schema)) throw new IllegalArgumentException(notConstant)
    Option(schema.eval()).map(_.toString).getOrElse(
      throw new IllegalArgumentException("shred_variant: the shredding schema must not be null"))
  }
}
