package pysparkext.variant.write.codec

import java.math.{BigDecimal => JBigDecimal}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.{ArrayList => JArrayList}

import org.apache.parquet.io.api.Binary
import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantSchema, VariantUtil}
import org.apache.spark.types.variant.VariantSchema.IntegralSize

import pysparkext.testing.SparkShredding
import pysparkext.testing.VariantValues.{built, difference, json}
import pysparkext.variant.codec.LittleEndian

/**
 * The scalars the spec-layout writer shreds, against Spark's own `castShredded` with its writer's
 * numeric rule: the same values go to `typed_value`, as the same numbers at the column's scale;
 * the rest (other kinds, numbers that would lose a digit, nulls, objects, arrays) to `value`; what
 * is typed rebuilds into the original value; and a value is read where it lies in the row's bytes.
 */
class SpecShredderSuite extends AnyFunSuite {
  import VariantSchema._

  private def typed(v: Variant, target: ScalarType): AnyRef =
    SpecShredder.typed(v.getValue, 0, v.getType, target)

  /** The edges of every integer width, one past each, and the decimal digits they fill. */
  private val integers: Seq[Long] = (Seq(0L, 1L, -1L, 9L, 10L, 99L, 100L, -100L, 12L, 123L,
    Long.MinValue, Long.MaxValue) ++
    Seq(Byte.MinValue, Byte.MaxValue, Short.MinValue, Short.MaxValue, Int.MinValue, Int.MaxValue)
      .map(_.toLong).flatMap(n => Seq(n - 1, n, n + 1))).distinct

  /** Decimals of every storage width, with and without trailing zeros, whole and not. */
  private val decimals: Seq[String] = Seq("0.5", "-0.5", "1.5", "1.50", "1.0", "0.000", "7.25", "123.45",
    "127", "127.0", "128", "-128.00", "-129", "32767.0", "32768", "2147483647.000", "2147483648",
    "999999999.999999999", "9223372036854775807.0", "9223372036854775808", "-9223372036854775808.00",
    "99999999.9900", "0.00000000000000000000000000000000000001", "12345678901234567890.123456789012345678",
    "99999999999999999999999999999999999999", "-1.000000000000000000000000000000")

  private val others: Seq[Variant] = Seq(json("null"), json("true"), json("false"), built(_.appendFloat(1.5f)),
    built(_.appendFloat(-0.0f)), built(_.appendFloat(Float.NaN)), built(_.appendDouble(7.0)),
    built(_.appendDouble(-0.0)), built(_.appendDouble(Double.NegativeInfinity)), json("\"\""), json("\"7\""),
    built(_.appendString("x" * 63)), built(_.appendString("x" * 64)), built(_.appendString("\u20ac" * 22)),
    built(_.appendString("\ud83d\ude00")), built(_.appendDate(0)), built(_.appendDate(-719162)),
    built(_.appendDate(Int.MaxValue)), built(_.appendTimestamp(Long.MinValue)), built(_.appendTimestamp(7L)),
    built(_.appendTimestampNtz(1700000000123456L)), built(_.appendBinary(Array.emptyByteArray)),
    built(_.appendBinary(Array[Byte](0, -1, 127, -128))), built(_.appendUuid(new java.util.UUID(7L, 7L))),
    json("{\"a\": 7}"), json("{}"), json("[7]"), json("[]"))

  private val values: Seq[Variant] = integers.map(n => built(_.appendLong(n))) ++
    decimals.map(d => built(_.appendDecimal(new JBigDecimal(d)))) ++ others

  // A UUID typed_value is not among them: the column writer refuses one (ShreddedLeafWriters.put),
  // so Spark's writer writes those files, and SpecShredder never meets that target.
  private val targets: Seq[ScalarType] = Seq(new IntegralType(IntegralSize.BYTE),
    new IntegralType(IntegralSize.SHORT), new IntegralType(IntegralSize.INT), new IntegralType(IntegralSize.LONG),
    new DecimalType(1, 0), new DecimalType(2, 1), new DecimalType(3, 2), new DecimalType(4, 1),
    new DecimalType(4, 2), new DecimalType(9, 0), new DecimalType(9, 2), new DecimalType(10, 0),
    new DecimalType(18, 4), new DecimalType(18, 9), new DecimalType(18, 18), new DecimalType(19, 0),
    new DecimalType(20, 2), new DecimalType(38, 0), new DecimalType(38, 10), new DecimalType(38, 37),
    new BooleanType, new StringType, new FloatType, new DoubleType, new DateType, new TimestampType,
    new TimestampNTZType, new BinaryType)

