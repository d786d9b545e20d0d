package pysparkext.variant.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, VariantType}
import org.apache.spark.unsafe.types.VariantVal

import pysparkext.codegen.MethodCallCodegen
import pysparkext.variant.layout.{ShreddedLevel, SpecLayout}

/**
 * The whole variant of a shredded struct (draft or spec layout), rebuilt by the proposal's
 * ConstructVariant (the spec's reconstruction). This is how a shredded column is presented as
 * VARIANT; wherever only paths of it are read, [[RewriteShreddedVariantPaths]] replaces the uses
 * with [[ShreddedVariantGet]] so this never runs.
 * `column` names the column in errors.
 */
case class ReconstructShreddedVariant(child: Expression, column: String)
  extends UnaryExpression {

  @transient private lazy val level =
    ShreddedLevel.of(child.dataType, spec = SpecLayout.isSpec(child.dataType))

  override def dataType: DataType = VariantType
  override def nullable: Boolean = true
  override def prettyName: String = "reconstruct_shredded_variant"
  override def toString: String = s"$prettyName($child)"

  override def eval(input: InternalRow): Any = evalValues(Array(child.eval(input)))

  def evalValues(values: Array[Any]): Any = {
    val row = values(0)
    if (row == null) return null
    val v = ShreddedLevel.reconstruct(level, row.asInstanceOf[InternalRow], column)
    if (v == null) null else new VariantVal(v.getValue, v.getMetadata)
  }

  override def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    MethodCallCodegen.callWithChildren(ctx, ev, this, "evalValues", Seq(child), dataType)

  override protected def withNewChildInternal(newChild: Expression): ReconstructShreddedVariant =
    copy(child = newChild)
}
