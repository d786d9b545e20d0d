package pysparkext.variant.write.columnar

import org.apache.spark.unsafe.types.VariantVal

/**
 * A top-level VARIANT column written straight into Parquet's column writers, row by row
 * ([[SpecColumnWriter]], [[DraftColumnWriter]]). It keeps the row's bytes for the writer to walk,
 * and numbers each distinct metadata (a generation, from 1), by which the writers' field lookups
 * ([[FieldsById]]) are reused from row to row.
 */
private[write] abstract class VariantColumnWriter {
  protected var value: Array[Byte] = _
  protected var metadata: Array[Byte] = _
  protected var generation = 0

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

  /** A SQL NULL: every leaf of the column null. */
  def writeNull(): Unit
}
