package pysparkext.variant.codec

import java.nio.{ByteBuffer, ByteOrder}

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}

import pysparkext.testing.VariantValues.{built, json}

/**
 * The spec's primitives Spark has no type for (TIME, the nanosecond timestamps), written through
 * Spark's `VariantBuilder` as a header and 8 little-endian bytes, and carried through a residual
 * byte for byte.
 */
class RawPrimitiveSuite extends AnyFunSuite {
  private val ids = Seq(RawPrimitive.Time, RawPrimitive.TimestampNanos, RawPrimitive.TimestampNtzNanos)
  private val payloads = Seq(0L, 1L, -1L, 86399999999L, Long.MinValue, Long.MaxValue, 0x0102030405060708L)

  private def encoded(typeId: Int, payload: Long): Seq[Byte] =
    (typeId << 2).toByte +: ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(payload).array().toSeq

  test("append writes the spec's header and the payload as 8 little-endian bytes") {
    for (id <- ids; p <- payloads) {
      val v = built(RawPrimitive.append(_, id, p))
      assert(v.getValue.toSeq == encoded(id, p), s"type $id, payload $p")
      assert(RawPrimitive.typeId(v.getValue) == id && RawPrimitive.isWellFormed(v.getValue))
      assert(!RawPrimitive.knownToSpark(v))
    }
    assert(RawPrimitive.name(RawPrimitive.Time) == "time")
  }

  test("Spark's own values, and these primitives truncated or padded, are not well formed ones") {
    for (v <- Seq(built(_.appendTimestamp(1)), built(_.appendTimestampNtz(1)), built(_.appendLong(1)),
        built(_.appendUuid(new java.util.UUID(1, 2))), json("\"17\""), json("{}"), json("[]"))) {
      assert(RawPrimitive.typeId(v.getValue) == -1 && !RawPrimitive.isWellFormed(v.getValue))
      assert(RawPrimitive.knownToSpark(v))
    }
    val time = encoded(RawPrimitive.Time, 5).toArray
    assert(!RawPrimitive.isWellFormed(time.dropRight(1)) && !RawPrimitive.isWellFormed(time :+ 0.toByte))
    assert(RawPrimitive.typeId(time.take(1)) == RawPrimitive.Time, "the type is read from the header alone")
    // The neighbours of the range are Spark's: 16 is a long string, 20 a UUID.
    assert(RawPrimitive.typeId(Array(VariantUtil.primitiveHeader(16))) == -1)
    assert(RawPrimitive.typeId(Array(VariantUtil.primitiveHeader(20))) == -1)
  }

  test("a residual holding one is copied byte for byte, inside an object too; others as Spark appends them") {
    val raw = new Variant(encoded(RawPrimitive.TimestampNanos, -42L).toArray, Array[Byte](1, 0, 0))
    assert(built(RawPrimitive.appendResidual(_, raw)).getValue.toSeq == raw.getValue.toSeq)
    intercept[Exception](built(_.appendVariant(raw)))  // what appendResidual is for

    val b = new VariantBuilder(false)
    val start = b.getWritePos
    val fields = new java.util.ArrayList[VariantBuilder.FieldEntry]()
    for ((key, v) <- Seq("t" -> raw, "n" -> json("{\"x\": [1, \"two\"]}"))) {
      fields.add(new VariantBuilder.FieldEntry(key, b.addKey(key), b.getWritePos - start))
      RawPrimitive.appendResidual(b, v)
    }
    b.finishWritingObject(start, fields)
    val obj = b.result()
    // Spark cannot size the field to slice it out (it has no such type), so look for its bytes.
    assert(obj.getValue.toSeq.containsSlice(raw.getValue.toSeq))
    assert(intercept[Exception](obj.getFieldByKey("t").getValue).getMessage.contains("UNKNOWN_PRIMITIVE_TYPE"))
    assert(obj.getFieldByKey("n").toJson(java.time.ZoneId.of("UTC")) == "{\"x\":[1,\"two\"]}")
  }
}
