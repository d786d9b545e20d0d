package pysparkext.variant.codec

import java.math.{BigDecimal => JBigDecimal}

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.types._
import org.apache.spark.types.variant.{Variant, VariantBuilder}
import org.apache.spark.unsafe.types.UTF8String

import pysparkext.testing.VariantValues.{built, difference, json}

/**
 * A `typed_value` column's values as variants and back, against what Spark's `VariantBuilder`
 * builds: every number width at its edges, decimals with and without their column's scale,
 * strings short and long, dates, timestamps and binary; and which variants may be shredded into
 * which column (exact moves only, no conversion between kinds).
 */
class TypedValueSuite extends AnyFunSuite {
  private def bytes(v: Variant): Seq[Byte] = v.getValue.toSeq

  private val integerTypes: Seq[(DataType, Long, Long)] = Seq(
    (ByteType, Byte.MinValue, Byte.MaxValue), (ShortType, Short.MinValue, Short.MaxValue),
    (IntegerType, Int.MinValue, Int.MaxValue), (LongType, Long.MinValue, Long.MaxValue))

  /** The edges of every integer width the variant encoding has, and one past each. */
  private val integers: Seq[Long] = (Seq(0L, 1L, -1L, Long.MinValue, Long.MaxValue) ++
    Seq(Byte.MinValue, Byte.MaxValue, Short.MinValue, Short.MaxValue, Int.MinValue, Int.MaxValue)
      .map(_.toLong).flatMap(n => Seq(n - 1, n, n + 1))).distinct

  private def physical(t: DataType, n: Long): Any = t match {
    case ByteType => n.toByte
    case ShortType => n.toShort
    case IntegerType => n.toInt
    case LongType => n
  }

  test("an integer of every width is the variant Spark builds, and shreds only into a column that holds it") {
    for (n <- integers) {
      val spark = built(_.appendLong(n))
      for ((t, min, max) <- integerTypes) {
        val fits = n >= min && n <= max
        assert(TypedValue.fromVariant(t, spark) == (if (fits) Some(physical(t, n)) else None), s"$n as ${t.sql}")
        if (fits) assert(bytes(TypedValue.toVariant(t, physical(t, n), keepScale = false)) == bytes(spark), s"$n")
      }
    }
  }

  test("an integer shreds into a decimal column that holds it exactly, and comes back as the same number") {
    val cases = Seq((5L, DecimalType(1, 0), true), (9L, DecimalType(1, 0), true), (10L, DecimalType(1, 0), false),
      (-10L, DecimalType(2, 0), true), (12L, DecimalType(4, 2), true), (123L, DecimalType(4, 2), false),
      (Long.MaxValue, DecimalType(19, 0), true), (Long.MaxValue, DecimalType(18, 0), false),
      (Long.MinValue, DecimalType(38, 10), true))
    for ((n, t, fits) <- cases) {
      val shredded = TypedValue.fromVariant(t, built(_.appendLong(n)))
      assert(shredded.isDefined == fits, s"$n as ${t.sql}")
      shredded.foreach { d =>
        assert(d.asInstanceOf[Decimal].toJavaBigDecimal.compareTo(JBigDecimal.valueOf(n)) == 0)
        assert(difference(built(_.appendLong(n)), TypedValue.toVariant(t, d, keepScale = false)).isEmpty)
      }
    }
  }

  test("a decimal keeps its column's scale in the spec layout and its shortest form in the draft's") {
    val cases = Seq(
      ("1.50", DecimalType(5, 2), "1.50", "1.5"), ("100", DecimalType(5, 0), "100", "100"),
      ("0.000", DecimalType(4, 3), "0.000", "0"), ("-123456789", DecimalType(9, 0), "-123456789", "-123456789"),
      ("99999999.9900", DecimalType(18, 4), "99999999.9900", "99999999.99"),
      ("12345678901234567890.123456789012345678", DecimalType(38, 18),
        "12345678901234567890.123456789012345678", "12345678901234567890.123456789012345678"))
    for ((value, t, kept, shortest) <- cases) {
      val d = Decimal(new JBigDecimal(value), t.precision, t.scale)
      assert(bytes(TypedValue.toVariant(t, d, keepScale = true)) ==
        bytes(built(_.appendDecimal(new JBigDecimal(kept)))),
        s"$value kept at scale ${t.scale}")
      assert(bytes(TypedValue.toVariant(t, d, keepScale = false)) ==
        bytes(built(_.appendDecimal(new JBigDecimal(shortest)))),
        s"$value in its shortest form")
    }
  }

  test("a decimal shreds only into a column of enough digits and scale to hold it exactly") {
    val cases = Seq(("1.5", DecimalType(2, 1), Some("1.5")), ("1.5", DecimalType(3, 2), Some("1.50")),
      ("1.5", DecimalType(3, 0), None), ("123.45", DecimalType(4, 2), None), ("1.50", DecimalType(2, 1), Some("1.5")),
      ("999999999.999999999", DecimalType(18, 9), Some("999999999.999999999")),
      ("99999999999999999999999999999999999999", DecimalType(38, 0), Some("99999999999999999999999999999999999999")),
      ("0.00000000000000000000000000000000000001", DecimalType(38, 37), None))
    for ((value, t, expected) <- cases) {
      val shredded = TypedValue.fromVariant(t, built(_.appendDecimal(new JBigDecimal(value))))
      assert(shredded.map(_.asInstanceOf[Decimal].toJavaBigDecimal) == expected.map(new JBigDecimal(_)),
        s"$value as ${t.sql}")
      shredded.foreach(d => assert(d.asInstanceOf[Decimal].precision == t.precision, s"$value as ${t.sql}"))
    }
  }

