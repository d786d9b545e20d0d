package pysparkext.writer

import org.apache.parquet.column.{ColumnWriteStore, ColumnWriter}
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.{MessageType, PrimitiveType}
import org.apache.parquet.schema.LogicalTypeAnnotation.{TimeUnit, TimestampLogicalTypeAnnotation}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.spark.types.variant.VariantSchema

/**
 * Writes a spec-layout shredded VARIANT column straight into Parquet's column writers, one leaf
 * at a time with its repetition and definition levels, from the [[ShreddedValue]] that
 * [[SpecShredder]] made of each row. Spark's own path builds an `InternalRow` per level and hands it, field
 * by field, to Parquet's `RecordConsumer`, which tracks the fields written at every level to fill
 * in nulls; here each leaf's levels follow from the file's schema once, when the writer is built.
 *
 * Levels: a leaf's definition level counts the optional and repeated groups on its path that are
 * present; a part that is absent writes null at its parent's level. So the levels of every write
 * below are the file schema's own (`MessageType.getMaxDefinitionLevel` of the path written, or of
 * its parent when null), not computed by hand.
 */
object ShreddedLeafWriters {
  /** The file schema cannot be written column by column (the reason says why); Spark's path writes it. */
  final class Unsupported(reason: String) extends Exception(reason)

  /** The writer of the top-level shredded group `column` of `message`, shredded by `schema`. */
  def apply(message: MessageType, column: String, schema: VariantSchema, store: ColumnWriteStore)
      : LevelWriter = new Builder(new ParquetLeaves(message, store)).level(Array(column), schema)

  private final class Builder(file: ParquetLeaves) {
    import file.{definition, message, under => leaves, writer}

    private def child(path: Array[String], at: Int, expected: String): Option[Array[String]] =
      if (at < 0) None
      else {
        val group = message.getType(path: _*).asGroupType()
        val name = group.getType(at).getName
        if (name != expected) throw new Unsupported(
          s"field $at of ${path.mkString(".")} is '$name', not '$expected'")
        Some(path :+ name)
      }

    def level(path: Array[String], schema: VariantSchema): LevelWriter = {
      val metadata = child(path, schema.topLevelMetadataIdx, "metadata").map(p =>
        new Leaf(writer(p), definition(p), definition(path)))
      val value = child(path, schema.variantIdx, "value").map(p =>
        new Leaf(writer(p), definition(p), definition(path)))
      val typed = child(path, schema.typedIdx, "typed_value").map(p => typedWriter(p, schema))
      new LevelWriter(metadata.orNull, value.orNull, typed.orNull, leaves(path))
    }

    private def typedWriter(path: Array[String], schema: VariantSchema): TypedWriter = {
      val absent = definition(path.init)
      if (schema.objectSchema != null) {
        val fields = schema.objectSchema.map(f => level(path :+ f.fieldName, f.schema))
        new ObjectWriter(fields, leaves(path), absent)
      } else if (schema.arraySchema != null) {
        val (element, elementRepetition) = file.listElement(path)
        new ArrayWriter(level(element, schema.arraySchema), leaves(path), absent, definition(path),
          elementRepetition)
      } else {
        val leaf = new Leaf(writer(path), definition(path), absent)
        new ScalarWriter(leaf, put(message.getType(path: _*).asPrimitiveType(), schema.scalarSchema,
          path.mkString(".")))
      }
    }

    /** How a shredded scalar (Spark's castShredded result for the type) goes into the leaf. */
    private def put(p: PrimitiveType, t: VariantSchema.ScalarType, at: String)
        : (ColumnWriter, AnyRef, Int, Int) => Unit = {
      import PrimitiveTypeName._
      def unsupported = throw new Unsupported(s"$at: $t as Parquet $p")
      (t, p.getPrimitiveTypeName) match {
        case (_: VariantSchema.IntegralType | _: VariantSchema.DateType, INT32) =>
          (w, x, r, d) => w.write(x.asInstanceOf[Number].intValue, r, d)
        case (_: VariantSchema.IntegralType, INT64) =>
          (w, x, r, d) => w.write(x.asInstanceOf[Number].longValue, r, d)
        case (_: VariantSchema.TimestampType | _: VariantSchema.TimestampNTZType, INT64) =>
          p.getLogicalTypeAnnotation match {
            case ts: TimestampLogicalTypeAnnotation if ts.getUnit == TimeUnit.MICROS =>
              (w, x, r, d) => w.write(x.asInstanceOf[java.lang.Long].longValue, r, d)
            case _ => unsupported
          }
        case (_: VariantSchema.DecimalType, INT32) =>
          (w, x, r, d) => w.write(unscaled(x).intValue, r, d)
        case (_: VariantSchema.DecimalType, INT64) =>
          (w, x, r, d) => w.write(unscaled(x).longValue, r, d)
        case (_: VariantSchema.DecimalType, FIXED_LEN_BYTE_ARRAY) =>
          val width = p.getTypeLength
          (w, x, r, d) => w.write(Binary.fromConstantByteArray(fixed(unscaled(x), width)), r, d)
        case (_: VariantSchema.BooleanType, BOOLEAN) =>
          (w, x, r, d) => w.write(x.asInstanceOf[java.lang.Boolean].booleanValue, r, d)
        case (_: VariantSchema.FloatType, FLOAT) =>
          (w, x, r, d) => w.write(x.asInstanceOf[java.lang.Float].floatValue, r, d)
        case (_: VariantSchema.DoubleType, DOUBLE) =>
          (w, x, r, d) => w.write(x.asInstanceOf[java.lang.Double].doubleValue, r, d)
        case (_: VariantSchema.StringType, BINARY) =>
          (w, x, r, d) => w.write(x match {
            case b: Binary => b
            case s => Binary.fromString(s.asInstanceOf[String])
          }, r, d)
        case (_: VariantSchema.BinaryType, BINARY) =>
          (w, x, r, d) => w.write(Binary.fromConstantByteArray(x.asInstanceOf[Array[Byte]]), r, d)
        case _ => unsupported
      }
    }
  }

