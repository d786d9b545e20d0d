package pysparkext.variant.codec

import java.nio.{ByteBuffer, ByteOrder}

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.SparkThrowable

import pysparkext.testing.VariantValues.json

/**
 * Unsigned little-endian integers of 1 to 4 bytes, against `ByteBuffer` and against the sizes and
 * offsets of dictionaries Spark's `VariantBuilder` writes with 1-, 2- and 3-byte offsets.
 */
class LittleEndianSuite extends AnyFunSuite {
  private def bytes(n: Long): Array[Byte] = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(n).array()

  test("every width reads its edges and random values as unsigned, at any position") {
    val random = new Random(47)
    for (size <- 1 to 4) {
      val max = if (size == 4) Int.MaxValue.toLong else (1L << (8 * size)) - 1
      val randoms = Seq.fill(100)((random.nextLong() & Long.MaxValue) % (max + 1))
      for (n <- Seq(0L, 1L, 0x80L min max, max - 1, max) ++ randoms) {
        val padded = Array[Byte](-1, -1) ++ bytes(n).take(size) ++ Array[Byte](-1)
        assert(LittleEndian.readUnsigned(padded, 2, size) == n, s"$n in $size bytes")
      }
    }
  }

  test("a high byte of 0xff is read unsigned, not sign-extended") {
    assert(LittleEndian.readUnsigned(Array[Byte](-1), 0, 1) == 255)
    assert(LittleEndian.readUnsigned(Array[Byte](0, -128), 0, 2) == 32768)
    assert(LittleEndian.readUnsigned(Array[Byte](-1, -1, -1), 0, 3) == 0xffffff)
  }

  test("four bytes with the high bit set are a malformed variant, as Spark's reader says") {
    // Spark's SparkRuntimeException is private to Spark's package: the test names its interface.
    val error = intercept[RuntimeException](LittleEndian.readUnsigned(Array[Byte](0, 0, 0, -128), 0, 4))
    assert(Some(error).collect { case e: SparkThrowable => e.getCondition }.contains("MALFORMED_VARIANT"),
      error.getMessage)
    assert(LittleEndian.readUnsigned(Array[Byte](-1, -1, -1, 127), 0, 4) == Int.MaxValue)
  }

  test("dictionary sizes and offsets of Spark-built metadata read back, for every offset width") {
    // Keys of 200 bytes: 1, 2 and 400 keys need offsets of 1, 2 and 3 bytes.
    for ((keys, offsetSize) <- Seq(1 -> 1, 2 -> 2, 400 -> 3)) {
      val names = (0 until keys).map(i => f"k$i%05d" + "x" * 194)
      val metadata = json(names.map(k => s""""$k": 1""").mkString("{", ",", "}")).getMetadata
      assert(((metadata(0) >> 6) & 0x3) + 1 == offsetSize, s"$keys keys")
      assert(LittleEndian.readUnsigned(metadata, 1, offsetSize) == keys)
      val offsetsAt = 1 + offsetSize
      val stringsAt = offsetsAt + (keys + 1) * offsetSize
      val read = (0 until keys).map { i =>
        val from = LittleEndian.readUnsigned(metadata, offsetsAt + i * offsetSize, offsetSize)
        val to = LittleEndian.readUnsigned(metadata, offsetsAt + (i + 1) * offsetSize, offsetSize)
        new String(metadata, stringsAt + from, to - from, "UTF-8")
      }
      assert(read.toSet == names.toSet, s"$keys keys")
    }
  }
}
