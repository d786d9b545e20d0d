package pysparkext.writer

import java.math.{BigDecimal => JBigDecimal, RoundingMode}
import java.util.{ArrayList => JArrayList, IdentityHashMap => JIdentityHashMap}

import org.apache.parquet.io.api.Binary
import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantSchema, VariantUtil}
import org.apache.spark.unsafe.types.VariantVal
import org.apache.spark.types.variant.VariantSchema.IntegralSize

/**
 * Shreds variant values for the column-by-column spec-layout writer by the rules of Spark's
 * `VariantShreddingWriter.castShredded` with Spark's writer's numeric rule (a value may change
 * scale, or move between integers and decimals, when no digit is lost): a field or element goes
 * to `typed_value` exactly when Spark's shredder puts it there, and a residual object holds the
 * fields Spark's would, built by the same `VariantBuilder` calls. The written files are compared
 * with the files of Spark's row-by-row shredding writer by the tests.
 *
 * What it does differently is how it finds an object's fields: Spark's shredder decodes every
 * field's key from the metadata to a `String` and looks it up in the schema's map, in every row.
 * Here a field is found by its dictionary id, and the id's schema position is looked up once per
 * distinct metadata: rows of one shape usually carry byte-identical metadata, so the next row
 * reuses the answers. Strings go to Parquet as their UTF-8 bytes, without a `String` in between.
 */
final class SpecShredder(schema: VariantSchema) {
  // The value being shredded: positions below are into these bytes.
  private var value: Array[Byte] = _
  private var metadata: Array[Byte] = _
  // Field lookups are valid for one metadata: a different one starts a new generation.
  private var generation = 0
  private val lookups = new JIdentityHashMap[VariantSchema, FieldsById]()

  def shred(v: VariantVal): ShreddedValue = {
    val m = v.getMetadata
    // Equal metadata keeps the first row's array: Parquet's dictionary then finds it by identity.
    if (metadata == null || !java.util.Arrays.equals(m, metadata)) {
      generation += 1
      metadata = m
    }
    value = v.getValue
    cast(0, schema)
  }

  /** The bytes of the value at `pos`, as Spark's `Variant.getValue` gives them. */
  private def bytes(pos: Int): Array[Byte] = {
    val size = VariantUtil.valueSize(value, pos)
    if (pos == 0 && size == value.length) value
    else java.util.Arrays.copyOfRange(value, pos, pos + size)
  }

  private def cast(pos: Int, schema: VariantSchema): ShreddedValue = {
    val result = new ShreddedValue
    if (schema.topLevelMetadataIdx >= 0) result.metadata = metadata
    val t = VariantUtil.getType(value, pos)
    if (schema.arraySchema != null && t == VariantUtil.Type.ARRAY) {
      VariantUtil.handleArray(value, pos, (size, offsetSize, offsetStart, dataStart) => {
        val items = new Array[ShreddedValue](size)
        var i = 0
        while (i < size) {
          val at = dataStart + VariantUtil.readUnsigned(value, offsetStart + offsetSize * i, offsetSize)
          items(i) = cast(at, schema.arraySchema)
          i += 1
        }
        result.elements = items
        null
      })
    } else if (schema.objectSchema != null && t == VariantUtil.Type.OBJECT) {
      shredObject(pos, schema, result)
    } else if (schema.scalarSchema != null) {
      val typed = SpecShredder.typed(value, pos, t, schema.scalarSchema)
      if (typed != null) result.scalar = typed else result.value = bytes(pos)
    } else result.value = bytes(pos)
    result
  }

  private def shredObject(pos: Int, schema: VariantSchema, result: ShreddedValue): Unit = {
    val lookup = lookups.computeIfAbsent(schema, s => new FieldsById(k => {
      val at = s.objectSchemaMap.get(k)
      if (at == null) -1 else at.intValue
    }))
    val fields = new Array[ShreddedValue](schema.objectSchema.length)
    var rest: VariantBuilder = null
    var entries: JArrayList[VariantBuilder.FieldEntry] = null
    lookup.foreachField(value, pos, metadata, generation)((field, at) => {
      val f = schema.objectSchema(field)
      if (fields(field) != null) throw new IllegalArgumentException(
        s"Malformed variant: the key '${f.fieldName}' appears twice in one object")
      fields(field) = cast(at, f.schema)
    }, (key, id, at) => {
      if (rest == null) {
        rest = new VariantBuilder(false)
        entries = new JArrayList[VariantBuilder.FieldEntry]()
      }
      entries.add(new VariantBuilder.FieldEntry(key, id, rest.getWritePos))
      // As is: its nested objects keep their ids in the value's own metadata.
      rest.shallowAppendVariant(new Variant(bytes(at), metadata))
    })
    var i = 0
    while (i < fields.length) {
      if (fields(i) == null) fields(i) = new ShreddedValue // a missing field: both parts null
      i += 1
    }
    result.fields = fields
    if (rest != null) {
      rest.finishWritingObject(0, entries)
      result.value = rest.valueWithoutMetadata()
    }
  }
}

