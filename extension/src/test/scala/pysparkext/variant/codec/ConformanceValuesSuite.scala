package pysparkext.variant.codec

import java.math.{BigDecimal => JBigDecimal, BigInteger}
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{Path => HadoopPath}
import org.apache.parquet.example.data.Group
import org.apache.parquet.hadoop.ParquetReader
import org.apache.parquet.hadoop.example.GroupReadSupport
import org.apache.parquet.schema.LogicalTypeAnnotation._
import org.apache.parquet.schema.PrimitiveType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.types._
import org.apache.spark.types.variant.Variant
import org.apache.spark.unsafe.types.UTF8String

import pysparkext.testing.VariantValues.difference

/**
 * The Parquet project's shredded-variant conformance files (another implementation's writer, the
 * spec layout), decoded by the codecs alone: each row of the cases of one primitive `typed_value`,
 * or of an unshredded `value`, against the expected variant the case comes with. Reading whole
 * shredded objects and arrays is the reader's, tested on the same files in pytest
 * (`tests/variant_read/test_conformance.py`). The files are read in place; without them the suite
 * is cancelled.
 */
class ConformanceValuesSuite extends AnyFunSuite {
  private val dir: Path = Paths.get(sys.env.getOrElse("SHREDDED_VARIANT_CONFORMANCE_DIR",
    "/work/shared/conformance/parquet-testing-shredded_variant"))

  private val scalarTests = Set("testShreddedVariantPrimitives", "testUnshreddedVariants",
    "testUnshreddedVariantsWithShreddedSchema")

  /** The Spark type and value Spark's Parquet reader gives a `typed_value` leaf, or the raw one. */
  private def sparkValue(g: Group, p: PrimitiveType): (DataType, Any) = {
    def decimal(unscaled: BigInteger, d: DecimalLogicalTypeAnnotation) =
      DecimalType(d.getPrecision, d.getScale) ->
        Decimal(new JBigDecimal(unscaled, d.getScale), d.getPrecision, d.getScale)
    RawTypedValue.of(p) match {
      case Some(raw) if raw.sqlType == LongType => return raw -> g.getLong("typed_value", 0)
      case Some(raw) => return raw -> g.getBinary("typed_value", 0).getBytes
      case None =>
    }
    (p.getPrimitiveTypeName, p.getLogicalTypeAnnotation) match {
      case (BOOLEAN, _) => BooleanType -> g.getBoolean("typed_value", 0)
      case (INT32, d: DecimalLogicalTypeAnnotation) => decimal(BigInteger.valueOf(g.getInteger("typed_value", 0)), d)
      case (INT64, d: DecimalLogicalTypeAnnotation) => decimal(BigInteger.valueOf(g.getLong("typed_value", 0)), d)
      case (BINARY | FIXED_LEN_BYTE_ARRAY, d: DecimalLogicalTypeAnnotation) =>
        decimal(new BigInteger(g.getBinary("typed_value", 0).getBytes), d)
      case (INT32, i: IntLogicalTypeAnnotation) if i.getBitWidth == 8 =>
        ByteType -> g.getInteger("typed_value", 0).toByte
      case (INT32, i: IntLogicalTypeAnnotation) if i.getBitWidth == 16 =>
        ShortType -> g.getInteger("typed_value", 0).toShort
      case (INT32, _: DateLogicalTypeAnnotation) => DateType -> g.getInteger("typed_value", 0)
      case (INT32, _) => IntegerType -> g.getInteger("typed_value", 0)
      case (INT64, t: TimestampLogicalTypeAnnotation) if t.getUnit == TimeUnit.MICROS =>
        (if (t.isAdjustedToUTC) TimestampType else TimestampNTZType) -> g.getLong("typed_value", 0)
      case (INT64, _) => LongType -> g.getLong("typed_value", 0)
      case (FLOAT, _) => FloatType -> g.getFloat("typed_value", 0)
      case (DOUBLE, _) => DoubleType -> g.getDouble("typed_value", 0)
      case (BINARY, _: StringLogicalTypeAnnotation) =>
        StringType -> UTF8String.fromBytes(g.getBinary("typed_value", 0).getBytes)
      case (BINARY, null) => BinaryType -> g.getBinary("typed_value", 0).getBytes
      case other => fail(s"no Spark type for the typed_value $p ($other)")
    }
  }

  /** The variant of a file's only row, decoded by the codecs. */
  private def decoded(file: Path): Variant = {
    val reader = ParquetReader.builder(new GroupReadSupport,
      new HadoopPath(file.toUri)).withConf(new Configuration()).build()
    try {
      val row = reader.read()
      assert(reader.read() == null, s"$file holds one row")
      val v = row.getGroup("var", 0)
      val metadata = v.getBinary("metadata", 0).getBytes
      val hasTyped = v.getType.containsField("typed_value") && v.getFieldRepetitionCount("typed_value") > 0
      if (hasTyped && v.getType.getType("typed_value").isPrimitive) {
        val (t, value) = sparkValue(v, v.getType.getType("typed_value").asPrimitiveType)
        TypedValue.toVariant(t, value, keepScale = true)
      } else {
        assert(v.getFieldRepetitionCount("value") > 0, s"$file has a value")
        UntypedValue.decode(v.getBinary("value", 0).getBytes, metadata, "var", "$")
      }
    } finally reader.close()
  }

  test("every scalar case decodes to the expected variant") {
    assume(Files.isRegularFile(dir.resolve("cases.json")), s"conformance files not found in $dir")
    val cases = new ObjectMapper().readTree(dir.resolve("cases.json").toFile).elements().asScala.toSeq
      .filter(c => scalarTests(c.path("test").asText) && c.has("variant_file"))
    val failures = cases.flatMap { c =>
      val expectedBytes = Files.readAllBytes(dir.resolve(c.get("variant_file").asText))
      val expected = UntypedValue.decode(expectedBytes, null, "expected", "$")
      difference(expected, decoded(dir.resolve(c.get("parquet_file").asText))).map(d =>
        s"case ${c.get("case_number").asInt} (${c.get("test").asText}): $d")
    }
    assert(failures.isEmpty, failures.mkString("\n"))
    assert(cases.size >= 100, s"only ${cases.size} scalar cases found")
  }
}
