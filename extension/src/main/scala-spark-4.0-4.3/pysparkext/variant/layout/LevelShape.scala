package pysparkext.variant.layout

import org.apache.spark.sql.types.{ArrayType, DataType, StructType}

/**
 * Where the parts of one shredded level sit, in either layout. A level has a residual binary
 * (the draft's `untyped_value`, the spec's `value`) and at most one typed part: a primitive
 * `typed_value`, an object (the draft's `object`, the spec's `typed_value` group) or an array
 * (the draft's `array`, the spec's `typed_value` LIST). Ordinals are -1 where the part is absent,
 * which both layouts read as "always null".
 */
final case class LevelShape(untyped: Int, primitive: Int, obj: Int, array: Int) {
  def isLeaf: Boolean = obj < 0 && array < 0
}

object LevelShape {
  /** The position of a field by exact name, or -1. */
  def ordinal(s: StructType, name: String): Int = s.fieldNames.indexOf(name)

  def of(s: StructType): LevelShape = {
    val names = s.fieldNames
    def ord(n: String) = names.indexOf(n)
    val typed = ord(DraftLayout.Typed)
    val typedType: Option[DataType] = if (typed < 0) None else Some(s(typed).dataType)
    val untyped = if (ord(DraftLayout.Untyped) >= 0) ord(DraftLayout.Untyped) else ord(SpecLayout.Value)
    LevelShape(
      untyped = untyped,
      primitive = typedType.filterNot(t => t.isInstanceOf[StructType] || t.isInstanceOf[ArrayType])
        .map(_ => typed).getOrElse(-1),
      obj = if (ord(DraftLayout.Object) >= 0) ord(DraftLayout.Object)
        else typedType.collect { case _: StructType => typed }.getOrElse(-1),
      array = if (ord(DraftLayout.Array) >= 0) ord(DraftLayout.Array)
        else typedType.collect { case _: ArrayType => typed }.getOrElse(-1))
  }
}
