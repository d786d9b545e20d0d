package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.Count
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.SparkInternals.{CastOf, StructFieldOf, VariantGetOf}
import org.apache.spark.sql.types.{BooleanType, VariantType}
import org.apache.spark.unsafe.types.UTF8String

import pysparkext.variant.expressions.{RebuildShreddedStruct, ReconstructShreddedVariant}

/**
 * Turns path reads of a shredded variant reconstructed inline (`reconstruct_shredded_variant(s)`
 * as an argument of the read, as filters pushed under the reconstructing Project leave it) into
 * reads of its shredded columns, in place. One step of [[RewriteShreddedVariantPaths]].
 *
 * Every `variant_get`, `try_variant_get`, `v:path` and cast of the reconstruction with a constant
 * path becomes a [[pysparkext.variant.expressions.ShreddedVariantGet]] over `s`, and a null test
 * of it (which Spark also infers above filters on paths) and `count` of it a null test of the
 * parts of `s` ([[ShreddedPaths.isPresent]]). A field of a struct rebuilt around shredded VARIANT
 * fields (`rebuild_shredded_struct(s).w`) is first read from the same field of the struct as read,
 * a VARIANT field as its reconstruction, whose path reads then become leaf reads (`s.w:a` reads as
 * `v:a` would).
 *
 * Safe because [[pysparkext.variant.expressions.ShreddedVariantGet]] returns exactly what the
 * expression it replaces returns (it casts with the same Spark code, error mode and time zone),
 * and a field of a rebuilt struct is the field's own rebuild.
 *
 * {{{
 *   Before: Project [variant_get(reconstruct_shredded_variant(s), $.user.id, int) AS id]
 *           +- Relation [s: struct<untyped_value, object: struct<user: struct<...>>>]
 *   After:  Project [shredded_variant_get(s.object.user.object.id.typed_value,
 *                                         s.object.user.untyped_value, ..., $.user.id, int) AS id]
 *           +- Relation [s]     (nested schema pruning then reads just those leaves)
 * }}}
 */
object InlineShreddedPathReads extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan =
    plan.transformUp { case n => n.transformExpressionsUp(fieldsOfRebuiltStructs) }
      .transformAllExpressions(inline)

  /** Whether `plan` reconstructs a variant or rebuilds a struct anywhere: else no step applies. */
  def rebuildsAny(plan: LogicalPlan): Boolean =
    plan.exists(_.expressions.exists(_.exists(e =>
      e.isInstanceOf[ReconstructShreddedVariant] || e.isInstanceOf[RebuildShreddedStruct])))

  /**
   * Path reads of a variant whose shredded struct `source` can name: `(struct, column)` for a
   * reconstruction inline, or for an attribute rebuilt from a struct carried beside it.
   */
  private[rules] def pathReads(source: Expression => Option[(Expression, String)])
      : PartialFunction[Expression, Expression] = {
    object ShreddedSource { def unapply(e: Expression): Option[(Expression, String)] = source(e) }
    {
      case IsNotNull(ShreddedSource(s, _)) => ShreddedPaths.isPresent(s)
      case IsNull(ShreddedSource(s, _)) => Not(ShreddedPaths.isPresent(s))
      // count(v) counts the rows whose v is not NULL: it needs no more of v than a null test.
      case c: Count if c.children.exists(ShreddedSource.unapply(_).isDefined) =>
        c.copy(children = c.children.map {
          case ShreddedSource(s, _) => If(ShreddedPaths.isPresent(s), Literal.TrueLiteral, Literal(null, BooleanType))
          case other => other
        })
      case c @ CastOf(VariantGetOf(ShreddedSource(s, col), Literal(p: UTF8String, _), VariantType, _, _),
          to, _, mode) if to != VariantType =>
        ShreddedPaths.get(s, col, p.toString, to, mode != EvalMode.TRY, zone(c.timeZoneId))
      case c @ CastOf(ShreddedSource(s, col), to, _, mode) if to != VariantType =>
        ShreddedPaths.get(s, col, "$", to, mode != EvalMode.TRY, zone(c.timeZoneId))
      case VariantGetOf(ShreddedSource(s, col), Literal(p: UTF8String, _), to, fail, tz) =>
        ShreddedPaths.get(s, col, p.toString, to, fail, zone(tz))
    }
  }

  private def zone(tz: Option[String]): Option[String] =
    tz.orElse(Some(SQLConf.get.sessionLocalTimeZone))

  /**
   * A field of a struct rebuilt around shredded VARIANT fields, read from the same field of the
   * struct as read: a plain field as it is, a VARIANT field as its reconstruction, whose path
   * reads the inline rewrite then turns into leaf reads (`s.w:a` reads as `v:a` would).
   */
  private val fieldsOfRebuiltStructs: PartialFunction[Expression, Expression] = {
    case StructFieldOf(r: RebuildShreddedStruct, ordinal) => r.field(ordinal)
  }

  private val inline = pathReads {
    case ReconstructShreddedVariant(s, col) => Some(s -> col)
    case _ => None
  }
}
