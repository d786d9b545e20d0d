package pysparkext.variant.write.codec

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.types.variant.{Variant, VariantBuilder}

import pysparkext.variant.codec.UntypedValue

/**
 * The draft layout's residuals built from a row's bytes must be byte for byte what Spark's
 * `VariantBuilder` builds for the row-by-row writer (`appendVariant`, then its metadata and
 * value), across rows with different metadata and rows that share one.
 */
class DraftResidualSuite extends AnyFunSuite {
  private def byBuilder(v: Variant): Array[Byte] = {
    val b = new VariantBuilder(false)
    b.appendVariant(v)
    UntypedValue.encode(b.result())
  }

  private val rows = Seq("null", "7", "\"s\"", "[]", "{}", "[1, [2, [3]], {\"k\": null}]",
    "{\"a\": 1, \"b\": {\"c\": \"x\", \"d\": [true, {\"e\": 2.5}]}}",
    (0 until 300).map(i => f""""key$i%03d": $i""").mkString("{", ", ", "}"),
    "{\"z\": {\"y\": {\"x\": {\"w\": 1}}}, \"a\": 0}")

  test("a residual of a whole value is VariantBuilder's, row after row") {
    val residual = new DraftResidual
    for ((json, generation) <- rows.zipWithIndex) {
      val v = VariantBuilder.parseJson(json, false)
      val fast = residual.of(v.getValue, v.getMetadata, generation + 1, 0)
      assert(fast != null, json)
      assert(fast.toSeq == byBuilder(v).toSeq, json)
    }
  }

  test("rows that share one metadata (one generation) give each its own dictionary") {
    val shared = VariantBuilder.parseJson("{\"a\": {\"b\": 1}, \"c\": [2, {\"d\": 3}]}", false)
    val residual = new DraftResidual
    for (_ <- 1 to 2) {
      val fast = residual.of(shared.getValue, shared.getMetadata, 1, 0)
      assert(fast.toSeq == byBuilder(shared).toSeq)
    }
    // An object inside the value: only its keys go in the residual's dictionary.
    val a = shared.getFieldByKey("a")
    val at = shared.getValue.indexOfSlice(a.getValue)
    assert(at > 0)
    assert(residual.of(shared.getValue, shared.getMetadata, 1, at).toSeq == byBuilder(a).toSeq)
  }

  test("a position outside the value is refused, for the caller to build the residual itself") {
    val v = VariantBuilder.parseJson("{\"a\": 1}", false)
    assert(new DraftResidual().of(v.getValue, v.getMetadata, 1, v.getValue.length) == null)
  }
}
