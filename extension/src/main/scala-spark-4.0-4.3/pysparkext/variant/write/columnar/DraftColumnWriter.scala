package pysparkext.variant.write.columnar

import org.apache.parquet.column.{ColumnWriter, ColumnWriteStore}
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.LogicalTypeAnnotation.{TimestampLogicalTypeAnnotation, TimeUnit}
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types._
import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}
import org.apache.spark.unsafe.types.UTF8String

import pysparkext.variant.codec.{TypedValue, UntypedValue}
import pysparkext.variant.layout.DraftLayout
import pysparkext.variant.write.codec.{DraftResidual, FieldsById, SpecShredder}
import pysparkext.variant.write.columnar.ParquetLeaves.writeNulls

/**
 * Writes one VARIANT column in the draft layout straight into Parquet's column writers, shredding
 * each value as it goes, by the rules of [[ShredDraftVariant]] (`shred_variant(v, 'schema')`): a
 * value is typed only when [[TypedValue.fromVariant]] keeps it lossless, fields outside the schema
 * go to the level's residual, a field the value lacks is a null level. The row-by-row way builds
 * that expression's struct per row and hands it to Parquet field by field; the tests compare the
 * two ways' files leaf by leaf.
 *
 * Object fields are found by dictionary id, with one key lookup per distinct metadata, as in
 * [[SpecColumnWriter]]; residuals are built by [[DraftResidual]], with the same bytes as the
 * expression's `VariantBuilder`. Levels come from the file's schema (`MessageType`), as in
 * [[SpecColumnWriter]] ([[ParquetLeaves]]); a schema this writer does not know how to fill (a
 * typed leaf of another physical type, such as millisecond timestamps) throws
 * [[ShreddedLeafWriters.Unsupported]] when built (with [[ParquetLeaves.Dry]] as the store, to check).
 */
