package pysparkext.pruning

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, Literal, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.types._

/**
 * Widens an array or map read with a pruned element type back to the type the plan above expects:
 * struct fields the pruning dropped become null (the type's default where a field is not nullable).
 * It also gives a struct padded with `named_struct` its original type exactly, field metadata
 * included, where a column keeps its id ([[PrunedScan.rewriteNamed]]). Padding an array element by
 * element with `transform` and a lambda would be interpreted row by row and would take the operator
 * out of whole-stage code; this expression precomputes the field mapping once and is called from
 * generated code.
 *
 * Safe for the same reason as [[Padding]]: the analysis proved no expression reads the dropped
 * fields, and every value that is read is copied unchanged.
 */
case class WidenPrunedValue(child: Expression, dataType: DataType) extends UnaryExpression {
  @transient private lazy val widening = Widening.of(child.dataType, dataType)

  override def nullable: Boolean = child.nullable

  override protected def nullSafeEval(value: Any): Any = widening(value)

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val ref = ctx.addReferenceObj("widening", Widening.of(child.dataType, dataType),
      classOf[Widening].getName)
    defineCodeGen(ctx, ev, c => s"(${CodeGenerator.boxedType(dataType)}) $ref.apply($c)")
  }

  override def prettyName: String = "widen_pruned"

  override def toString: String = s"$prettyName($child)"

  override protected def withNewChildInternal(newChild: Expression): WidenPrunedValue =
    copy(child = newChild)
}

object WidenPrunedValue {
  /** `e` as type `t`: itself where it has that type already, else widened. */
  def to(e: Expression, t: DataType): Expression = if (e.dataType == t) e else WidenPrunedValue(e, t)
}

/** Copies a non-null value of a pruned type into its original type. */
sealed trait Widening extends Serializable {
  def apply(value: Any): Any
}

object Widening {
  def of(from: DataType, to: DataType): Widening =
    if (from == to) Same else (from, to) match {
      case (ps: StructType, fs: StructType) =>
        val fields = fs.fields.map { f =>
          Padding.fieldIndex(ps, f.name) match {
            case Some(i) => FromField(i, ps(i).dataType, of(ps(i).dataType, f.dataType))
            case None => Missing(if (f.nullable) null else Literal.default(f.dataType).value)
          }
        }
        StructWidening(fields.toIndexedSeq)
      case (ArrayType(pe, _), ArrayType(fe, _)) => ArrayWidening(pe, of(pe, fe))
      case (MapType(_, pv, _), MapType(_, fv, _)) => MapWidening(pv, of(pv, fv))
      case (have, want) => throw new IllegalStateException(
        s"cannot widen ${have.catalogString} back to ${want.catalogString}")
    }

  case object Same extends Widening {
    override def apply(value: Any): Any = value
  }

  sealed trait Field extends Serializable
  final case class FromField(ordinal: Int, readType: DataType, widening: Widening) extends Field
  final case class Missing(value: Any) extends Field

  final case class StructWidening(fields: IndexedSeq[Field]) extends Widening {
    override def apply(value: Any): Any = {
      val row = value.asInstanceOf[InternalRow]
      val out = new Array[Any](fields.length)
      var j = 0
      while (j < out.length) {
        out(j) = fields(j) match {
          case FromField(i, t, w) => if (row.isNullAt(i)) null else w(row.get(i, t))
          case Missing(v) => v
        }
        j += 1
      }
      new GenericInternalRow(out)
    }
  }

  final case class ArrayWidening(elementType: DataType, element: Widening) extends Widening {
    override def apply(value: Any): Any = widenAll(value.asInstanceOf[ArrayData], elementType, element)
  }

  final case class MapWidening(valueType: DataType, values: Widening) extends Widening {
    override def apply(value: Any): Any = {
      val map = value.asInstanceOf[MapData]
      new ArrayBasedMapData(map.keyArray(), widenAll(map.valueArray(), valueType, values))
    }
  }

  private def widenAll(array: ArrayData, t: DataType, w: Widening): ArrayData = {
    val out = new Array[Any](array.numElements())
    var i = 0
    while (i < out.length) {
      out(i) = if (array.isNullAt(i)) null else w(array.get(i, t))
      i += 1
    }
    new GenericArrayData(out)
  }
}