  private def name(t: ScalarType): String = t match {
    case i: IntegralType => s"${i.size}"
    case d: DecimalType => s"DECIMAL(${d.precision}, ${d.scale})"
    case other => other.getClass.getSimpleName
  }

  private def show(v: Variant): String = s"${v.getType} ${v.toJson(java.time.ZoneOffset.UTC)}"

  /**
   * A typed scalar as a comparable value: strings by their UTF-8 bytes (SpecShredder gives a
   * [[Binary]], Spark a `String`), binaries by their bytes, decimals with their scale, the rest by
   * their class and exact text (Scala's `==` would equate a Byte with a Long, `-0.0` with `0.0`).
   */
  private def plain(x: AnyRef): Any = x match {
    case null => null
    case b: Binary => ("string", b.getBytes.toSeq)
    case s: String => ("string", s.getBytes(UTF_8).toSeq)
    case a: Array[Byte] => ("binary", a.toSeq)
    case d: JBigDecimal => ("decimal", d.unscaledValue, d.scale)
    case other => (other.getClass, other.toString)
  }

  test("each value goes to typed_value exactly when Spark's castShredded puts it there, as the same scalar") {
    var typedCount = 0
    for (v <- values; t <- targets) {
      val spark = SparkShredding.shred(v, SparkShredding.scalar(t))
      val ours = typed(v, t)
      assert(plain(ours) == plain(spark.scalar), s"${show(v)} into ${name(t)}")
      // What stays untyped goes to value whole, as Spark's shredder leaves it.
      if (ours == null) assert(spark.value.toSeq == v.getValue.toSeq, s"${show(v)} into ${name(t)}")
      else typedCount += 1
    }
    // Every integer fits a LONG column and most numbers some decimal one: the comparison has substance.
    assert(typedCount > 2 * integers.size + decimals.size, s"only $typedCount typed")
  }

  test("an integer at every width's edges goes to an integer column that holds it, boxed in its width") {
    val widths: Seq[(IntegralSize, Long => Boolean, Class[_])] = Seq(
      (IntegralSize.BYTE, _.isValidByte, classOf[java.lang.Byte]),
      (IntegralSize.SHORT, _.isValidShort, classOf[java.lang.Short]),
      (IntegralSize.INT, _.isValidInt, classOf[java.lang.Integer]),
      (IntegralSize.LONG, _ => true, classOf[java.lang.Long]))
    for (n <- integers; (size, fits, boxed) <- widths) {
      val x = typed(built(_.appendLong(n)), new IntegralType(size))
      if (fits(n)) {
        assert(x != null && x.getClass == boxed, s"$n as $size: $x")
        assert(x.asInstanceOf[Number].longValue == n, s"$n as $size")
      } else assert(x == null, s"$n as $size: $x")
    }
  }

  test("an integer goes to a decimal column at the column's scale when its digits fit") {
    val cases = Seq((5L, new DecimalType(1, 0), Some("5")), (9L, new DecimalType(1, 0), Some("9")),
      (10L, new DecimalType(1, 0), None), (-10L, new DecimalType(2, 0), Some("-10")),
      (12L, new DecimalType(4, 2), Some("12.00")), (123L, new DecimalType(4, 2), None),
      (0L, new DecimalType(18, 18), Some("0.000000000000000000")), (1L, new DecimalType(18, 18), None),
      (Long.MaxValue, new DecimalType(19, 0), Some("9223372036854775807")),
      (Long.MaxValue, new DecimalType(18, 0), None),
      (Long.MinValue, new DecimalType(38, 10), Some("-9223372036854775808.0000000000")))
    for ((n, t, expected) <- cases) {
      val x = typed(built(_.appendLong(n)), t)
      assert(plain(x) == plain(expected.map(new JBigDecimal(_)).orNull), s"$n as ${name(t)}")
    }
  }