final class DraftColumnWriter(message: MessageType, column: String, shredding: DataType,
                              store: ColumnWriteStore) extends VariantColumnWriter(message, column, store) {
  private val residual = new DraftResidual

  import file.{definition, under => leavesUnder, writer}
  private def has(path: Array[String], name: String): Boolean =
    message.getType(path: _*).asGroupType().containsField(name)

  private val top: Level = level(Array(column), shredding)

  protected def writeValue(): Unit = top.write(0, 0, whole = true)

  protected def nulls(r: Int, d: Int): Unit = top.nulls(r, d)

  private def level(path: Array[String], t: DataType): Level = t match {
    case s: StructType if has(path, DraftLayout.Object) => new ObjectLevel(path, s)
    case ArrayType(e, _) if has(path, DraftLayout.Array) => new ArrayLevel(path, e)
    case _: StructType | _: ArrayType | VariantType => new UntypedLevel(path)
    case p => new ScalarLevel(path, p)
  }

  /** A level: its residual leaf, and every leaf under it (to write it null). */
  private abstract class Level(path: Array[String]) {
    val present: Int = definition(path)
    private val untypedPath = path :+ DraftLayout.Untyped
    val untyped = new Leaf(writer(untypedPath), definition(untypedPath), present)
    val leaves: Array[ColumnWriter] = leavesUnder(path)

    def write(pos: Int, r: Int, whole: Boolean): Unit

    def nulls(r: Int, d: Int): Unit = {
      writeNulls(leaves, r, d)
    }

    /** The value whole in the residual; the typed part absent. */
    def untypedOnly(pos: Int, r: Int, whole: Boolean): Unit = {
      // The top-level value keeps its own bytes; a nested one gets its own, smaller metadata.
      val bytes = if (whole) UntypedValue.encode(new Variant(value, metadata)) else {
        val fast = residual.of(value, metadata, generation, pos)
        if (fast != null) fast else {
          val b = new VariantBuilder(false)
          b.appendVariant(variantAt(pos))
          UntypedValue.encode(b.result())
        }
      }
      untyped.bytes(bytes, r)
      typedNulls(r)
    }

    def typedNulls(r: Int): Unit
  }

  private final class UntypedLevel(path: Array[String]) extends Level(path) {
    def write(pos: Int, r: Int, whole: Boolean): Unit = untypedOnly(pos, r, whole)
    def typedNulls(r: Int): Unit = ()
  }

  private final class ScalarLevel(path: Array[String], t: DataType) extends Level(path) {
    private val typedPath = path :+ DraftLayout.Typed
    private val typed = new Leaf(writer(typedPath), definition(typedPath), present)
    private val put = DraftColumnWriter.put(message.getType(typedPath: _*).asPrimitiveType(), t,
      typedPath.mkString("."))

    // The common types are typed from the value's bytes in place, by the same rules as
    // TypedValue.fromVariant (decimals by its own exactDecimal); the others go through it with a
    // copy of the value.
    private val direct = t match {
      case LongType => 1
      case IntegerType => 2
      case ShortType => 3
      case ByteType => 4
      case DoubleType => 5
      case BooleanType => 6
      case _: StringType => 7
      case _: DecimalType => 8
      case _ => 0
    }

    private def typedInPlace(pos: Int, r: Int): Boolean = {
      val vt = VariantUtil.getType(value, pos)
      val w = typed.writer
      val d = typed.present
      direct match {
        case 1 | 2 | 3 | 4 if vt == VariantUtil.Type.LONG =>
          val x = VariantUtil.getLong(value, pos)
          direct match {
            case 1 => w.write(x, r, d); true
            case 2 if x.isValidInt => w.write(x.toInt, r, d); true
            case 3 if x.isValidShort => w.write(x.toInt, r, d); true
            case 4 if x.isValidByte => w.write(x.toInt, r, d); true
            case _ => false
          }
        case 5 if vt == VariantUtil.Type.DOUBLE => w.write(VariantUtil.getDouble(value, pos), r, d); true
        case 6 if vt == VariantUtil.Type.BOOLEAN => w.write(VariantUtil.getBoolean(value, pos), r, d); true
        case 7 if vt == VariantUtil.Type.STRING => w.write(SpecShredder.utf8(value, pos), r, d); true
        case 8 if vt == VariantUtil.Type.DECIMAL || vt == VariantUtil.Type.LONG =>
          val x = if (vt == VariantUtil.Type.LONG) new java.math.BigDecimal(VariantUtil.getLong(value, pos))
            else VariantUtil.getDecimal(value, pos)
          TypedValue.exactDecimal(x, t.asInstanceOf[DecimalType]) match {
            case Some(decimal) => put(w, decimal, r, d); true
            case None => false
          }
        case _ => false
      }
    }

    def write(pos: Int, r: Int, whole: Boolean): Unit =
      if (direct != 0) {
        if (typedInPlace(pos, r)) untyped.writer.writeNull(r, present)
        else untypedOnly(pos, r, whole)
      } else TypedValue.fromVariant(t, variantAt(pos)) match {
        case Some(x) =>
          untyped.writer.writeNull(r, present)
          put(typed.writer, x, r, typed.present)
        case None => untypedOnly(pos, r, whole)
      }

    def typedNulls(r: Int): Unit = typed.writer.writeNull(r, present)
  }

  private final class ObjectLevel(path: Array[String], s: StructType) extends Level(path) {
    private val objectPath = path :+ DraftLayout.Object
    private val objectDefinition = definition(objectPath)
    private val objectLeaves = leavesUnder(objectPath)
    private val fields = s.fields.map(f => level(objectPath :+ f.name, f.dataType))
    private val ids = new FieldsById(s.fieldNames)
    import ids.outside

    def write(pos: Int, r: Int, whole: Boolean): Unit = {
      if (VariantUtil.getType(value, pos) != VariantUtil.Type.OBJECT) return untypedOnly(pos, r, whole)
      ids.foreachField(value, pos, metadata, generation)(
        (field, at) => fields(field).write(at, r, whole = false),
        field => fields(field).nulls(r, objectDefinition))
      if (outside.count > 0) {
        val fast = residual.ofFields(value, metadata, generation, outside.ids, outside.at, outside.count)
        untyped.bytes(if (fast != null) fast else rest(), r)
      } else untyped.writer.writeNull(r, present)
    }

    /** The residual of the fields outside the schema, built by Spark's `VariantBuilder`. */
    private def rest(): Array[Byte] = UntypedValue.encode(objectByBuilder(outside) { (b, i) =>
      val key = VariantUtil.getMetadataKey(metadata, outside.ids(i))
      val entry = new VariantBuilder.FieldEntry(key, b.addKey(key), b.getWritePos)
      b.appendVariant(variantAt(outside.at(i)))
      entry
    }.result())

    def typedNulls(r: Int): Unit = {
      writeNulls(objectLeaves, r, present)
    }
  }

  private final class ArrayLevel(path: Array[String], element: DataType) extends Level(path) {
    private val arrayPath = path :+ DraftLayout.Array
    private val arrayDefinition = definition(arrayPath)
    private val arrayLeaves = leavesUnder(arrayPath)
    private val (elementLevel, elementRepetition) = {
      val (path, repetition) = file.listElement(arrayPath)
      (level(path, element), repetition)
    }
    private val writeElement: (Int, Int) => Unit = (at, r) => elementLevel.write(at, r, whole = false)

    def write(pos: Int, r: Int, whole: Boolean): Unit = {
      if (VariantUtil.getType(value, pos) != VariantUtil.Type.ARRAY) return untypedOnly(pos, r, whole)
      untyped.writer.writeNull(r, present)
      foreachElement(pos, r, elementRepetition, arrayLeaves, arrayDefinition, writeElement)
    }

    def typedNulls(r: Int): Unit = {
      writeNulls(arrayLeaves, r, present)
    }
  }
}

