package pysparkext.variant.codec

/**
 * The variant encoding's unsigned little-endian integers (offsets, field ids, sizes). Spark has
 * the same reader, `VariantUtil.readUnsigned`, but keeps it package-private before 4.1, and the
 * writers read these integers on every row of every Spark line.
 */
object LittleEndian {
  /** The unsigned integer of `size` bytes (1 to 4) at `pos` of `bytes`. */
  def readUnsigned(bytes: Array[Byte], pos: Int, size: Int): Int = {
    var result = 0
    var i = 0
    while (i < size) {
      result |= (bytes(pos + i) & 0xff) << (8 * i)
      i += 1
    }
    result
  }
}
