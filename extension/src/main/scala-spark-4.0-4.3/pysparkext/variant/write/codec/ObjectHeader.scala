package pysparkext.variant.write.codec

import org.apache.spark.types.variant.VariantUtil
import org.apache.spark.types.variant.VariantUtil.writeLong

/**
 * A variant object's header (type byte, size, field ids, field offsets) as Spark's
 * `VariantBuilder.finishWritingObject` writes it for fields already in key order, with the
 * narrowest widths for the largest id and for the data's size. The columnar writers build the
 * residual objects Spark's builder would, without its per-field entries and copies.
 */
private[write] object ObjectHeader {
  /** The header's bytes for `n` fields, the largest id `maxId`, `dataSize` bytes of field values. */
  def size(n: Int, maxId: Int, dataSize: Int): Int =
    1 + sizeBytes(n) + n * integerSize(maxId) + (n + 1) * integerSize(dataSize)

  /** Writes the header at `start` of `out`; the fields' values follow it, at `offsets` from its end. */
  def write(out: Array[Byte], start: Int, ids: Array[Int], offsets: Array[Int], n: Int, maxId: Int,
            dataSize: Int): Unit = {
    val idSize = integerSize(maxId)
    val offsetSize = integerSize(dataSize)
    out(start) = VariantUtil.objectHeader(n > VariantUtil.U8_MAX, idSize, offsetSize)
    writeLong(out, start + 1, n, sizeBytes(n))
    val idStart = start + 1 + sizeBytes(n)
    val offsetStart = idStart + n * idSize
    var i = 0
    while (i < n) {
      writeLong(out, idStart + i * idSize, ids(i), idSize)
      writeLong(out, offsetStart + i * offsetSize, offsets(i), offsetSize)
      i += 1
    }
    writeLong(out, offsetStart + n * offsetSize, dataSize, offsetSize)
  }

  private def sizeBytes(n: Int): Int = if (n > VariantUtil.U8_MAX) VariantUtil.U32_SIZE else 1

  /** VariantBuilder's width of an unsigned integer. */
  def integerSize(v: Long): Int =
    if (v <= VariantUtil.U8_MAX) 1 else if (v <= VariantUtil.U16_MAX) 2 else if (v <= VariantUtil.U24_MAX) 3 else 4
}
