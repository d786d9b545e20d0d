package pysparkext.variant.expressions

import java.util.{ArrayList => JArrayList, HashMap => JHashMap, IdentityHashMap => JIdentityHashMap}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types._
import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}
import org.apache.spark.unsafe.types.VariantVal

import pysparkext.codegen.MethodCallCodegen
import pysparkext.variant.codec.{TypedValue, UntypedValue}
import pysparkext.variant.layout.ShreddingSchema

/**
 * `shred_variant(v, 'schema')`: a VARIANT value in the draft layout for a shredding schema (see
 * [[ShreddingSchema]]). A value goes to `typed_value` only when the proposal allows it losslessly;
 * otherwise to `untyped_value`. Object fields outside the schema go to the level's residual
 * `untyped_value`. Reading the result back as VARIANT gives the same values.
 */
case class ShredDraftVariant(child: Expression, schemaDdl: String) extends ShredVariant {

  @transient private lazy val shredding: DataType = ShreddingSchema.parse(schemaDdl)

  /**
   * Each object level's field positions by name, built once: matching an object's fields in one
   * pass over them decodes each key once, where a lookup per schema field (a binary search that
   * decodes keys) and a second pass for the residual decoded them several times per row.
   */
  @transient private lazy val positions: JIdentityHashMap[StructType, JHashMap[String, Integer]] = {
    val byLevel = new JIdentityHashMap[StructType, JHashMap[String, Integer]]()
    def walk(t: DataType): Unit = t match {
      case s: StructType =>
        val byName = new JHashMap[String, Integer]()
        s.fields.zipWithIndex.foreach { case (f, i) => byName.put(f.name, i); walk(f.dataType) }
        byLevel.put(s, byName)
      case ArrayType(e, _) => walk(e)
      case _ =>
    }
    walk(shredding)
    byLevel
  }

  override def dataType: DataType = ShreddingSchema.draftType(shredding)
  override def nullable: Boolean = true

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
        val byName = positions.get(s)
        val fields = new GenericInternalRow(s.length)
        var rest: JArrayList[Variant.ObjectField] = null
        val n = v.objectSize()
        var i = 0
        while (i < n) {
          val f = v.getFieldAtIndex(i)
          val at = byName.get(f.key)
          if (at != null) fields.update(at, level(s(at).dataType, f.value))
          else {
            if (rest == null) rest = new JArrayList[Variant.ObjectField]()
            rest.add(f)
          }
          i += 1
        }
        new GenericInternalRow(Array[Any](residual(rest), fields))
      case ArrayType(e, _) if v.getType == VariantUtil.Type.ARRAY =>
        val items = new Array[Any](v.arraySize())
        var i = 0
        while (i < items.length) {
          items(i) = level(e, v.getElementAtIndex(i))
          i += 1
        }
        new GenericInternalRow(Array[Any](null, new GenericArrayData(items)))
      case _: StructType | _: ArrayType => untypedOnly(2)
      case VariantType => untypedOnly(1)
      case p => TypedValue.fromVariant(p, v) match {
        case Some(typed) => new GenericInternalRow(Array[Any](null, typed))
        case None => untypedOnly(2)
      }
    }
  }

  /** An object of the fields the schema does not shred, in their order; null when none. */
  private def residual(rest: JArrayList[Variant.ObjectField]): Array[Byte] = {
    if (rest == null) return null
    val b = new VariantBuilder(false)
    val start = b.getWritePos
    val entries = new JArrayList[VariantBuilder.FieldEntry]()
    rest.forEach { f =>
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
