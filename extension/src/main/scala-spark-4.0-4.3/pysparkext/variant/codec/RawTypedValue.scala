package pysparkext.variant.codec

import java.nio.{ByteBuffer, ByteOrder}

import org.apache.parquet.schema.{LogicalTypeAnnotation, PrimitiveType}
import org.apache.parquet.schema.LogicalTypeAnnotation.{TimeLogicalTypeAnnotation, TimestampLogicalTypeAnnotation, TimeUnit, UUIDLogicalTypeAnnotation}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import org.apache.spark.sql.types.{BinaryType, DataType, LongType, UserDefinedType}
import org.apache.spark.types.variant.VariantBuilder

/**
 * A `typed_value` leaf whose Parquet type the variant spec allows but Spark 4.3 cannot read as a
 * column: TIME(MICROS), TIMESTAMP(NANOS) with or without time zone, and UUID. Spark's schema
 * conversion rejects the last three and turns TIME into a type its variant code refuses, so the
 * leaf is read under this type as its raw physical value (a long of micro- or nanoseconds, the
 * UUID's 16 bytes). Spark's vectorised reader does not take a user-defined type, so a scan with
 * such a leaf uses the row-based reader, which passes the physical value through unchanged.
 *
 * Reconstruction appends the value as the variant primitive it stands for. `variant_get` on it
 * then goes through Spark's own variant cast, exactly as on the unshredded value.
 */
sealed abstract class RawTypedValue(physical: DataType) extends UserDefinedType[AnyRef] {
  override def sqlType: DataType = physical
  override def serialize(obj: AnyRef): Any = obj
  override def deserialize(datum: Any): AnyRef = datum.asInstanceOf[AnyRef]
  override def userClass: Class[AnyRef] = classOf[AnyRef]

  /** Appends a non-null value (of `sqlType`'s physical representation) as its variant. */
  def append(b: VariantBuilder, v: Any): Unit
}

/** A leaf read as a long and written as the 8-byte variant primitive `typeId` ([[RawPrimitive]]). */
sealed abstract class RawLongTypedValue(typeId: Int) extends RawTypedValue(LongType) {
  override def append(b: VariantBuilder, v: Any): Unit =
    RawPrimitive.append(b, typeId, v.asInstanceOf[Long])
}

// One class per type: a user-defined type is named by its class in a serialised schema.
class TimeMicrosTypedValue extends RawLongTypedValue(RawPrimitive.Time)
class TimestampNanosTypedValue extends RawLongTypedValue(RawPrimitive.TimestampNanos)
class TimestampNtzNanosTypedValue extends RawLongTypedValue(RawPrimitive.TimestampNtzNanos)

class UuidTypedValue extends RawTypedValue(BinaryType) {
  override def append(b: VariantBuilder, v: Any): Unit = {
    val bytes = v.asInstanceOf[Array[Byte]]
    if (bytes.length != 16) {
      throw new IllegalStateException(s"a UUID typed_value holds ${bytes.length} bytes, not 16")
    }
    val big = ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN)
    b.appendUuid(new java.util.UUID(big.getLong(0), big.getLong(8)))
  }
}

object RawTypedValue {
  /**
   * The raw type a `typed_value` leaf is read as, if Spark cannot read its Parquet type. A TIME
   * or nanosecond timestamp of another unit than the spec's, or a UUID that is not 16 bytes, is
   * not matched here and stays an error of the file's schema.
   */
  def of(p: PrimitiveType): Option[RawTypedValue] =
    (p.getPrimitiveTypeName, p.getLogicalTypeAnnotation: LogicalTypeAnnotation) match {
      case (PrimitiveTypeName.INT64, t: TimeLogicalTypeAnnotation)
          if t.getUnit == TimeUnit.MICROS && !t.isAdjustedToUTC => Some(new TimeMicrosTypedValue)
      case (PrimitiveTypeName.INT64, t: TimestampLogicalTypeAnnotation) if t.getUnit == TimeUnit.NANOS =>
        Some(if (t.isAdjustedToUTC) new TimestampNanosTypedValue else new TimestampNtzNanosTypedValue)
      case (PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, _: UUIDLogicalTypeAnnotation)
          if p.getTypeLength == 16 => Some(new UuidTypedValue)
      case _ => None
    }
}
