package pysparkext.variant

import java.util.{ArrayList => JArrayList}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._
import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}
import org.apache.spark.unsafe.types.VariantVal

/**
 * `shred_variant(v, 'schema')`: a VARIANT value in the draft layout for a shredding schema (see
 * [[ShreddingSchema]]). A value goes to `typed_value` only when the seed allows it losslessly;
 * otherwise to `untyped_value`. Object fields outside the schema go to the level's residual
 * `untyped_value`. Reading the result back as VARIANT gives the same values.
 */
case class ShredDraftVariant(child: Expression, schemaDdl: String)
  extends UnaryExpression {

  @transient private lazy val shredding: DataType = ShreddingSchema.parse(schemaDdl)

  override def dataType: DataType = ShreddingSchema.draftType(shredding)
  override def nullable: Boolean = true
  override def prettyName: String = "shred_variant"

  override def checkInputDataTypes(): TypeCheckResult =
    if (child.dataType == VariantType) TypeCheckResult.TypeCheckSuccess
    else TypeCheckResult.TypeCheckFailure(
      s"shred_variant expects a VARIANT, not ${child.dataType.sql}")

  override def eval(input: InternalRow): Any = evalValues(Array(child.eval(input)))

  def evalValues(values: Array[Any]): Any = {
    val v = values(0)
    if (v == null) return null
    val vv = v.asInstanceOf[VariantVal]
    level(shredding, new Variant(vv.getValue, vv.getMetadata), whole = vv)
  }

  private def bytes(v: Variant): Array[Byte] = {
    val b = new VariantBuilder(false)
    b.appendVariant(v)
    UntypedValue.encode(b.result())
  }

  private def level(t: DataType, v: Variant, whole: VariantVal = null): InternalRow = {
    def untypedOnly(width: Int) = {
      val row = new GenericInternalRow(width)
      // The top-level value keeps its own bytes; a nested one gets its own, smaller metadata.
      row.update(0, if (whole != null) UntypedValue.encode(new Variant(whole.getValue,
        whole.getMetadata)) else bytes(v))
      row
    }
    t match {
      case s: StructType if v.getType == VariantUtil.Type.OBJECT =>
        val fields = new GenericInternalRow(s.length)
        var i = 0
        while (i < s.length) {
          val f = v.getFieldByKey(s(i).name)
          if (f != null) fields.update(i, level(s(i).dataType, f))
          i += 1
        }
        new GenericInternalRow(Array[Any](residual(v, s), fields))
      case ArrayType(e, _) if v.getType == VariantUtil.Type.ARRAY =>
        val items = (0 until v.arraySize()).map(i => level(e, v.getElementAtIndex(i)): Any)
        new GenericInternalRow(Array[Any](null, new GenericArrayData(items.toArray)))
      case _: StructType | _: ArrayType => untypedOnly(2)
      case VariantType => untypedOnly(1)
      case p => TypedValue.fromVariant(p, v) match {
        case Some(typed) => new GenericInternalRow(Array[Any](null, typed))
        case None => untypedOnly(2)
      }
    }
  }

  /** The object's fields that the schema does not shred, as one object; null when none. */
  private def residual(v: Variant, s: StructType): Array[Byte] = {
    val names = s.fieldNames.toSet
    val rest = (0 until v.objectSize()).map(v.getFieldAtIndex).filterNot(f => names.contains(f.key))
    if (rest.isEmpty) return null
    val b = new VariantBuilder(false)
    val start = b.getWritePos
    val entries = new JArrayList[VariantBuilder.FieldEntry]()
    rest.foreach { f =>
      entries.add(new VariantBuilder.FieldEntry(f.key, b.addKey(f.key), b.getWritePos - start))
      b.appendVariant(f.value)
    }
    b.finishWritingObject(start, entries)
    UntypedValue.encode(b.result())
  }

  override def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    MethodCallCodegen.callWithChildren(ctx, ev, this, "evalValues", Seq(child), dataType)

  override protected def withNewChildInternal(newChild: Expression): ShredDraftVariant =
    copy(child = newChild)
}

object ShredDraftVariant {
  /** Builder for the SQL function: the schema must be a constant string. */
  def build(args: Seq[Expression]): Expression = args match {
    case Seq(v, schema) if schema.foldable && schema.dataType.isInstanceOf[StringType] =>
      val ddl = Option(schema.eval()).map(_.toString).getOrElse(
        throw new IllegalArgumentException("shred_variant: the shredding schema must not be null"))
      ShredDraftVariant(v, ddl)
    case _ => throw new IllegalArgumentException(
      "shred_variant(variant, 'shredding schema') takes a VARIANT and a constant string")
  }
}
