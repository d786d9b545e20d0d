package pysparkext.writer

/**
 * One variant value shredded for the spec layout ([[SpecShredder]]), held as plain fields rather
 * than as Spark's `InternalRow` per level: [[ShreddedLeafWriters]] writes it straight into the
 * Parquet column writers. A part that is `null` is absent; `fields` has one entry per field of the
 * schema's object (a field the value lacks is an entry with both parts null).
 */
final class ShreddedValue {
  var metadata: Array[Byte] = _
  var value: Array[Byte] = _
  var scalar: AnyRef = _
  var fields: Array[ShreddedValue] = _
  var elements: Array[ShreddedValue] = _
}
