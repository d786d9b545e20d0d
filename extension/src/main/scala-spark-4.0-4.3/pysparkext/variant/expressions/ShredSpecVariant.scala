package pysparkext.variant.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, VariantType}

/**
 * `shred_variant(v, 'schema', 'spec')`: the VARIANT `v` itself, marked to be written in the
 * Parquet spec layout with `schema`. The value does not change; at analysis
 * [[ResolveSpecLayoutWrites]] moves the mark into the output column's metadata
 * ([[SpecShreddingSchema.MetadataKey]]), which is what a Parquet write reads. The schema is
 * parsed and checked when the function is built ([[ShredVariantFunction]]), so a bad schema fails
 * the query that names it.
 */
case class ShredSpecVariant(child: Expression, schema: DataType) extends ShredVariant {
  override def dataType: DataType = VariantType
  override def nullable: Boolean = child.nullable

  override def eval(input: InternalRow): Any = child.eval(input)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, c => c)

  override protected def withNewChildInternal(newChild: Expression): ShredSpecVariant =
    copy(child = newChild)
}
