package pysparkext.variant.codec

import java.nio.ByteBuffer
import java.util.UUID

import scala.util.Try

import org.apache.parquet.schema.{LogicalTypeAnnotation, PrimitiveType, Types}
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.types.{BinaryType, LongType}

import pysparkext.testing.VariantValues.built

/**
 * Which Parquet `typed_value` leaves are read under a raw type (exactly the spec's TIME(MICROS),
 * TIMESTAMP(NANOS) and 16-byte UUID), and that each appends the variant primitive it stands for.
 */
class RawTypedValueSuite extends AnyFunSuite {
  private def leaf(t: PrimitiveTypeName, annotation: LogicalTypeAnnotation, length: Int = 0): PrimitiveType =
    Types.optional(t).length(length).as(annotation).named("typed_value")

  test("TIME(MICROS), TIMESTAMP(NANOS) and a 16-byte UUID are read raw, as the Spark type of their physical value") {
    val int64 = PrimitiveTypeName.INT64
    val cases = Seq(
      leaf(int64, LogicalTypeAnnotation.timeType(false, TimeUnit.MICROS)) -> classOf[TimeMicrosTypedValue],
      leaf(int64, LogicalTypeAnnotation.timestampType(true, TimeUnit.NANOS)) -> classOf[TimestampNanosTypedValue],
      leaf(int64, LogicalTypeAnnotation.timestampType(false, TimeUnit.NANOS)) -> classOf[TimestampNtzNanosTypedValue],
      leaf(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, LogicalTypeAnnotation.uuidType(), 16) -> classOf[UuidTypedValue])
    for ((p, raw) <- cases) {
      val t = RawTypedValue.of(p)
      assert(t.map(_.getClass).contains(raw), p.toString)
      assert(t.get.sqlType == (if (raw == classOf[UuidTypedValue]) BinaryType else LongType), p.toString)
    }
  }

  test("other units, and types Spark reads itself, are not read raw") {
    val int64 = PrimitiveTypeName.INT64
    val others = Seq(
      leaf(int64, LogicalTypeAnnotation.timeType(true, TimeUnit.MICROS)),
      leaf(int64, LogicalTypeAnnotation.timeType(false, TimeUnit.NANOS)),
      leaf(PrimitiveTypeName.INT32, LogicalTypeAnnotation.timeType(false, TimeUnit.MILLIS)),
      leaf(int64, LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS)),
      leaf(int64, LogicalTypeAnnotation.timestampType(false, TimeUnit.MILLIS)),
      leaf(int64, null), leaf(PrimitiveTypeName.BINARY, LogicalTypeAnnotation.stringType()),
      leaf(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, null, 16))
    for (p <- others) assert(RawTypedValue.of(p).isEmpty, p.toString)
    // Parquet itself refuses a UUID of another length; should a file hold one, it is not read raw.
    Try(leaf(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, LogicalTypeAnnotation.uuidType(), 15))
      .foreach(p => assert(RawTypedValue.of(p).isEmpty, p.toString))
  }

  test("each appends the variant primitive it stands for") {
    for ((raw, id) <- Seq(new TimeMicrosTypedValue -> RawPrimitive.Time,
        new TimestampNanosTypedValue -> RawPrimitive.TimestampNanos,
        new TimestampNtzNanosTypedValue -> RawPrimitive.TimestampNtzNanos); n <- Seq(0L, -1L, Long.MaxValue)) {
      assert(TypedValue.toVariant(raw, n, keepScale = true).getValue.toSeq ==
        built(RawPrimitive.append(_, id, n)).getValue.toSeq, s"$raw $n")
    }
    for (u <- Seq(new UUID(0, 0), new UUID(-1, -1), UUID.fromString("00112233-4455-6677-8899-aabbccddeeff"))) {
      val bigEndian =
        ByteBuffer.allocate(16).putLong(u.getMostSignificantBits).putLong(u.getLeastSignificantBits).array()
      val v = TypedValue.toVariant(new UuidTypedValue, bigEndian, keepScale = true)
      assert(v.getValue.toSeq == built(_.appendUuid(u)).getValue.toSeq && v.getUuid == u, u.toString)
    }
    val message = intercept[IllegalStateException](
      TypedValue.toVariant(new UuidTypedValue, new Array[Byte](15), keepScale = true)).getMessage
    assert(message.contains("holds 15 bytes, not 16"))
  }
}
