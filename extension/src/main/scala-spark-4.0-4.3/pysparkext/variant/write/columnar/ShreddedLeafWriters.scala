package pysparkext.variant.write.columnar

import org.apache.parquet.column.ColumnWriter
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.LogicalTypeAnnotation.{TimestampLogicalTypeAnnotation, TimeUnit}
import org.apache.parquet.schema.PrimitiveType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import org.apache.spark.types.variant.VariantSchema

/**
 * How the spec-layout column writer ([[SpecColumnWriter]]) puts values into Parquet's column
 * writers: a typed scalar by its Parquet physical type, and a schema it cannot fill reported as
 * [[ShreddedLeafWriters.Unsupported]], so that Spark's path writes that file instead.
 */
object ShreddedLeafWriters {
  /** The file schema cannot be written column by column (the reason says why); Spark's path writes it. */
  final class Unsupported(reason: String) extends Exception(reason)

  /** How a shredded scalar ([[SpecShredder.typed]]'s result for the type) goes into the leaf. */
  def put(p: PrimitiveType, t: VariantSchema.ScalarType, at: String)
      : (ColumnWriter, AnyRef, Int, Int) => Unit = {
    import PrimitiveTypeName._
    def unsupported = throw new Unsupported(s"$at: $t as Parquet $p")
    (t, p.getPrimitiveTypeName) match {
      case (_: VariantSchema.IntegralType | _: VariantSchema.DateType, INT32) =>
        (w, x, r, d) => w.write(x.asInstanceOf[Number].intValue, r, d)
      case (_: VariantSchema.IntegralType, INT64) =>
        (w, x, r, d) => w.write(x.asInstanceOf[Number].longValue, r, d)
      case (_: VariantSchema.TimestampType | _: VariantSchema.TimestampNTZType, INT64) =>
        p.getLogicalTypeAnnotation match {
          case ts: TimestampLogicalTypeAnnotation if ts.getUnit == TimeUnit.MICROS =>
            (w, x, r, d) => w.write(x.asInstanceOf[java.lang.Long].longValue, r, d)
          case _ => unsupported
        }
      case (_: VariantSchema.DecimalType, INT32) =>
        (w, x, r, d) => w.write(unscaled(x).intValue, r, d)
      case (_: VariantSchema.DecimalType, INT64) =>
        (w, x, r, d) => w.write(unscaled(x).longValue, r, d)
      case (_: VariantSchema.DecimalType, FIXED_LEN_BYTE_ARRAY) =>
        val width = p.getTypeLength
        (w, x, r, d) => w.write(Binary.fromConstantByteArray(fixed(unscaled(x), width)), r, d)
      case (_: VariantSchema.BooleanType, BOOLEAN) =>
        (w, x, r, d) => w.write(x.asInstanceOf[java.lang.Boolean].booleanValue, r, d)
      case (_: VariantSchema.FloatType, FLOAT) =>
        (w, x, r, d) => w.write(x.asInstanceOf[java.lang.Float].floatValue, r, d)
      case (_: VariantSchema.DoubleType, DOUBLE) =>
        (w, x, r, d) => w.write(x.asInstanceOf[java.lang.Double].doubleValue, r, d)
      case (_: VariantSchema.StringType, BINARY) => (w, x, r, d) => w.write(x.asInstanceOf[Binary], r, d)
      case (_: VariantSchema.BinaryType, BINARY) =>
        (w, x, r, d) => w.write(Binary.fromConstantByteArray(x.asInstanceOf[Array[Byte]]), r, d)
      case _ => unsupported
    }
  }

  // Spark's shredder returns decimals already at the schema's scale (it rescales or refuses).
  private def unscaled(x: AnyRef): java.math.BigInteger =
    x.asInstanceOf[java.math.BigDecimal].unscaledValue

  /** Big-endian two's complement in exactly `width` bytes, as Parquet's FIXED_LEN_BYTE_ARRAY decimal. */
  private[write] def fixed(v: java.math.BigInteger, width: Int): Array[Byte] = {
    val minimal = v.toByteArray
    if (minimal.length == width) minimal
    else {
      val out = new Array[Byte](width)
      val pad: Byte = if (v.signum < 0) -1 else 0
      java.util.Arrays.fill(out, 0, width - minimal.length, pad)
      System.arraycopy(minimal, 0, out, width - minimal.length, minimal.length)
      out
    }
  }
}
