package pysparkext.variant.layout

import org.apache.spark.sql.types._

import pysparkext.variant.ShreddedVariantException

/**
 * The Spark shredding proposal's draft layout (written up in `docs/draft-layout.md`). Every level
 * of a shredded variant is a group of `untyped_value` (binary: metadata then value) and at most one
 * of `typed_value` (a primitive), `object` (a group of named levels) or `array` (a LIST of levels).
 * Names starting with `_` are reserved for compatible extensions and ignored; any other name makes
 * the group unreadable.
 */
object DraftLayout {
  val Untyped = "untyped_value"
  val Typed = "typed_value"
  val Object = "object"
  val Array = "array"
  val Names: Set[String] = Set(Untyped, Typed, Object, Array)

  def isIgnored(name: String): Boolean = name.startsWith("_")

  /** True when a struct column has the draft layout's shape at its top level (used to infer). */
  def looksDraft(t: DataType): Boolean = t match {
    case s: StructType =>
      val names = s.fieldNames.filterNot(isIgnored)
      names.nonEmpty && names.forall(Names.contains) && names.contains(Untyped) &&
        s(Untyped).dataType == BinaryType
    case _ => false
  }

  /** True when the group is Spark's own variant encoding: `value`/`metadata`, maybe shredded. */
  def isSparkVariant(t: DataType): Boolean = t match {
    case VariantType => true
    case s: StructType => s.fieldNames.contains("value") || s.fieldNames.contains("metadata")
    case _ => false
  }

  /**
   * Checks a draft level read from one file's footer and returns it with ignored fields removed.
   * Any violation is an error naming the file, the column and where in the column it is.
   */
  def validate(t: DataType, file: String, column: String): StructType = {
    def fail(at: String, what: String) = new ShreddedVariantException(file, column, "",
      s"$what at `$at` (a shredded level may hold only untyped_value, typed_value, object and " +
        "array; names starting with '_' are ignored)")
    def level(t: DataType, at: String): StructType = t match {
      case s: StructType =>
        val kept = s.fields.filterNot(f => isIgnored(f.name)).map { f =>
          val here = s"$at.${f.name}"
          f.name match {
            case Untyped if f.dataType == BinaryType => f
            case Untyped => throw fail(here, s"untyped_value must be binary, not ${f.dataType.sql}")
            case Typed => f.dataType match {
              case _: StructType | _: ArrayType | _: MapType | VariantType =>
                throw fail(here, s"typed_value must be a primitive, not ${f.dataType.sql}")
              case _ => f
            }
            case Object => f.dataType match {
              case o: StructType =>
                f.copy(dataType = StructType(o.fields.map(c => c.copy(
                  dataType = level(c.dataType, s"$here.${c.name}")))))
              case other => throw fail(here, s"object must be a group, not ${other.sql}")
            }
            case Array => f.dataType match {
              case ArrayType(e, n) => f.copy(dataType = ArrayType(level(e, s"$here.element"), n))
              case other => throw fail(here, s"array must be a LIST, not ${other.sql}")
            }
            case other => throw fail(here, s"unexpected field '$other'")
          }
        }
        val shapes = kept.map(_.name).filter(n => n == Typed || n == Object || n == Array)
        if (shapes.length > 1) throw fail(at, s"more than one of ${shapes.mkString(", ")}")
        StructType(kept)
      case other => throw fail(at, s"expected a group, found ${other.sql}")
    }
    level(t, column)
  }
}
