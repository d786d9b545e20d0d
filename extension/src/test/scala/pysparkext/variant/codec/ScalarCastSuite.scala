package pysparkext.variant.codec

import java.math.{BigDecimal => JBigDecimal}
import java.time.ZoneId

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.expressions.variant.{VariantCastArgs, VariantGet}
import org.apache.spark.sql.types._
import org.apache.spark.types.variant.Variant

import pysparkext.testing.VariantValues.{built, json}

/**
 * The scalar casts that skip Spark's per-value `Cast`, against Spark's own `VariantGet.cast` in
 * TRY mode: wherever they answer, they answer what it answers, to the scale of a decimal and the
 * sign of a zero; and they do answer the common cases, so the comparison is not vacuous.
 */
class ScalarCastSuite extends AnyFunSuite {
  private val tryArgs = VariantCastArgs(false, Some("UTC"), ZoneId.of("UTC"))
  private def spark(v: Variant, t: DataType): Any = VariantGet.cast(v, t, tryArgs)

  /**
   * Equal as Spark would store them: a decimal with its scale and the precision `Cast` gives it
   * (a row writer rescales by the column's type, but an expression above may read it first), a
   * double by its bits (NaN, -0.0).
   */
  private def same(a: Any, b: Any): Boolean = (a, b) match {
    case (x: Decimal, y: Decimal) => x.toJavaBigDecimal == y.toJavaBigDecimal && x.precision == y.precision
    case _ => java.util.Objects.equals(a, b)
  }

  /** A value as a failure prints it: a decimal with its precision and scale. */
  private def show(a: Any): String = a match {
    case d: Decimal => s"$d as decimal(${d.precision},${d.scale})"
    case other => String.valueOf(other)
  }

  /** The edges of every integer width, and of the decimal digits they fill (9, 10, 99, 100, ...). */
  private val integers: Seq[Long] = (Seq(0L, 1L, -1L, 7L, Long.MinValue, Long.MaxValue) ++
    SmallDecimal.PowersOfTen.toSeq.drop(1).flatMap(p => Seq(p - 1, p, -p)) ++
    Seq(Byte.MinValue, Byte.MaxValue, Short.MinValue, Short.MaxValue, Int.MinValue, Int.MaxValue)
      .map(_.toLong).flatMap(n => Seq(n - 1, n, n + 1))).distinct

  private val decimals: Seq[String] = Seq("0.5", "-0.5", "1.50", "7.25", "123.456", "999999999", "0.000000001",
    "99999999.99", "-12345678901.2345678", "999999999999999999", "0.000000000000000001",
    "12345678901234567890.12345678", "-99999999999999999999999999999999999999")

  private val values: Seq[Variant] = integers.map(n => built(_.appendLong(n))) ++
    decimals.map(d => built(_.appendDecimal(new JBigDecimal(d)))) ++
    Seq(json("true"), json("false"), json("null"), json("\"text\""), built(_.appendString("s" * 70)),
      built(_.appendDouble(1.5)), built(_.appendDouble(-0.0)), built(_.appendDouble(Double.NaN)),
      built(_.appendFloat(2.5f)), built(_.appendDate(3)), json("{\"a\": 1}"), json("[1]"))

  private val targets: Seq[DataType] = Seq(LongType, IntegerType, ShortType, ByteType, DoubleType, FloatType,
    BooleanType, StringType, DateType, DecimalType(1, 0), DecimalType(3, 1), DecimalType(9, 2), DecimalType(10, 0),
    DecimalType(18, 4), DecimalType(18, 18), DecimalType(19, 0), DecimalType(20, 2), DecimalType(38, 8),
    DecimalType(38, 0))

  test("exact answers what VariantGet.cast answers wherever it answers") {
    var answered = 0
    for (v <- values; t <- targets; x <- ScalarCast.exact(v, t)) {
      answered += 1
      val expected = spark(v, t)
      assert(same(x, expected), s"${v.toJson(ZoneId.of("UTC"))} as ${t.sql}: ${show(x)}, Spark: ${show(expected)}")
    }
    // Every integer as a long and a double, and most numbers as some decimal, are answered here.
    assert(answered > 2 * integers.size + decimals.size, s"only $answered casts answered")
  }

  test("exact answers every integer that fits an integer type, and each decimal that needs no rounding") {
    for (n <- integers; (t, fits) <- Seq(LongType -> true, IntegerType -> n.isValidInt, ShortType -> n.isValidShort,
        ByteType -> n.isValidByte)) {
      assert(ScalarCast.exact(built(_.appendLong(n)), t).isDefined == fits, s"$n as ${t.sql}")
    }
    val d = built(_.appendDecimal(new JBigDecimal("7.25")))
    assert(ScalarCast.exact(d, DecimalType(3, 2)).isDefined && ScalarCast.exact(d, DecimalType(10, 4)).isDefined)
    assert(ScalarCast.exact(d, DecimalType(2, 1)).isEmpty, "rounding is left to the cast")
    assert(ScalarCast.exact(d, DecimalType(3, 3)).isEmpty, "overflow is left to the cast")
  }

  test("fromValueBytes of a whole integer or small decimal is what decoding it and the cast give") {
    var answered = 0
    for (v <- values; t <- targets) {
      val direct = ScalarCast.fromValueBytes(v.getValue, t)
      if (direct != null) {
        answered += 1
        val expected = spark(v, t)
        assert(same(direct, expected),
          s"${v.toJson(ZoneId.of("UTC"))} as ${t.sql}: ${show(direct)}, Spark: ${show(expected)}")
        assert(ScalarCast.exact(v, t).exists(same(_, direct)), s"${v.toJson(ZoneId.of("UTC"))} as ${t.sql}")
      }
    }
    for (n <- integers) assert(ScalarCast.fromValueBytes(built(_.appendLong(n)).getValue, LongType) == n)
    assert(answered > integers.size, s"only $answered answered")
    // Truncated or padded integers are left to decoding, which rejects them.
    val seven = built(_.appendLong(7)).getValue
    assert(ScalarCast.fromValueBytes(seven.dropRight(1), LongType) == null)
    assert(ScalarCast.fromValueBytes(seven :+ 0.toByte, LongType) == null)
  }

  test("a string cast to a number or boolean is the TRY cast VariantGet.cast makes") {
    val strings = Seq("12", " 12 ", "-0", "1e3", "1.5", "abc", "", "true", "FALSE", "1", "99999999999999999999",
      "NaN", "-Infinity", "0.000000001", "127", "128", "-129", "3.14159265358979323846")
    val numeric = Seq(ByteType, ShortType, IntegerType, LongType, FloatType, DoubleType, BooleanType,
      DecimalType(5, 2), DecimalType(38, 10))
    for (t <- numeric; cast = ScalarCast.fromString(t, Some("UTC")).get; s <- strings) {
      val v = built(_.appendString(s))
      val expected = spark(v, t)
      assert(same(cast(v), expected), s"'$s' as ${t.sql}: ${cast(v)}, Spark: $expected")
    }
    for (t <- Seq(StringType, DateType, TimestampType, BinaryType)) {
      assert(ScalarCast.fromString(t, None).isEmpty, t.sql)
    }
  }
}
