package pysparkext.variant.codec

import org.apache.spark.sql.pysparkext.SparkInternals

/**
 * The variant encoding's unsigned little-endian integers (offsets, field ids, sizes). Spark has
 * the same reader, `VariantUtil.readUnsigned`, but keeps it package-private before 4.1, and the
 * writers read these integers on every row of every Spark line.
 */
object LittleEndian {
  /**
   * The unsigned integer of `size` bytes (1 to 4) at `pos` of `bytes`. Four bytes with the high
   * bit set hold no valid offset or size (an Int cannot), so they fail as Spark's reader fails on
   * them, with `MALFORMED_VARIANT`, rather than turning into a negative position.
   */
  def readUnsigned(bytes: Array[Byte], pos: Int, size: Int): Int = {
    var result = 0
    var i = 0
    while (i < size) {
      result |= (bytes(pos + i) & 0xff) << (8 * i)
      i += 1
    }
    if (result < 0) throw SparkInternals.malformedVariant()
    result
  }
}