object DraftColumnWriter {
  /** How a typed value (a Spark value of `t`, from [[TypedValue.fromVariant]]) goes into its leaf. */
  private def put(p: org.apache.parquet.schema.PrimitiveType, t: DataType, at: String)
      : (ColumnWriter, Any, Int, Int) => Unit = {
    import PrimitiveTypeName._
    def unsupported = throw new ShreddedLeafWriters.Unsupported(s"$at: ${t.sql} as Parquet $p")
    (t, p.getPrimitiveTypeName) match {
      case (ByteType | ShortType | IntegerType | DateType, INT32) =>
        (w, x, r, d) => w.write(x.asInstanceOf[Number].intValue, r, d)
      case (LongType, INT64) => (w, x, r, d) => w.write(x.asInstanceOf[Long], r, d)
      case (TimestampType | TimestampNTZType, INT64) => p.getLogicalTypeAnnotation match {
        case ts: TimestampLogicalTypeAnnotation if ts.getUnit == TimeUnit.MICROS =>
          (w, x, r, d) => w.write(x.asInstanceOf[Long], r, d)
        case _ => unsupported
      }
      // As Spark's writer writes INT96 (the rebase modes are CORRECTED here: ColumnarSpecWriteSupport):
      // the nanoseconds of the day, then the Julian day, little-endian.
      case (TimestampType, INT96) => (w, x, r, d) =>
        val (day, nanos) = DateTimeUtils.toJulianDay(x.asInstanceOf[Long])
        val bytes = java.nio.ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN)
          .putLong(nanos).putInt(day).array()
        w.write(Binary.fromConstantByteArray(bytes), r, d)
      case (_: DecimalType, INT32) => (w, x, r, d) => w.write(x.asInstanceOf[Decimal].toUnscaledLong.toInt, r, d)
      case (_: DecimalType, INT64) => (w, x, r, d) => w.write(x.asInstanceOf[Decimal].toUnscaledLong, r, d)
      case (_: DecimalType, FIXED_LEN_BYTE_ARRAY) =>
        val width = p.getTypeLength
        (w, x, r, d) => w.write(Binary.fromConstantByteArray(ShreddedLeafWriters.fixed(
          x.asInstanceOf[Decimal].toJavaBigDecimal.unscaledValue, width)), r, d)
      case (BooleanType, BOOLEAN) => (w, x, r, d) => w.write(x.asInstanceOf[Boolean], r, d)
      case (FloatType, FLOAT) => (w, x, r, d) => w.write(x.asInstanceOf[Float], r, d)
      case (DoubleType, DOUBLE) => (w, x, r, d) => w.write(x.asInstanceOf[Double], r, d)
      case (_: StringType, BINARY) =>
        (w, x, r, d) => w.write(Binary.fromConstantByteArray(x.asInstanceOf[UTF8String].getBytes), r, d)
      case (BinaryType, BINARY) =>
        (w, x, r, d) => w.write(Binary.fromConstantByteArray(x.asInstanceOf[Array[Byte]]), r, d)
      case _ => unsupported
    }
  }
}
