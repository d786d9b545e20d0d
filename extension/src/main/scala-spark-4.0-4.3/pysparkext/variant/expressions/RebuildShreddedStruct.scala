package pysparkext.variant.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, GetStructField, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, StructType, VariantType}

import pysparkext.codegen.MethodCallCodegen
import pysparkext.variant.layout.LayoutMarks

/**
 * A struct column whose VARIANT fields (at any depth of struct nesting) are stored shredded,
 * presented as the struct the table declares: `child` is the struct as read, each shredded
 * VARIANT field a shredded struct (draft or spec layout), and `dataType` the declared struct.
 * Each such field is rebuilt by [[ReconstructShreddedVariant]]'s reconstruction, every other field
 * is passed on as read; a null struct stays null.
 *
 * Reading a field of it ([[field]]) needs only that field of `child`: a plain field is the field
 * as read, a shredded VARIANT its reconstruction, which [[pysparkext.variant.rules.RewriteShreddedVariantPaths]]
 * then turns into reads of its leaves as for a top-level column. So this only runs where the
 * whole struct is needed. `column` names the struct in errors (`table.s`).
 */
case class RebuildShreddedStruct(child: Expression, dataType: StructType, column: String)
  extends UnaryExpression {

  override def nullable: Boolean = child.nullable
  override def prettyName: String = "rebuild_shredded_struct"
  override def toString: String = s"$prettyName($child)"

  private def readType: StructType = child.dataType.asInstanceOf[StructType]

  /** The `ordinal`th field, read from the same field of `child`. */
  def field(ordinal: Int): Expression = {
    val declared = dataType(ordinal)
    val read = GetStructField(child, ordinal, Some(readType(ordinal).name))
    (declared.dataType, readType(ordinal).dataType) match {
      case (VariantType, _: StructType) => ReconstructShreddedVariant(read, s"$column.${declared.name}")
      case (s: StructType, r) if holdsShredded(r) => RebuildShreddedStruct(read, s, s"$column.${declared.name}")
      case _ => read
    }
  }

  /** Whether a struct as read holds a shredded VARIANT field (marked as such), at any depth. */
  private def holdsShredded(t: DataType): Boolean = t match {
    case s: StructType => s.fields.exists(f => LayoutMarks.isMarked(f) || holdsShredded(f.dataType))
    case _ => false
  }

  /** Per field: how it is rebuilt from the field as read (the expressions of [[field]]). */
  @transient private lazy val plan: Array[Any => Any] = dataType.fields.indices.map { i =>
    field(i) match {
      case r: ReconstructShreddedVariant => (v: Any) => r.evalValues(Array(v))
      case r: RebuildShreddedStruct => (v: Any) => r.evalValues(Array(v))
      case _ => (v: Any) => v
    }
  }.toArray

  override def eval(input: InternalRow): Any = evalValues(Array(child.eval(input)))

  def evalValues(values: Array[Any]): Any = values(0) match {
    case null => null
    case row: InternalRow =>
      val read = readType
      val out = new Array[Any](plan.length)
      var i = 0
      while (i < plan.length) {
        out(i) = if (row.isNullAt(i)) null else plan(i)(row.get(i, read(i).dataType))
        i += 1
      }
      new GenericInternalRow(out)
  }

  override def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    MethodCallCodegen.callWithChildren(ctx, ev, this, "evalValues", Seq(child), dataType)

  override protected def withNewChildInternal(newChild: Expression): RebuildShreddedStruct =
    copy(child = newChild)
}
