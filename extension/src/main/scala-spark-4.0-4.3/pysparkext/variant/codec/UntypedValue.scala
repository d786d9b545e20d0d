package pysparkext.variant.codec

import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.types.variant.{Variant, VariantUtil}

import pysparkext.variant.ShreddedVariantException

/**
 * A level's residual binary. In the draft layout (`untyped_value`) it holds a variant's metadata
 * immediately followed by its value; the metadata's own header says where it ends (header,
 * dictionary size, offsets, then as many string bytes as the last offset says). In the spec
 * layout (`value`) it holds the value only, and the metadata is the column's shared dictionary.
 */
object UntypedValue {
  /**
   * The residual as a variant, validated: a truncated or corrupt binary is a
   * [[ShreddedVariantException]]. `dictionary` is the spec layout's metadata, null for the draft.
   */
  def decode(bytes: Array[Byte], dictionary: Array[Byte], column: String, path: String): Variant =
    if (dictionary == null) split(bytes, column, path) else {
      // A scalar refers to no dictionary entry, so it is checked on its own: checking the
      // column's whole dictionary for every row would cost more than the read.
      val valid =
        if (VariantHeader.isScalar(bytes)) SmallDecimal.isWellFormed(bytes) || isValid(bytes, EmptyMetadata)
        else isValid(bytes, dictionary)
      if (!valid) {
        throw ShreddedVariantException.inRow(column, path, unknownType(bytes).getOrElse(
          "value is not a valid variant binary with the column's metadata " +
            s"(${bytes.length} value bytes, ${dictionary.length} metadata bytes)"))
      }
      new Variant(bytes, dictionary)
    }

  /**
   * Spark's validation, which also accepts a value that is one of the primitives Spark has no
   * type for ([[RawPrimitive]]), as long as it is whole: reconstruction copies it unchanged.
   */
  private def isValid(value: Array[Byte], metadata: Array[Byte]): Boolean =
    RawPrimitive.isWellFormed(value) ||
      (try SparkInternals.isValidVariant(value, metadata) catch { case _: Exception => false })

  /** Why a value is unreadable when it holds a primitive of a type Spark lacks, malformed. */
  private def unknownType(value: Array[Byte]): Option[String] = {
    val id = RawPrimitive.typeId(value)
    if (id < 0) None
    else Some(s"value holds a variant ${RawPrimitive.name(id)} of ${value.length - 1} bytes, not 8")
  }

  /** Version 1, no dictionary entries. */
  private val EmptyMetadata: Array[Byte] = Array[Byte](1, 0, 0)


  private def split(bytes: Array[Byte], column: String, path: String): Variant = {
    def corrupt(why: String) = ShreddedVariantException.inRow(column, path,
      s"untyped_value is not a valid variant binary ($why, ${bytes.length} bytes)")
    if (bytes.length < 3) throw corrupt("too short")
    val header = bytes(0) & 0xff
    if ((header & 0x0f) != 1) throw corrupt(s"unsupported metadata version ${header & 0x0f}")
    val offsetSize = ((header >> 6) & 0x03) + 1
    def unsigned(pos: Int): Long = {
      if (pos + offsetSize > bytes.length) throw corrupt("metadata runs past the end")
      var v = 0L
      var i = 0
      while (i < offsetSize) { v |= (bytes(pos + i) & 0xffL) << (8 * i); i += 1 }
      v
    }
    val dictSize = unsigned(1)
    val offsetsStart = 1L + offsetSize
    val lastOffsetPos = offsetsStart + dictSize * offsetSize
    if (lastOffsetPos + offsetSize > bytes.length) throw corrupt("dictionary runs past the end")
    val stringsStart = lastOffsetPos + offsetSize
    val metadataLength = stringsStart + unsigned(lastOffsetPos.toInt)
    if (metadataLength >= bytes.length) throw corrupt("no value after the metadata")
    val metadata = java.util.Arrays.copyOfRange(bytes, 0, metadataLength.toInt)
    val value = java.util.Arrays.copyOfRange(bytes, metadataLength.toInt, bytes.length)
    if (!isValid(value, metadata)) throw corrupt("malformed metadata or value")
    new Variant(value, metadata)
  }

  def encode(v: Variant): Array[Byte] = {
    val metadata = v.getMetadata
    val value = v.getValue
    val out = new Array[Byte](metadata.length + value.length)
    System.arraycopy(metadata, 0, out, 0, metadata.length)
    System.arraycopy(value, 0, out, metadata.length, value.length)
    out
  }
}
