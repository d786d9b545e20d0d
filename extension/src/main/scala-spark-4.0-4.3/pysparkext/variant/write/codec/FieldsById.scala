package pysparkext.variant.write.codec

import org.apache.spark.types.variant.VariantUtil

import pysparkext.variant.codec.LittleEndian

/**
 * One object level of a shredding schema, walked by the dictionary ids of a variant's metadata,
 * for the columnar writers: rows of one shape usually carry byte-identical metadata, so an id's
 * key is decoded and looked up once per distinct metadata (a generation), not once per field and
 * row. `names` are the schema's fields, in order.
 */
private[write] final class FieldsById(names: Array[String]) {
  private val byName: Map[String, Int] = names.zipWithIndex.toMap
  private var positions = new Array[Int](16)
  private var keys = new Array[String](16)
  private var seen = new Array[Int](16)
  private val written = new Array[Boolean](names.length)

  /** The fields of the object last walked that the schema lacks. */
  val outside = new OutsideFields

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
      positions(id) = byName.getOrElse(keys(id), -1)
      seen(id) = generation
    }
    positions(id)
  }

  /** The key of an id [[index]] has resolved in the current generation. */
  def key(id: Int): String = keys(id)

  /**
   * Walks the object at `pos` of `value`: `inSchema(position, valuePos)` for each field the schema
   * has, in the object's order (a key twice is an error); the other fields into [[outside]]; then
   * `missing(position)` for each field of the schema the object lacks.
   */
  def foreachField(value: Array[Byte], pos: Int, metadata: Array[Byte], generation: Int)(
      inSchema: (Int, Int) => Unit, missing: Int => Unit): Unit = {
    java.util.Arrays.fill(written, false)
    outside.clear()
    VariantUtil.handleObject(value, pos, (size, idSize, offsetSize, idStart, offsetStart, dataStart) => {
      var i = 0
      while (i < size) {
        val id = LittleEndian.readUnsigned(value, idStart + idSize * i, idSize)
        val at = dataStart + LittleEndian.readUnsigned(value, offsetStart + offsetSize * i, offsetSize)
        val field = index(metadata, id, generation)
        if (field < 0) outside.add(id, at)
        else {
          if (written(field)) throw new IllegalArgumentException(
            s"Malformed variant: the key '${names(field)}' appears twice in one object")
          written(field) = true
          inSchema(field, at)
        }
        i += 1
      }
      null
    })
    var i = 0
    while (i < names.length) {
      if (!written(i)) missing(i)
      i += 1
    }
  }
}

/** The fields of one object outside the schema (dictionary id, position), as they are met. */
private[write] final class OutsideFields {
  var ids = new Array[Int](8)
  var at = new Array[Int](8)
  var count = 0

  def clear(): Unit = count = 0

  def add(id: Int, pos: Int): Unit = {
    if (count == ids.length) {
      ids = java.util.Arrays.copyOf(ids, count * 2)
      at = java.util.Arrays.copyOf(at, count * 2)
    }
    ids(count) = id
    at(count) = pos
    count += 1
  }
}
