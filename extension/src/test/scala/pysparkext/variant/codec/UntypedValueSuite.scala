package pysparkext.variant.codec

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.types.variant.{Variant, VariantBuilder}

import pysparkext.variant.ShreddedVariantException

/**
 * The residual binary of both layouts, against Spark's own `VariantBuilder`: what it builds
 * decodes to the same value, and a damaged binary is an error that names the column and path.
 */
class UntypedValueSuite extends AnyFunSuite {
  private def built(json: String): Variant = VariantBuilder.parseJson(json, false)

  private def same(a: Variant, b: Variant): Unit = {
    assert(a.getValue.toSeq == b.getValue.toSeq)
    assert(a.getMetadata.toSeq == b.getMetadata.toSeq)
  }

  private val values = Seq("null", "true", "0", "-1", "9223372036854775807", "1.5", "1e300", "\"\"",
    "\"a string longer than sixty-three bytes, stored as a long string rather than a short one\"",
    "[]", "{}", "[1, \"two\", [3], {\"four\": 4}]", "{\"b\": 1, \"a\": {\"c\": [null, false]}}",
    // A dictionary of over 255 bytes of keys, so its offsets take two bytes each.
    (0 until 40).map(i => s""""key_number_$i": $i""").mkString("{", ", ", "}"))

  test("the draft layout's residual (metadata then value) round-trips every kind of value") {
    for (json <- values) {
      val v = built(json)
      same(UntypedValue.decode(UntypedValue.encode(v), null, "v", "$"), v)
    }
  }

  test("the spec layout's residual (the value, with the column's metadata) decodes as built") {
    for (json <- values) {
      val v = built(json)
      same(UntypedValue.decode(v.getValue, v.getMetadata, "v", "$"), v)
    }
  }

  private def refused(bytes: Array[Byte], dictionary: Array[Byte] = null): String =
    intercept[ShreddedVariantException](UntypedValue.decode(bytes, dictionary, "col", "$.a.b")).getMessage

  test("a damaged draft residual is an error naming the column, the path and what is wrong") {
    val whole = UntypedValue.encode(built("{\"a\": 1}"))
    val cases = Seq(
      Array[Byte](1, 0) -> "too short",
      (2.toByte +: whole.tail) -> "unsupported metadata version 2",
      whole.take(3) -> "dictionary runs past the end",
      whole.take(whole.length - built("{\"a\": 1}").getValue.length) -> "no value after the metadata",
      whole.dropRight(1) -> "malformed metadata or value")
    for ((bytes, why) <- cases) {
      val message = refused(bytes)
      assert(message.contains("column `col`, at path $.a.b"), message)
      assert(message.contains(s"untyped_value is not a valid variant binary ($why"), message)
    }
  }

  test("a damaged spec residual is an error naming the column, the path and both sizes") {
    val v = built("{\"a\": [1, 2]}")
    val message = refused(v.getValue.dropRight(1), v.getMetadata)
    assert(message.contains("column `col`, at path $.a.b"), message)
    assert(message.contains(s"(${v.getValue.length - 1} value bytes, ${v.getMetadata.length} metadata bytes)"),
      message)
  }

  test("a spec scalar is checked without the column's dictionary") {
    val v = built("42")
    same(UntypedValue.decode(v.getValue, Array[Byte](1, 0, 0), "v", "$"), new Variant(v.getValue, Array[Byte](1, 0, 0)))
    assert(refused(Array[Byte](v.getValue.head), Array[Byte](1, 0, 0)).contains("not a valid variant binary"))
  }
}
