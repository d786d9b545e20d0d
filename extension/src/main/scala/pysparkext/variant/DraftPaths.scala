package pysparkext.variant

import scala.collection.mutable.ListBuffer

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.variant.{ArrayExtraction, ObjectExtraction, VariantGet, VariantPathSegment}
import org.apache.spark.sql.types.{ArrayType, DataType, StructType, VariantType}

/**
 * Plans the read of one variant path from a draft-layout struct: walks the path through the
 * shredded schema as far as it is shredded, collecting where the value can live (see
 * [[DraftVariantGet]]). Only the leaves of those places are referenced, so schema pruning then
 * reads nothing else.
 */
object DraftPaths {
  def get(
      root: Expression,
      column: String,
      path: String,
      targetType: DataType,
      failOnError: Boolean,
      timeZoneId: Option[String]): Expression = {
    val segments = VariantGet.getParsedPath(path, "variant_get").toSeq
    val places = ListBuffer.empty[(Expression, Seq[VariantPathSegment])]
    var cur: Expression = root
    var complete = true
    var i = 0
    while (complete && i < segments.length) {
      val level = cur.dataType.asInstanceOf[StructType]
      // The step into the next level, and whether every file shreds it (then this level's
      // residual cannot hold the path: see DraftLayout.markShreddedEverywhere).
      val next: Option[(Expression, Boolean)] = segments(i) match {
        case ObjectExtraction(key) =>
          field(cur, level, DraftLayout.Object).flatMap { obj =>
            val fields = obj.dataType.asInstanceOf[StructType]
            fields.fieldNames.indexOf(key) match {
              case -1 => None
              case ord => Some(GetStructField(obj, ord, Some(key)) ->
                DraftLayout.isShreddedEverywhere(fields(ord)))
            }
          }
        case ArrayExtraction(index) =>
          level.find(_.name == DraftLayout.Array).filter(_.dataType.isInstanceOf[ArrayType])
            .map { f =>
              GetArrayItem(field(cur, level, DraftLayout.Array).get, Literal(index),
                failOnError = false) -> DraftLayout.isShreddedEverywhere(f)
            }
        case _ => None
      }
      if (!next.exists(_._2)) {
        field(cur, level, DraftLayout.Untyped).foreach(u => places.prepend(u -> segments.drop(i)))
      }
      next match {
        case Some((e, _)) => cur = e; i += 1
        case None => complete = false
      }
    }
    if (complete) places.prepend(cur -> Nil)
    val slow = DraftVariantGet(places.map(_._1).toSeq, places.map(_._2).toSeq, targetType,
      failOnError, column, path, timeZoneId)
    typedLeaf(cur, targetType).filter(_ => complete && targetType != VariantType).map {
      case (typed, untyped) =>
        val cond = untyped.map(u => And(IsNotNull(typed), IsNull(u))).getOrElse(IsNotNull(typed))
        If(cond, typed, slow)
    }.getOrElse(slow)
  }

  /**
   * The `typed_value` and `untyped_value` leaves of a level that is a primitive `typed_value` of
   * exactly `targetType`. There the common case is a plain column read that Spark compiles (the
   * general read only runs for rows where the value is not there), and typed statistics can
   * skip row groups ([[DraftSkipPredicates]]).
   */
  def typedLeaf(level: Expression, targetType: DataType): Option[(Expression, Option[Expression])] =
    level.dataType match {
      case s: StructType if Seq(DraftLayout.Object, DraftLayout.Array)
          .forall(n => DraftLayout.ordinal(s, n) < 0) =>
        field(level, s, DraftLayout.Typed).filter(_.dataType == targetType)
          .map(t => t -> field(level, s, DraftLayout.Untyped))
      case _ => None
    }

  private def field(e: Expression, s: StructType, name: String): Option[Expression] =
    Some(DraftLayout.ordinal(s, name)).filter(_ >= 0).map(ord => GetStructField(e, ord, Some(name)))
}
