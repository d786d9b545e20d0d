package pysparkext.variant.layout

import org.apache.spark.sql.types._

/**
 * The types one variant column has in different files, shredded in either layout, merged into
 * one read schema where they agree ([[PerFileTypes.merge]]); files whose types conflict are read
 * by separate relations (`ResolveShreddedVariantRelations`).
 */
object PerFileTypes {
  /**
   * Merges two files' shredded types of one column (draft or spec layout) so one read schema
   * serves both: fields missing from a file read as null, which the layouts define as "not
   * shredded here", so a merged field is nullable where either file lacks it or may hold null.
   * None when a leaf differs in type, or a level is in one layout in one file and in the other
   * in the other; such files must be read separately.
   */
  def merge(a: DataType, b: DataType): Option[DataType] = (a, b) match {
    case (x: StructType, y: StructType) if isSpecLevel(x).zip(isSpecLevel(y)).exists { case (p, q) => p != q } => None
    case (x: StructType, y: StructType) =>
      val names = (x.fieldNames ++ y.fieldNames).distinct
      val merged = names.map { n =>
        (x.find(_.name == n), y.find(_.name == n)) match {
          case (Some(f), Some(g)) =>
            merge(f.dataType, g.dataType).map(t => f.copy(dataType = t, nullable = f.nullable || g.nullable))
          // The spec writes an object's fields as required groups; a file without the field
          // reads it as null, so the merged field must admit null.
          case (Some(f), None) => Some(f.copy(nullable = true))
          case (None, Some(g)) => Some(g.copy(nullable = true))
          case _ => None
        }
      }
      if (merged.forall(_.isDefined)) Some(StructType(merged.map(_.get).toSeq)) else None
    case (ArrayType(x, n), ArrayType(y, m)) => merge(x, y).map(ArrayType(_, n || m))
    case (x, y) if x == y => Some(x)
    case _ => None
  }

  /** A level of the spec layout (`value`), not the draft's (`untyped_value`); object fields of
   * neither kind (a level with only a typed part) match either. */
  private def isSpecLevel(s: StructType): Option[Boolean] =
    if (s.fieldNames.contains(SpecLayout.Value) || s.fieldNames.contains(SpecLayout.Metadata)) Some(true)
    else if (s.fieldNames.contains(DraftLayout.Untyped) || s.fieldNames.contains(DraftLayout.Object) ||
      s.fieldNames.contains(DraftLayout.Array)) Some(false)
    else None
}
