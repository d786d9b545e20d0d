package pysparkext.variant

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, VariantType}
import org.apache.spark.unsafe.types.VariantVal

/**
 * The whole variant of a draft-layout struct, rebuilt by the seed's ConstructVariant. This is
 * how a draft column is presented as VARIANT; wherever only paths of it are read,
 * [[RewriteDraftVariantPaths]] replaces the uses with [[DraftVariantGet]] so this never runs.
 * `column` names the column in errors.
 */
case class ReconstructDraftVariant(child: Expression, column: String)
  extends UnaryExpression {

  @transient private lazy val level =
    DraftLevel.of(child.dataType, spec = SpecLayout.isSpec(child.dataType))

  override def dataType: DataType = VariantType
  override def nullable: Boolean = true
  override def prettyName: String = "reconstruct_draft_variant"
  override def toString: String = s"$prettyName($child)"

  override def eval(input: InternalRow): Any = evalValues(Array(child.eval(input)))

  def evalValues(values: Array[Any]): Any = {
    val row = values(0)
    if (row == null) return null
    val v = DraftLevel.reconstruct(level, row.asInstanceOf[InternalRow], column)
    if (v == null) null else new VariantVal(v.getValue, v.getMetadata)
  }

  override def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    DraftCodegen.callWithChildren(ctx, ev, this, "evalValues", Seq(child), dataType)

  override protected def withNewChildInternal(newChild: Expression): ReconstructDraftVariant =
    copy(child = newChild)
}