  // Spark's shredder returns decimals already at the schema's scale (it rescales or refuses).
  private def unscaled(x: AnyRef): java.math.BigInteger =
    x.asInstanceOf[java.math.BigDecimal].unscaledValue

  /** Big-endian two's complement in exactly `width` bytes, as Parquet's FIXED_LEN_BYTE_ARRAY decimal. */
  private[writer] def fixed(v: java.math.BigInteger, width: Int): Array[Byte] = {
    val minimal = v.toByteArray
    if (minimal.length == width) minimal
    else {
      val out = new Array[Byte](width)
      val pad: Byte = if (v.signum < 0) -1 else 0
      java.util.Arrays.fill(out, 0, width - minimal.length, pad)
      System.arraycopy(minimal, 0, out, width - minimal.length, minimal.length)
      out
    }
  }
}

/** One leaf: its writer, its definition level when present, and its parent's (when absent). */
private[writer] final class Leaf(val writer: ColumnWriter, val present: Int, val absent: Int) {
  def bytes(b: Array[Byte], r: Int): Unit =
    if (b != null) writer.write(Binary.fromConstantByteArray(b), r, present)
    else writer.writeNull(r, absent)
}

/** One level of a shredded value (`metadata` at the top, `value`, `typed_value`), present. */
final class LevelWriter(
    metadata: Leaf, value: Leaf, typed: TypedWriter, leaves: Array[ColumnWriter]) {
  def write(v: ShreddedValue, r: Int): Unit = {
    if (metadata != null) {
      if (v.metadata == null) throw new IllegalStateException("a shredded variant without metadata")
      metadata.bytes(v.metadata, r)
    }
    if (value != null) value.bytes(v.value, r)
    if (typed != null) typed.write(v, r)
  }

  /** Every leaf below: null at definition level `d` (the level is absent). */
  def nulls(r: Int, d: Int): Unit = {
    var i = 0
    while (i < leaves.length) { leaves(i).writeNull(r, d); i += 1 }
  }
}

private[writer] sealed trait TypedWriter {
  def write(v: ShreddedValue, r: Int): Unit
}

private[writer] final class ScalarWriter(leaf: Leaf, put: (ColumnWriter, AnyRef, Int, Int) => Unit)
  extends TypedWriter {
  def write(v: ShreddedValue, r: Int): Unit =
    if (v.scalar != null) put(leaf.writer, v.scalar, r, leaf.present)
    else leaf.writer.writeNull(r, leaf.absent)
}

private[writer] final class ObjectWriter(fields: Array[LevelWriter], leaves: Array[ColumnWriter], absent: Int)
  extends TypedWriter {
  def write(v: ShreddedValue, r: Int): Unit =
    if (v.fields != null) {
      var i = 0
      while (i < fields.length) { fields(i).write(v.fields(i), r); i += 1 }
    } else {
      var i = 0
      while (i < leaves.length) { leaves(i).writeNull(r, absent); i += 1 }
    }
}

/** A LIST `typed_value`: absent, empty (the list present, no element), or its elements. */
private[writer] final class ArrayWriter(
    element: LevelWriter, leaves: Array[ColumnWriter], absent: Int, empty: Int, elementRepetition: Int)
  extends TypedWriter {
  def write(v: ShreddedValue, r: Int): Unit = {
    val items = v.elements
    if (items == null || items.isEmpty) {
      val d = if (items == null) absent else empty
      var i = 0
      while (i < leaves.length) { leaves(i).writeNull(r, d); i += 1 }
    } else {
      var j = 0
      while (j < items.length) {
        element.write(items(j), if (j == 0) r else elementRepetition)
        j += 1
      }
    }
  }
}