  test("a decimal of another scale moves to the column's scale, or to an integer column, only when no digit is lost") {
    val cases: Seq[(String, ScalarType, Option[AnyRef])] = Seq(
      ("1.5", new DecimalType(2, 1), Some(new JBigDecimal("1.5"))),
      ("1.5", new DecimalType(3, 2), Some(new JBigDecimal("1.50"))),
      ("1.50", new DecimalType(2, 1), Some(new JBigDecimal("1.5"))),
      ("1.5", new DecimalType(3, 0), None), ("123.45", new DecimalType(4, 2), None),
      ("99999999.9900", new DecimalType(10, 2), Some(new JBigDecimal("99999999.99"))),
      ("99999999.9900", new DecimalType(9, 1), None),
      ("0.000", new DecimalType(1, 0), Some(new JBigDecimal("0"))),
      ("0.00000000000000000000000000000000000001", new DecimalType(38, 37), None),
      ("99999999999999999999999999999999999999", new DecimalType(38, 0),
        Some(new JBigDecimal("99999999999999999999999999999999999999"))),
      ("127.0", new IntegralType(IntegralSize.BYTE), Some(java.lang.Byte.valueOf(127.toByte))),
      ("128", new IntegralType(IntegralSize.BYTE), None),
      ("-128.00", new IntegralType(IntegralSize.BYTE), Some(java.lang.Byte.valueOf((-128).toByte))),
      ("32768", new IntegralType(IntegralSize.SHORT), None),
      ("2147483647.000", new IntegralType(IntegralSize.INT), Some(Integer.valueOf(Int.MaxValue))),
      ("2147483648", new IntegralType(IntegralSize.INT), None),
      ("9223372036854775807.0", new IntegralType(IntegralSize.LONG), Some(java.lang.Long.valueOf(Long.MaxValue))),
      ("9223372036854775808", new IntegralType(IntegralSize.LONG), None),
      ("-0.5", new IntegralType(IntegralSize.LONG), None),
      ("-1.000000000000000000000000000000", new IntegralType(IntegralSize.SHORT),
        Some(java.lang.Short.valueOf((-1).toShort))))
    for ((d, t, expected) <- cases) {
      val x = typed(built(_.appendDecimal(new JBigDecimal(d))), t)
      assert(plain(x) == plain(expected.orNull), s"$d as ${name(t)}: $x")
    }
    // Every typed decimal is at its column's scale and within its digits, as the Parquet leaf needs.
    for (v <- values; t <- targets) (t, typed(v, t)) match {
      case (d: DecimalType, x: JBigDecimal) =>
        assert(x.scale == d.scale && x.precision <= d.precision, s"${show(v)} as ${name(t)}: $x")
      case _ =>
    }
  }

  /** One value of each kind, and the columns that take it (numbers move between each other). */
  private val kinds: Seq[(String, Variant, Set[String])] = Seq(
    ("null", json("null"), Set.empty), ("boolean", json("true"), Set("boolean")),
    ("integer", json("7"), Set("byte", "short", "int", "long", "decimal")),
    ("decimal", json("7.5"), Set("decimal")),
    ("whole decimal", json("7.0"), Set("byte", "short", "int", "long", "decimal")),
    ("float", built(_.appendFloat(7f)), Set("float")), ("double", built(_.appendDouble(7.0)), Set("double")),
    ("string", json("\"7\""), Set("string")), ("long string", built(_.appendString("7" * 64)), Set("string")),
    ("date", built(_.appendDate(7)), Set("date")), ("timestamp", built(_.appendTimestamp(7L)), Set("timestamp")),
    ("timestamp_ntz", built(_.appendTimestampNtz(7L)), Set("timestamp_ntz")),
    ("binary", built(_.appendBinary(Array[Byte](7))), Set("binary")),
    ("uuid", built(_.appendUuid(new java.util.UUID(7L, 7L))), Set.empty),
    ("object", json("{\"a\": 7}"), Set.empty), ("empty object", json("{}"), Set.empty),
    ("array", json("[7]"), Set.empty), ("empty array", json("[]"), Set.empty))

