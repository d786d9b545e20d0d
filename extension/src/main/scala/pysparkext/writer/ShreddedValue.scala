package pysparkext.writer

import org.apache.spark.types.variant.{VariantSchema, VariantShreddingWriter}
import org.apache.spark.types.variant.VariantShreddingWriter.ShreddedResult

/**
 * One variant value as Spark's `VariantShreddingWriter.castShredded` shreds it, held as plain
 * fields instead of Spark's `InternalRow`s: [[ShreddedLeafWriters]] writes it straight into the
 * Parquet column writers. Which parts are set is Spark's decision, so the columnar writer shreds
 * exactly as Spark's own shredding writer does (`fields` has one entry per schema field, `null`
 * parts are absent).
 */
final class ShreddedValue extends ShreddedResult {
  var metadata: Array[Byte] = _
  var value: Array[Byte] = _
  var scalar: AnyRef = _
  var fields: Array[ShreddedResult] = _
  var elements: Array[ShreddedResult] = _

  override def addArray(array: Array[ShreddedResult]): Unit = elements = array
  override def addObject(values: Array[ShreddedResult]): Unit = fields = values
  override def addVariantValue(result: Array[Byte]): Unit = value = result
  override def addScalar(result: AnyRef): Unit = scalar = result
  override def addMetadata(result: Array[Byte]): Unit = metadata = result
}

/** Builds [[ShreddedValue]]s, with Spark's writer's numeric rule (a value may change scale). */
object ShreddedValue extends VariantShreddingWriter.ShreddedResultBuilder {
  override def createEmpty(schema: VariantSchema): ShreddedResult = new ShreddedValue
  // As Spark's SparkShreddedResultBuilder: 1.50 may be stored as decimal(10,1) 1.5, 3 as 3.00.
  override def allowNumericScaleChanges(): Boolean = true
}