  test("strings short and long, empty and multi-byte, are the variants Spark builds") {
    // A short string holds at most 63 bytes; 21 three-byte characters are 63, 22 are 66.
    val strings = Seq("", "a", "x" * 63, "x" * 64, "\u20ac" * 21, "\u20ac" * 22, "\u0000", "\ud83d\ude00", "y" * 100000)
    for (s <- strings) {
      val spark = built(_.appendString(s))
      val utf8 = UTF8String.fromString(s)
      assert(bytes(TypedValue.toVariant(StringType, utf8, keepScale = false)) == bytes(spark), s.take(10))
      assert(TypedValue.fromVariant(StringType, spark) == Some(utf8), s.take(10))
    }
  }

  test("booleans, floats, doubles, dates, timestamps and binary are the variants Spark builds") {
    val cases: Seq[(DataType, Any, VariantBuilder => Unit)] = Seq(
      (BooleanType, true, _.appendBoolean(true)), (BooleanType, false, _.appendBoolean(false)),
      (FloatType, 1.5f, _.appendFloat(1.5f)), (FloatType, -0.0f, _.appendFloat(-0.0f)),
      (FloatType, Float.MaxValue, _.appendFloat(Float.MaxValue)),
      (DoubleType, Double.MinPositiveValue, _.appendDouble(Double.MinPositiveValue)),
      (DoubleType, -0.0, _.appendDouble(-0.0)),
      (DoubleType, Double.NegativeInfinity, _.appendDouble(Double.NegativeInfinity)),
      (DateType, 0, _.appendDate(0)), (DateType, -719162, _.appendDate(-719162)),
      (DateType, Int.MaxValue, _.appendDate(Int.MaxValue)),
      (TimestampType, 0L, _.appendTimestamp(0L)), (TimestampType, Long.MinValue, _.appendTimestamp(Long.MinValue)),
      (TimestampNTZType, 1700000000123456L, _.appendTimestampNtz(1700000000123456L)),
      (TimestampNTZType, Long.MaxValue, _.appendTimestampNtz(Long.MaxValue)),
      (BinaryType, Array.emptyByteArray, _.appendBinary(Array.emptyByteArray)),
      (BinaryType, Array[Byte](0, -1, 127, -128), _.appendBinary(Array[Byte](0, -1, 127, -128))))
    for ((t, value, append) <- cases) {
      val spark = built(append)
      assert(bytes(TypedValue.toVariant(t, value, keepScale = false)) == bytes(spark), s"$value as ${t.sql}")
      val back = TypedValue.fromVariant(t, spark)
      assert(back.isDefined, s"$value as ${t.sql}")
      back.foreach(b =>
        assert(bytes(TypedValue.toVariant(t, b, keepScale = false)) == bytes(spark), s"$value as ${t.sql}"))
    }
  }

  /** One value of each kind, as Spark builds it: what may shred into which column. */
  private val kinds: Seq[(String, Variant)] = Seq(
    "null" -> json("null"), "boolean" -> json("true"), "integer" -> json("7"), "decimal" -> json("7.5"),
    "float" -> built(_.appendFloat(7f)), "double" -> built(_.appendDouble(7.0)), "string" -> json("\"7\""),
    "long string" -> built(_.appendString("7" * 64)), "date" -> built(_.appendDate(7)),
    "timestamp" -> built(_.appendTimestamp(7L)), "timestamp_ntz" -> built(_.appendTimestampNtz(7L)),
    "binary" -> built(_.appendBinary(Array[Byte](7))), "uuid" -> built(_.appendUuid(new java.util.UUID(7L, 7L))),
    "object" -> json("{\"a\": 7}"), "empty object" -> json("{}"), "array" -> json("[7]"), "empty array" -> json("[]"))

  private val columns: Seq[(DataType, Set[String])] = Seq(
    BooleanType -> Set("boolean"), ByteType -> Set("integer"), ShortType -> Set("integer"),
    IntegerType -> Set("integer"), LongType -> Set("integer"), DecimalType(4, 1) -> Set("integer", "decimal"),
    FloatType -> Set("float"), DoubleType -> Set("double"), StringType -> Set("string", "long string"),
    DateType -> Set("date"), TimestampType -> Set("timestamp"), TimestampNTZType -> Set("timestamp_ntz"),
    BinaryType -> Set("binary"))

  test("each kind of value shreds only into a column of its own kind, and comes back as the same value") {
    for ((t, accepted) <- columns; (kind, v) <- kinds) {
      val shredded = TypedValue.fromVariant(t, v)
      assert(shredded.isDefined == accepted(kind), s"$kind into ${t.sql}")
      shredded.foreach { x =>
        for (keepScale <- Seq(true, false)) {
          val back = difference(v, TypedValue.toVariant(t, x, keepScale))
          assert(back.isEmpty, s"$kind through ${t.sql}: $back")
        }
      }
    }
  }

  test("only scalar types are typed_value types; appending another is an error") {
    for ((t, _) <- columns) assert(TypedValue.isSupported(t), t.sql)
    assert(TypedValue.isSupported(new UuidTypedValue) && TypedValue.isSupported(new TimeMicrosTypedValue))
    val others = Seq(NullType, VariantType, ArrayType(LongType), MapType(StringType, LongType),
      StructType(Seq(StructField("a", LongType))), CalendarIntervalType)
    for (t <- others) {
      assert(!TypedValue.isSupported(t), t.sql)
      intercept[IllegalArgumentException](TypedValue.toVariant(t, null, keepScale = false))
    }
  }
}