  private val columns: Seq[(String, ScalarType)] = Seq("byte" -> new IntegralType(IntegralSize.BYTE),
    "short" -> new IntegralType(IntegralSize.SHORT), "int" -> new IntegralType(IntegralSize.INT),
    "long" -> new IntegralType(IntegralSize.LONG), "decimal" -> new DecimalType(4, 1), "boolean" -> new BooleanType,
    "float" -> new FloatType, "double" -> new DoubleType, "string" -> new StringType, "date" -> new DateType,
    "timestamp" -> new TimestampType, "timestamp_ntz" -> new TimestampNTZType, "binary" -> new BinaryType)

  test("each kind of value goes only to a column of its kind; nulls, objects and arrays stay untyped") {
    for ((kind, v, accepted) <- kinds; (column, t) <- columns) {
      assert((typed(v, t) != null) == accepted(column), s"$kind into $column")
    }
  }

  /** The typed scalar `x` of column `t` as the variant the reader rebuilds from it. */
  private def rebuilt(t: ScalarType, x: AnyRef): Variant = built { b =>
    (t, x) match {
      case (_: IntegralType, n: Number) => b.appendLong(n.longValue)
      case (_: DecimalType, d: JBigDecimal) => b.appendDecimal(d)
      case (_: BooleanType, z: java.lang.Boolean) => b.appendBoolean(z)
      case (_: StringType, s: Binary) => b.appendString(s.toStringUsingUTF8)
      case (_: FloatType, f: java.lang.Float) => b.appendFloat(f)
      case (_: DoubleType, d: java.lang.Double) => b.appendDouble(d)
      case (_: DateType, d: Integer) => b.appendDate(d)
      case (_: TimestampType, n: java.lang.Long) => b.appendTimestamp(n)
      case (_: TimestampNTZType, n: java.lang.Long) => b.appendTimestampNtz(n)
      case (_: BinaryType, a: Array[Byte]) => b.appendBinary(a)
      case _ => fail(s"${x.getClass} is not a typed value of ${name(t)}")
    }
  }

  test("what goes to typed_value rebuilds into the original value") {
    for (v <- values; t <- targets; x <- Option(typed(v, t))) {
      val back = difference(v, rebuilt(t, x))
      assert(back.isEmpty, s"${show(v)} through ${name(t)}: $back")
    }
  }

  /**
   * `v` as the second element of an array after a long string, in a longer buffer: its position
   * in the array's bytes, which are followed by a byte that is not the value's.
   */
  private def inArray(v: Variant): (Array[Byte], Int) = {
    val b = new VariantBuilder(false)
    val offsets = new JArrayList[Integer]()
    offsets.add(0)
    b.appendString("pad" * 30)
    offsets.add(b.getWritePos)
    b.appendVariant(v)
    b.finishWritingArray(0, offsets)
    val array = b.result().getValue
    val pos = VariantUtil.handleArray(array, 0, (_, offsetSize, offsetStart, dataStart) =>
      Integer.valueOf(dataStart + LittleEndian.readUnsigned(array, offsetStart + offsetSize, offsetSize)))
    (array :+ 0x7f.toByte, pos.intValue)
  }

  test("a value is shredded where it lies in the row's bytes") {
    for (v <- values; t <- targets) {
      val (bytes, pos) = inArray(v)
      assert(pos > 90)
      val x = SpecShredder.typed(bytes, pos, VariantUtil.getType(bytes, pos), t)
      assert(plain(x) == plain(typed(v, t)), s"${show(v)} into ${name(t)} at $pos")
    }
  }

  test("a string's UTF-8 bytes are read in place, short strings and long, empty and multi-byte") {
    val strings = Seq("", "a", "x" * 63, "x" * 64, "\u20ac" * 21, "\u20ac" * 22, "\u0000", "\ud83d\ude00", "y" * 100000)
    for (s <- strings) {
      val (bytes, pos) = inArray(built(_.appendString(s)))
      assert(SpecShredder.utf8(bytes, pos).getBytes.toSeq == s.getBytes(UTF_8).toSeq, s.take(10))
    }
  }
}
