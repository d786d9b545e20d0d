package pysparkext.variant.write.codec

import java.nio.charset.StandardCharsets

import org.apache.spark.types.variant.VariantUtil
import org.apache.spark.types.variant.VariantUtil.writeLong

import pysparkext.variant.codec.LittleEndian.readUnsigned
import pysparkext.variant.write.codec.ObjectHeader.integerSize

/**
 * The draft layout's residuals (`untyped_value`: a variant's metadata, then its value) for the
 * column-by-column writer ([[DraftColumnWriter]]), byte for byte what Spark's `VariantBuilder`
 * builds for the row-by-row way ([[ShredDraftVariant]]): a residual has a dictionary of only the
 * keys it holds, in the order `appendVariant` meets them, and its objects are re-keyed to it.
 *
 * What it does differently is the work per row: it copies from the row's bytes once, decodes each
 * key of a metadata once (per generation) rather than once per field and row, and writes metadata
 * and value into one array. Its bytes equal `VariantBuilder`'s where every object's keys are in
 * strictly ascending `String` order, which is how Spark writes them. For any other object (a writer
 * that orders keys by their UTF-8 bytes, a key twice) it returns null and the caller builds the
 * residual with `VariantBuilder`, which sorts, or reports the duplicate as Spark does.
 */
private[write] final class DraftResidual {
  private var value: Array[Byte] = _
  private var metadata: Array[Byte] = _
  private var generation = 0

  // Per generation: an id's key, its UTF-8 bytes as VariantBuilder writes them, and the first id
  // with that key (VariantBuilder's dictionary is by key, so ids that repeat a key share one entry).
  private var keys = new Array[String](16)
  private var keyBytes = new Array[Array[Byte]](16)
  private var canonical = new Array[Int](16)
  private var decodedIn = new Array[Int](16)
  private val firstIdOf = new java.util.HashMap[String, Integer]()

  // Per residual: an id's new id (valid where `assignedIn` is this residual's number), and the ids
  // in the order they were added.
  private var newIds = new Array[Int](16)
  private var assignedIn = new Array[Int](16)
  private var residual = 0
  private var order = new Array[Int](16)
  private var count = 0
  private var dictionaryBytes = 0L

  private var out = new Array[Byte](256)
  private var pos = 0

  // `generation` numbers a distinct metadata, from 1, as the caller's row-to-row check counts them.

  /** The residual object of the fields `(ids(i), at(i))`, `i < n`, of an object in `value`. */
  def ofFields(value: Array[Byte], metadata: Array[Byte], generation: Int,
               ids: Array[Int], at: Array[Int], n: Int): Array[Byte] = {
    begin(value, metadata, generation)
    if (appendObject(ids, at, n)) result() else null
  }

  /** The residual of the value at `at` of `value`, whole. */
  def of(value: Array[Byte], metadata: Array[Byte], generation: Int, at: Int): Array[Byte] = {
    begin(value, metadata, generation)
    if (append(at)) result() else null
  }

  private def begin(value: Array[Byte], metadata: Array[Byte], generation: Int): Unit = {
    this.value = value
    if (generation != this.generation) firstIdOf.clear()
    this.metadata = metadata
    this.generation = generation
    residual += 1
    count = 0
    dictionaryBytes = 0
    pos = 0
  }

  private def key(id: Int): String = {
    if (id >= decodedIn.length) {
      val n = math.max(id + 1, decodedIn.length * 2)
      keys = java.util.Arrays.copyOf(keys, n)
      keyBytes = java.util.Arrays.copyOf(keyBytes, n)
      canonical = java.util.Arrays.copyOf(canonical, n)
      decodedIn = java.util.Arrays.copyOf(decodedIn, n)
      newIds = java.util.Arrays.copyOf(newIds, n)
      assignedIn = java.util.Arrays.copyOf(assignedIn, n)
    }
    if (decodedIn(id) != generation) {
      val k = VariantUtil.getMetadataKey(metadata, id)
      keys(id) = k
      keyBytes(id) = k.getBytes(StandardCharsets.UTF_8)
      canonical(id) = firstIdOf.computeIfAbsent(k, _ => id)
      decodedIn(id) = generation
    }
    keys(id)
  }

  /** The new id of `id`'s key ([[key]] has decoded it), added to the dictionary when new. */
  private def newId(id: Int): Int = {
    val c = canonical(id)
    if (assignedIn(c) != residual) {
      assignedIn(c) = residual
      newIds(c) = count
      if (count == order.length) order = java.util.Arrays.copyOf(order, count * 2)
      order(count) = c
      count += 1
      dictionaryBytes += keyBytes(c).length
    }
    newIds(c)
  }

  // A position or value past the row's bytes is left to VariantBuilder, to report as Spark does.
  private def append(at: Int): Boolean = at >= 0 && at < value.length && append(at, value(at))

  private def append(at: Int, header: Byte): Boolean = (header & VariantUtil.BASIC_TYPE_MASK) match {
    case VariantUtil.OBJECT =>
      VariantUtil.handleObject(value, at, (size, idSize, offsetSize, idStart, offsetStart, dataStart) => {
        val ids = new Array[Int](size)
        val positions = new Array[Int](size)
        var i = 0
        while (i < size) {
          ids(i) = readUnsigned(value, idStart + idSize * i, idSize)
          positions(i) = dataStart + readUnsigned(value, offsetStart + offsetSize * i, offsetSize)
          i += 1
        }
        java.lang.Boolean.valueOf(appendObject(ids, positions, size))
      }).booleanValue
    case VariantUtil.ARRAY =>
      VariantUtil.handleArray(value, at, (size, offsetSize, offsetStart, dataStart) => {
        val start = pos
        val offsets = new Array[Int](size)
        var ok = true
        var i = 0
        while (ok && i < size) {
          offsets(i) = pos - start
          ok = append(dataStart + readUnsigned(value, offsetStart + offsetSize * i, offsetSize))
          i += 1
        }
        if (ok) finishArray(start, offsets)
        java.lang.Boolean.valueOf(ok)
      }).booleanValue
    case _ =>
      val size = VariantUtil.valueSize(value, at)
      at + size <= value.length && {
        reserve(size)
        System.arraycopy(value, at, out, pos, size)
        pos += size
        true
      }
  }

  /** The object of the fields `(ids(i), at(i))`, in that order, which must be ascending by key. */
  private def appendObject(ids: Array[Int], at: Array[Int], n: Int): Boolean = {
    var i = 0
    while (i < n) {
      val k = key(ids(i))
      if (i > 0 && keys(ids(i - 1)).compareTo(k) >= 0) return false
      i += 1
    }
    val start = pos
    val fieldIds = new Array[Int](n)
    val offsets = new Array[Int](n)
    var maxId = 0
    i = 0
    while (i < n) {
      fieldIds(i) = newId(ids(i))
      maxId = math.max(maxId, fieldIds(i))
      offsets(i) = pos - start
      if (!append(at(i))) return false
      i += 1
    }
    finishObject(start, fieldIds, offsets, maxId)
    true
  }

  // The headers as VariantBuilder's finishWritingObject / finishWritingArray write them, after the
  // data: the data moves up by the header's size.
  private def finishObject(start: Int, ids: Array[Int], offsets: Array[Int], maxId: Int): Unit = {
    val dataSize = pos - start
    shift(start, dataSize, ObjectHeader.size(ids.length, maxId, dataSize))
    ObjectHeader.write(out, start, ids, offsets, ids.length, maxId, dataSize)
  }

  private def finishArray(start: Int, offsets: Array[Int]): Unit = {
    val n = offsets.length
    val dataSize = pos - start
    val large = n > VariantUtil.U8_MAX
    val sizeBytes = if (large) VariantUtil.U32_SIZE else 1
    val offsetSize = integerSize(dataSize)
    val headerSize = 1 + sizeBytes + (n + 1) * offsetSize
    shift(start, dataSize, headerSize)
    out(start) = VariantUtil.arrayHeader(large, offsetSize)
    writeLong(out, start + 1, n, sizeBytes)
    val offsetStart = start + 1 + sizeBytes
    var i = 0
    while (i < n) {
      writeLong(out, offsetStart + i * offsetSize, offsets(i), offsetSize)
      i += 1
    }
    writeLong(out, offsetStart + n * offsetSize, dataSize, offsetSize)
  }

  private def shift(start: Int, dataSize: Int, by: Int): Unit = {
    reserve(by)
    System.arraycopy(out, start, out, start + by, dataSize)
    pos += by
  }

  private def reserve(more: Int): Unit =
    if (pos + more > out.length) out = java.util.Arrays.copyOf(out, math.max(out.length * 2, pos + more))

  /** VariantBuilder.result's metadata (unsorted, the keys in order), then the value. */
  private def result(): Array[Byte] = {
    val offsetSize = integerSize(math.max(dictionaryBytes, count.toLong))
    val stringStart = 1 + offsetSize + (count + 1) * offsetSize
    val metadataSize = stringStart + dictionaryBytes
    // Past Spark's limit VariantBuilder raises its own error: leave the residual to it.
    if (metadataSize > VariantUtil.SIZE_LIMIT || pos > VariantUtil.SIZE_LIMIT) return null
    val bytes = new Array[Byte](metadataSize.toInt + pos)
    bytes(0) = (VariantUtil.VERSION | ((offsetSize - 1) << 6)).toByte
    writeLong(bytes, 1, count, offsetSize)
    var offset = 0
    var i = 0
    while (i < count) {
      writeLong(bytes, 1 + offsetSize + i * offsetSize, offset, offsetSize)
      val k = keyBytes(order(i))
      System.arraycopy(k, 0, bytes, stringStart + offset, k.length)
      offset += k.length
      i += 1
    }
    writeLong(bytes, 1 + offsetSize + count * offsetSize, offset, offsetSize)
    System.arraycopy(out, 0, bytes, metadataSize.toInt, pos)
    bytes
  }

}
