package pysparkext.testing

import org.apache.spark.types.variant.{Variant, VariantSchema, VariantShreddingWriter}
import org.apache.spark.types.variant.VariantShreddingWriter.ShreddedResult

/**
 * What Spark's own shredder, `VariantShreddingWriter.castShredded`, makes of a variant, with the
 * numeric rule of Spark's Parquet writer (a number may change scale, or move between integers and
 * decimals, when no digit is lost): the reference the columnar writers' codecs are held to.
 */
object SparkShredding {
  /** One level of Spark's result: what `castShredded` put in it (null where it put nothing). */
  final class Recorded extends ShreddedResult {
    var scalar: AnyRef = _
    var value: Array[Byte] = _
    var fields: Array[Recorded] = _

    override def addArray(array: Array[ShreddedResult]): Unit = ()
    override def addObject(values: Array[ShreddedResult]): Unit = fields = values.map(_.asInstanceOf[Recorded])
    override def addVariantValue(result: Array[Byte]): Unit = value = result
    override def addScalar(result: AnyRef): Unit = scalar = result
    override def addMetadata(result: Array[Byte]): Unit = ()
  }

  private val builder = new VariantShreddingWriter.ShreddedResultBuilder {
    override def createEmpty(schema: VariantSchema): ShreddedResult = new Recorded
    override def allowNumericScaleChanges(): Boolean = true
  }

  def shred(v: Variant, schema: VariantSchema): Recorded =
    VariantShreddingWriter.castShredded(v, schema, builder).asInstanceOf[Recorded]

  /** A nested level with `value` and a scalar `typed_value`. */
  def scalar(t: VariantSchema.ScalarType): VariantSchema = new VariantSchema(0, 1, -1, 2, t, null, null)

  /** A nested level with `value` only: everything in it stays untyped. */
  val untyped: VariantSchema = new VariantSchema(-1, 0, -1, 1, null, null, null)

  /** A nested level with `value` and an object `typed_value` of these fields. */
  def obj(fields: (String, VariantSchema)*): VariantSchema =
    new VariantSchema(0, 1, -1, 2, null,
      fields.map { case (n, s) => new VariantSchema.ObjectField(n, s) }.toArray, null)
}
