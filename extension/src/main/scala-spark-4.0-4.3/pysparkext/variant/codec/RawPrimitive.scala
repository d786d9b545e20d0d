package pysparkext.variant.codec

import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.types.variant.{Variant, VariantBuilder}

/**
 * Variant primitives of the spec that Spark 4.3's variant code has no type for: TIME (17) and
 * the nanosecond timestamps (18 with time zone, 19 without). Each is a header byte and an 8-byte
 * little-endian integer. Spark rejects them when it validates, copies or casts a value; a
 * shredded file may still hold them, as a `typed_value` column or inside a residual.
 *
 * They are carried through reconstruction byte for byte: the builder writes an 8-byte timestamp
 * (the same size and encoding), whose header byte is then set to the real type. Anything that
 * later interprets the value (a cast, `to_json`) is Spark's and fails as it would on the
 * unshredded variant.
 */
object RawPrimitive {
  val Time = 17
  val TimestampNanos = 18
  val TimestampNtzNanos = 19

  private val Names = Map(Time -> "time", TimestampNanos -> "timestamp with nanoseconds",
    TimestampNtzNanos -> "timestamp without time zone, with nanoseconds")

  def append(b: VariantBuilder, typeId: Int, payload: Long): Unit = {
    val at = b.getWritePos
    b.appendTimestamp(payload)
    SparkInternals.variantWriteBuffer(b)(at) = (typeId << 2).toByte
  }

  /**
   * The type id of `value` when it is one of these primitives, else -1. Called for every value a
   * path read decodes, so it compares ints (a lookup in `Names` would box the id each time).
   */
  def typeId(value: Array[Byte]): Int = {
    val id = VariantHeader.primitiveTypeId(value)
    if (id >= Time && id <= TimestampNtzNanos) id else -1
  }

  /** A whole value that is one of these primitives, with its 8 payload bytes. */
  def isWellFormed(value: Array[Byte]): Boolean = typeId(value) >= 0 && value.length == 9

  def name(typeId: Int): String = Names(typeId)

  /** Appends a residual, copying one of these primitives where Spark's builder would reject it. */
  def appendResidual(b: VariantBuilder, v: Variant): Unit = {
    val value = v.getValue
    if (isWellFormed(value)) {
      append(b, typeId(value), java.nio.ByteBuffer.wrap(value, 1, 8)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong)
    } else b.appendVariant(v)
  }

  /** Whether Spark's variant code can interpret the value's own type. */
  def knownToSpark(v: Variant): Boolean = typeId(v.getValue) < 0
}