object SpecShredder {
  /**
   * `v` as the typed value of `target`, or null where it goes to `value` instead: Spark's rules,
   * numeric scale changes allowed. Integers and dates are boxed Java numbers, decimals are at the
   * target's scale, strings are a [[Binary]] of their UTF-8 bytes, binaries a byte array.
   */
  def typed(value: Array[Byte], pos: Int, t: VariantUtil.Type, target: VariantSchema.ScalarType): AnyRef =
    t match {
    case VariantUtil.Type.LONG => target match {
      case i: VariantSchema.IntegralType => integral(VariantUtil.getLong(value, pos), i.size)
      case d: VariantSchema.DecimalType =>
        val scaled = JBigDecimal.valueOf(VariantUtil.getLong(value, pos)).setScale(d.scale)
        if (scaled.precision <= d.precision) scaled else null
      case _ => null
    }
    case VariantUtil.Type.DECIMAL => target match {
      case d: VariantSchema.DecimalType =>
        val x = VariantUtil.getDecimalWithOriginalScale(value, pos)
        if (x.precision <= d.precision && x.scale == d.scale) x
        else {
          val scaled = x.setScale(d.scale, RoundingMode.FLOOR)
          if (scaled.compareTo(x) == 0 && scaled.precision <= d.precision) scaled else null
        }
      case i: VariantSchema.IntegralType =>
        val x = VariantUtil.getDecimal(value, pos)
        val whole = i.size match {
          case IntegralSize.BYTE => JBigDecimal.valueOf(x.byteValue.toLong)
          case IntegralSize.SHORT => JBigDecimal.valueOf(x.shortValue.toLong)
          case IntegralSize.INT => JBigDecimal.valueOf(x.intValue.toLong)
          case IntegralSize.LONG => JBigDecimal.valueOf(x.longValue)
        }
        if (x.compareTo(whole) == 0) integral(whole.longValue, i.size) else null
      case _ => null
    }
    case VariantUtil.Type.BOOLEAN if target.isInstanceOf[VariantSchema.BooleanType] =>
      java.lang.Boolean.valueOf(VariantUtil.getBoolean(value, pos))
    case VariantUtil.Type.STRING if target.isInstanceOf[VariantSchema.StringType] => utf8(value, pos)
    case VariantUtil.Type.DOUBLE if target.isInstanceOf[VariantSchema.DoubleType] =>
      java.lang.Double.valueOf(VariantUtil.getDouble(value, pos))
    case VariantUtil.Type.DATE if target.isInstanceOf[VariantSchema.DateType] =>
      Integer.valueOf(VariantUtil.getLong(value, pos).toInt)
    case VariantUtil.Type.TIMESTAMP if target.isInstanceOf[VariantSchema.TimestampType] =>
      java.lang.Long.valueOf(VariantUtil.getLong(value, pos))
    case VariantUtil.Type.TIMESTAMP_NTZ if target.isInstanceOf[VariantSchema.TimestampNTZType] =>
      java.lang.Long.valueOf(VariantUtil.getLong(value, pos))
    case VariantUtil.Type.FLOAT if target.isInstanceOf[VariantSchema.FloatType] =>
      java.lang.Float.valueOf(VariantUtil.getFloat(value, pos))
    case VariantUtil.Type.BINARY if target.isInstanceOf[VariantSchema.BinaryType] => VariantUtil.getBinary(value, pos)
    case _ => null
  }

  private def integral(x: Long, size: IntegralSize): AnyRef = size match {
    case IntegralSize.BYTE => if (x == x.toByte) java.lang.Byte.valueOf(x.toByte) else null
    case IntegralSize.SHORT => if (x == x.toShort) java.lang.Short.valueOf(x.toShort) else null
    case IntegralSize.INT => if (x == x.toInt) Integer.valueOf(x.toInt) else null
    case IntegralSize.LONG => java.lang.Long.valueOf(x)
  }

  /** A string value's UTF-8 bytes, in place (a short string or a long one, by its header). */
  private[writer] def utf8(value: Array[Byte], pos: Int): Binary = {
    val header = value(pos) & 0xff
    if ((header & VariantUtil.BASIC_TYPE_MASK) == VariantUtil.SHORT_STR) {
      Binary.fromReusedByteArray(value, pos + 1, header >> VariantUtil.BASIC_TYPE_BITS)
    } else {
      Binary.fromReusedByteArray(value, pos + 1 + VariantUtil.U32_SIZE,
        VariantUtil.readUnsigned(value, pos + 1, VariantUtil.U32_SIZE))
    }
  }
}
