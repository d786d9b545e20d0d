package pysparkext.writer

import org.apache.spark.types.variant.VariantUtil

/**
 * One object level's schema positions by the dictionary ids of a variant's metadata, for the
 * columnar writers: rows of one shape usually carry byte-identical metadata, so an id's key is
 * decoded and looked up once per distinct metadata (a generation), not once per field and row.
 * `position` gives a key's place in the schema's object, or -1 when the schema lacks it.
 */
private[writer] final class FieldsById(position: String => Int) {
  private var positions = new Array[Int](16)
  private var keys = new Array[String](16)
  private var seen = new Array[Int](16)

  /** The schema position of dictionary id `id` of `metadata` (valid in `generation`, from 1). */
  def index(metadata: Array[Byte], id: Int, generation: Int): Int = {
    if (id >= seen.length) {
      val n = math.max(id + 1, seen.length * 2)
      positions = java.util.Arrays.copyOf(positions, n)
      keys = java.util.Arrays.copyOf(keys, n)
      seen = java.util.Arrays.copyOf(seen, n)
    }
    if (seen(id) != generation) {
      keys(id) = VariantUtil.getMetadataKey(metadata, id)
      positions(id) = position(keys(id))
      seen(id) = generation
    }
    positions(id)
  }

  /** The key of an id [[index]] has resolved in the current generation. */
  def key(id: Int): String = keys(id)

  /**
   * Each field of the object at `pos` of `value`, in order: `inSchema(position, valuePos)` for a
   * field the schema has, `outside(key, id, valuePos)` for any other.
   */
  def foreachField(value: Array[Byte], pos: Int, metadata: Array[Byte], generation: Int)(
      inSchema: (Int, Int) => Unit, outside: (String, Int, Int) => Unit): Unit =
    VariantUtil.handleObject(value, pos, (size, idSize, offsetSize, idStart, offsetStart, dataStart) => {
      var i = 0
      while (i < size) {
        val id = VariantUtil.readUnsigned(value, idStart + idSize * i, idSize)
        val at = dataStart + VariantUtil.readUnsigned(value, offsetStart + offsetSize * i, offsetSize)
        val field = index(metadata, id, generation)
        if (field >= 0) inSchema(field, at) else outside(keys(id), id, at)
        i += 1
      }
      null
    })
}
