package pysparkext.variant.layout

import org.apache.spark.sql.types._

import pysparkext.variant.ShreddedVariantException
import pysparkext.variant.codec.TypedValue

/**
 * The Parquet specification's shredded Variant layout, as Spark 4.x, Iceberg, Delta and DuckDB
 * write it: the column group holds `metadata` (the variant's dictionary, shared by every level),
 * `value` (the residual, value bytes only) and an optional `typed_value`. At each level below,
 * `typed_value` is a primitive, a group of fields (each a level of `value`/`typed_value`) or a
 * LIST of levels. An object field with both parts null is missing from its object.
 */
object SpecLayout {
  val Metadata = "metadata"
  val Value = "value"

  /** Spark's variant encoding with a `typed_value`: a shredded file in the spec layout. */
  def isShredded(t: DataType): Boolean = t match {
    case s: StructType => s.fieldNames.contains(Metadata) && s.fieldNames.contains(DraftLayout.Typed)
    case _ => false
  }

  def isSpec(t: DataType): Boolean = t match {
    case s: StructType => s.fieldNames.contains(Metadata)
    case _ => false
  }

  /**
   * Checks one file's spec-layout group and returns it with every field nullable (files differ
   * in which fields they have, and a missing field reads as null). Any violation is an error
   * naming the file, the column and where in the column it is.
   */
  def validate(t: DataType, file: String, column: String): StructType = {
    def fail(at: String, what: String) = new ShreddedVariantException(file, column, "",
      s"$what at `$at` (a shredded level of the Parquet variant layout holds value and " +
        "typed_value; the top level also holds metadata)")
    def binary(f: StructField, here: String): StructField =
      if (f.dataType == BinaryType) f.copy(nullable = true)
      else throw fail(here, s"${f.name} must be binary, not ${f.dataType.sql}")
    def level(t: DataType, at: String, top: Boolean): StructType = t match {
      case s: StructType =>
        StructType(s.fields.map { f =>
          val here = s"$at.${f.name}"
          f.name match {
            case Metadata if top => binary(f, here)
            case Value => binary(f, here)
            case DraftLayout.Typed => f.copy(nullable = true, dataType = typed(f.dataType, here))
            case other => throw fail(here, s"unexpected field '$other'")
          }
        })
      case other => throw fail(at, s"expected a group, found ${other.sql}")
    }
    def typed(t: DataType, at: String): DataType = t match {
      case s: StructType => StructType(s.fields.map(f => LayoutMarks.requiredInFile(f, !f.nullable)
        .copy(nullable = true, dataType = level(f.dataType, s"$at.${f.name}", top = false))))
      case ArrayType(e, _) => ArrayType(level(e, s"$at.element", top = false), containsNull = true)
      case primitive if TypedValue.isSupported(primitive) => primitive
      case other => throw fail(at, s"typed_value of type ${other.sql} is not supported")
    }
    val top = level(t, column, top = true)
    if (!top.fieldNames.contains(Metadata)) throw fail(column, "no metadata field")
    top
  }
}
