package pysparkext.variant.write.columnar

import java.util.{ArrayList => JArrayList}

import org.apache.parquet.column.{ColumnWriter, ColumnWriteStore}
import org.apache.parquet.schema.MessageType

import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}
import org.apache.spark.unsafe.types.VariantVal

import pysparkext.variant.codec.LittleEndian
import pysparkext.variant.write.codec.OutsideFields

/**
 * A top-level VARIANT column written straight into Parquet's column writers, row by row: the base
 * of both layouts' writers ([[SpecColumnWriter]], [[DraftColumnWriter]]). It keeps the row's bytes
 * for the writer to walk, and numbers each distinct metadata (a generation, from 1), by which the
 * writers' field lookups ([[pysparkext.variant.write.codec.FieldsById]]) are reused from row to
 * row. It holds what both layouts do alike: the file's leaves ([[ParquetLeaves]]), a SQL NULL,
 * a nested value's bytes, the walk over an array's elements, and a residual object built by
 * Spark's `VariantBuilder`.
 */
private[write] abstract class VariantColumnWriter(message: MessageType, column: String,
                                                  store: ColumnWriteStore) {
  protected var value: Array[Byte] = _
  protected var metadata: Array[Byte] = _
  protected var generation = 0

  /** The file's leaves: levels from its schema, column writers from its store. */
  protected final val file = new ParquetLeaves(message, store)
  /** The column's definition level when it is present (one less: the SQL NULL). */
  protected final val topDefinition: Int = file.definition(Array(column))

  final def write(v: VariantVal): Unit = {
    val m = v.getMetadata
    // Equal metadata keeps the first row's array: Parquet's dictionary then finds it by identity.
    if (metadata == null || !java.util.Arrays.equals(m, metadata)) {
      generation += 1
      metadata = m
    }
    value = v.getValue
    writeValue()
  }

  /** The row's value (`value`, `metadata`) into the column's leaves. */
  protected def writeValue(): Unit

  /** Every leaf of the column null at repetition level `r` and definition level `d`. */
  protected def nulls(r: Int, d: Int): Unit

  /** A SQL NULL: every leaf of the column null. */
  final def writeNull(): Unit = nulls(0, topDefinition - 1)

  /** The bytes of the value at `pos` alone (a copy unless it is the whole row's), with the row's metadata. */
  protected final def variantAt(pos: Int): Variant = {
    val size = VariantUtil.valueSize(value, pos)
    new Variant(if (pos == 0 && size == value.length) value
      else java.util.Arrays.copyOfRange(value, pos, pos + size), metadata)
  }

  /**
   * Each element of the array value at `pos` to `element`, with its position and repetition level
   * (`r` for the first, `elementRepetition` for the others); an empty array writes the leaves
   * `empty` null at definition level `emptyDefinition`, the array present but without elements.
   */
  protected final def foreachElement(pos: Int, r: Int, elementRepetition: Int, empty: Array[ColumnWriter],
                                     emptyDefinition: Int, element: (Int, Int) => Unit): Unit =
    VariantUtil.handleArray(value, pos, (size, offsetSize, offsetStart, dataStart) => {
      if (size == 0) ParquetLeaves.writeNulls(empty, r, emptyDefinition)
      var j = 0
      while (j < size) {
        val at = dataStart + LittleEndian.readUnsigned(value, offsetStart + offsetSize * j, offsetSize)
        element(at, if (j == 0) r else elementRepetition)
        j += 1
      }
      null
    })

  /**
   * The object of the fields `outside` a schema, built by Spark's `VariantBuilder` (which sorts
   * the keys, or reports a key twice): `field(b, i)` writes the `i`-th field's key and value into
   * `b` and gives its entry. The caller takes the bytes it needs from the builder.
   */
  protected final def objectByBuilder(outside: OutsideFields)
                                     (field: (VariantBuilder, Int) => VariantBuilder.FieldEntry): VariantBuilder = {
    val b = new VariantBuilder(false)
    val entries = new JArrayList[VariantBuilder.FieldEntry]()
    var i = 0
    while (i < outside.count) {
      entries.add(field(b, i))
      i += 1
    }
    b.finishWritingObject(0, entries)
    b
  }
}
