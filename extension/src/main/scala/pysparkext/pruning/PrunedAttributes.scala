package pysparkext.pruning

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._

/**
 * Rewrites expressions written against a scan's original attributes so that they read the pruned
 * attributes instead, without changing any expression's type.
 *
 * An extraction chain (`s.a.b`, `arr.x`, `m['k'].y`) is rebuilt on the pruned attribute with its
 * field ordinals remapped; such chains stay visible to Spark's filter push-down. Any other use of
 * a pruned attribute, or a chain whose result was itself pruned, sees the value padded back to its
 * original type: the fields the rule dropped become nulls (or type defaults where the field is not
 * nullable). The analysis proved that nothing reads them, and because every type stays as it was,
 * the plan above the scan is untouched.
 *
 * @param pruned original attribute id -> the pruned attribute replacing it
 */
final class PrunedAttributes(pruned: Map[ExprId, AttributeReference]) {

  def apply(e: Expression): Expression = e match {
    case IsNull(c) => rebuild(c).map(IsNull(_)).getOrElse(e.mapChildren(apply))
    case IsNotNull(c) => rebuild(c).map(IsNotNull(_)).getOrElse(e.mapChildren(apply))
    // An array's or map's size does not depend on its element type.
    case Size(c, legacy) => rebuild(c).map(Size(_, legacy)).getOrElse(e.mapChildren(apply))
    case _ => rebuild(e) match {
      case Some(r) => Padding.pad(r, e.dataType)
      case None => e.mapChildren(apply)
    }
  }

  /** The chain rebuilt on the pruned attribute, with its pruned result type. */
  private def rebuild(e: Expression): Option[Expression] = e match {
    case a: AttributeReference => pruned.get(a.exprId)
    case g: GetStructField =>
      val name = g.childSchema(g.ordinal).name
      rebuild(g.child).flatMap { c =>
        c.dataType match {
          case s: StructType => Padding.fieldIndex(s, name).map(i => GetStructField(c, i, Some(name)))
          case _ => None
        }
      }
    case g: GetArrayStructFields =>
      rebuild(g.child).flatMap { c =>
        c.dataType match {
          case ArrayType(s: StructType, containsNull) => Padding.fieldIndex(s, g.field.name).map { i =>
            GetArrayStructFields(c, s(i), i, s.length, containsNull || s(i).nullable)
          }
          case _ => None
        }
      }
    case g: GetArrayItem => rebuild(g.child).map(c => g.copy(child = c, ordinal = apply(g.ordinal)))
    case g: GetMapValue => rebuild(g.child).map(c => g.copy(child = c, key = apply(g.key)))
    case _ => None
  }
}

/**
 * Builds an expression that widens a value of a pruned type back to its original type: a struct
 * as `named_struct` over its fields (Spark simplifies a field extracted from it), an array or map
 * by [[WidenPrunedValue]].
 */
object Padding {
  def fieldIndex(s: StructType, name: String): Option[Int] =
    Some(s.fieldNames.indexOf(name)).filter(_ >= 0)

  def pad(e: Expression, full: DataType): Expression =
    if (e.dataType == full) e else (e.dataType, full) match {
      case (ps: StructType, fs: StructType) =>
        val values = fs.fields.toSeq.flatMap { f =>
          val value = fieldIndex(ps, f.name) match {
            case Some(i) =>
              val v = pad(GetStructField(e, i, Some(f.name)), f.dataType)
              if (!f.nullable && v.nullable) KnownNotNull(v) else v
            case None => if (f.nullable) Literal(null, f.dataType) else Literal.default(f.dataType)
          }
          Seq(Literal(f.name), value)
        }
        val struct = CreateNamedStruct(values)
        if (e.nullable) If(IsNull(e), Literal(null, full), struct) else struct
      case (_: ArrayType, _: ArrayType) | (_: MapType, _: MapType) => WidenPrunedValue(e, full)
      case (have, want) => throw new IllegalStateException(
        s"cannot widen ${have.catalogString} back to ${want.catalogString}")
    }
}
