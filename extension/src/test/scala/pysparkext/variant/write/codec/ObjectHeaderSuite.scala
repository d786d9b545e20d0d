package pysparkext.variant.write.codec

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.types.variant.VariantBuilder

/**
 * The residual objects the column writers build by hand must be byte for byte what Spark's
 * `VariantBuilder` writes, header included, at every width the header's parts can take.
 */
class ObjectHeaderSuite extends AnyFunSuite {
  /** `{"k0000": 1, "k0001": 1, ...}`: keys in Spark's order, ids 0 to n - 1, each value 2 bytes. */
  private def check(n: Int): Unit = {
    val built = VariantBuilder.parseJson((0 until n).map(i => f""""k$i%04d": 1""").mkString("{", ",", "}"), false)
    val dataSize = 2 * n
    val headerSize = ObjectHeader.size(n, n - 1, dataSize)
    assert(headerSize == built.getValue.length - dataSize, s"$n fields")
    val out = new Array[Byte](headerSize)
    ObjectHeader.write(out, 0, (0 until n).toArray, (0 until n).map(2 * _).toArray, n, n - 1, dataSize)
    assert(out.toSeq == built.getValue.take(headerSize).toSeq, s"$n fields")
  }

  test("one-byte sizes, ids and offsets") { check(3) }
  test("two-byte offsets (over 255 bytes of values)") { check(200) }
  test("a four-byte field count and two-byte ids (over 255 fields)") { check(300) }
  test("no fields") {
    val built = VariantBuilder.parseJson("{}", false)
    val out = new Array[Byte](ObjectHeader.size(0, 0, 0))
    ObjectHeader.write(out, 0, Array.empty, Array.empty, 0, 0, 0)
    assert(out.toSeq == built.getValue.toSeq)
  }

  test("the narrowest width of each unsigned integer, as VariantBuilder picks it") {
    assert(Seq(0L, 255L, 256L, 65535L, 65536L, 16777215L, 16777216L).map(ObjectHeader.integerSize) ==
      Seq(1, 1, 2, 2, 3, 3, 4))
  }
}
