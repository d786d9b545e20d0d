package pysparkext.variant.rules

import scala.collection.mutable.ListBuffer

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.variant.{ArrayExtraction, ObjectExtraction, VariantPathSegment}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.pysparkext.SparkInternals.{IfOf, StructFieldOf}
import org.apache.spark.sql.types._

import pysparkext.variant.codec.RawTypedValue
import pysparkext.variant.expressions.ShreddedVariantGet
import pysparkext.variant.layout.{DraftLayout, LayoutMarks, LevelShape, SpecLayout}

/**
 * Plans the read of one variant path from a shredded struct of either layout: walks the path through the
 * shredded schema as far as it is shredded, collecting where the value can live (see
 * [[ShreddedVariantGet]]). Only the leaves of those places are referenced, so schema pruning then
 * reads nothing else.
 */
object ShreddedPaths {
  def get(
      root: Expression,
      column: String,
      path: String,
      targetType: DataType,
      failOnError: Boolean,
      timeZoneId: Option[String]): Expression = {
    val segments = SparkInternals.variantPath(path, "variant_get")
    val places = ListBuffer.empty[(Expression, Seq[VariantPathSegment])]
    val rootType = root.dataType.asInstanceOf[StructType]
    val spec = SpecLayout.isSpec(rootType)
    // Spec-layout object steps whose field group may be null in a file: (path to the field,
    // true where the object is non-null and the group null). See ShreddedVariantGet.
    val groupChecks = ListBuffer.empty[(String, Expression)]
    var cur: Expression = root
    var complete = true
    var i = 0
    while (complete && i < segments.length) {
      val level = cur.dataType.asInstanceOf[StructType]
      val shape = LevelShape.of(level)
      // The step into the next level, and whether every file shreds it (then this level's
      // residual cannot hold the path: see LayoutMarks.markShreddedEverywhere).
      val next: Option[(Expression, Boolean)] = segments(i) match {
        case ObjectExtraction(key) if shape.obj >= 0 =>
          val fields = level(shape.obj).dataType.asInstanceOf[StructType]
          fields.fieldNames.indexOf(key) match {
            case -1 => None
            case ord =>
              val obj = part(cur, level, shape.obj)
              val group = GetStructField(obj, ord, Some(key))
              // As the rebuild checks (ShreddedLevel): only a field every file shreds, and not
              // where every file declares the group required (then it is never null).
              if (spec && LayoutMarks.isShreddedEverywhere(fields(ord)) &&
                  !LayoutMarks.isRequiredEverywhere(fields(ord))) {
                groupChecks += pathText(segments.take(i + 1)) -> And(IsNotNull(obj), IsNull(group))
              }
              Some(group -> LayoutMarks.isShreddedEverywhere(fields(ord)))
          }
        case ArrayExtraction(index) if shape.array >= 0 =>
          Some(GetArrayItem(part(cur, level, shape.array), Literal(index), failOnError = false) ->
            LayoutMarks.isShreddedEverywhere(level(shape.array)))
        case _ => None
      }
      if (!next.exists(_._2) && residual(level).isDefined) {
        places.prepend(part(cur, level, shape.untyped) -> segments.drop(i))
      }
      next match {
        case Some((e, _)) => cur = e; i += 1
        case None => complete = false
      }
    }
    // A primitive leaf is read through its leaves (see LeafParts), as its typed_value alone
    // where the residual is null everywhere; a level of nothing but a residual (a path Spark's
    // writer left untyped) as that binary, which a vectorized scan hands on as a plain column.
    val leafPlace = if (cur eq root) cur else typedLeaf(cur) match {
      case Some((typed, None)) => TypedOnly(typed)
      case Some((typed, Some(untyped))) => LeafParts(cur.dataType.asInstanceOf[StructType], typed, untyped)
      case _ => residualOnly(cur).getOrElse(cur)
    }
    if (complete) places.prepend(leafPlace -> Nil)
    val dictionary = Some(LevelShape.ordinal(rootType, SpecLayout.Metadata))
      .filter(_ >= 0 && places.exists(p => decodes(p._1.dataType)))
      .map(part(root, rootType, _))
    val slow = ShreddedVariantGet(places.map(_._1).toSeq ++ dictionary ++ groupChecks.map(_._2),
      places.map(_._2).toSeq, targetType, failOnError, column, path, timeZoneId,
      withDictionary = dictionary.isDefined, spec = spec,
      shreddedFieldsWin = spec && targetType.isInstanceOf[StructType] && pushesIntoScan,
      nullGroupChecks = groupChecks.map(_._1).toSeq)
    val leaf = if (complete && targetType != VariantType) typedLeaf(leafPlace) else None
    leaf.flatMap { case (typed, untyped) =>
      val cond = untyped.map(u => And(IsNotNull(typed), IsNull(u))).getOrElse(IsNotNull(typed))
      if (typed.dataType == targetType) Some(If(cond, typed, slow))
      else castOfTyped(typed, targetType, timeZoneId).map { cast =>
        // A null cast of a non-null value is a failed cast: the general read raises its error.
        If(cond, if (failOnError) Coalesce(Seq(cast, slow)) else cast, slow)
      }
    }.getOrElse(slow)
  }

  /** A path's segments as text, `$.a[0].b`, for errors. */
  private def pathText(segments: Seq[VariantPathSegment]): String = "$" + segments.map {
    case ObjectExtraction(key) => s".$key"
    case ArrayExtraction(index) => s"[$index]"
  }.mkString

  /**
   * Spark's `spark.sql.variant.pushVariantIntoScan`: with it on, stock Spark reads a variant cast
   * to a struct field by field in its scan, so a shredded field wins over a copy in the residual
   * (see [[ShreddedVariantGet]]); with it off it rebuilds the value, which rejects the copy.
   */
  private def pushesIntoScan: Boolean =
    scala.util.Try(org.apache.spark.sql.internal.SQLConf.get
      .getConfString("spark.sql.variant.pushVariantIntoScan")).toOption.exists(_.trim.equalsIgnoreCase("true"))

  /**
   * `VariantGet.cast` of a non-null typed value, as a plain Spark cast where that is the same
   * thing. Spark's variant cast turns the value into a literal of the variant's type (every
   * integer a bigint; a decimal at its own precision and scale) and applies `Cast` in TRY mode,
   * except for numbers to timestamps. So an integer column widened to bigint and cast in TRY mode
   * gives the same result; a decimal does too except to strings (the text keeps the column's
   * scale) and timestamps. Other types cast as themselves. A raw leaf ([[RawTypedValue]]) is not
   * the type its physical value has, so it always takes the general read.
   */
  private def castOfTyped(typed: Expression, to: DataType, tz: Option[String]): Option[Expression] = {
    if (typed.dataType.isInstanceOf[RawTypedValue]) return None
    val input = typed.dataType match {
      case ByteType | ShortType | IntegerType => Cast(typed, LongType)
      case _ => typed
    }
    val excluded = to match {
      case TimestampType => input.dataType == LongType || input.dataType.isInstanceOf[DecimalType]
      case _: StringType => input.dataType.isInstanceOf[DecimalType]
      case _ => false
    }
    val scalar = to match {
      case _: StructType | _: ArrayType | _: MapType | VariantType => false
      case _ => true
    }
    if (excluded || !scalar || !Cast.canAnsiCast(input.dataType, to)) None
    else Some(Cast(input, to, tz, EvalMode.TRY))
  }

  /**
   * The primitive `typed_value` and the residual of a level that ends in a primitive. There the
   * common case is a plain column read that Spark compiles (the general read only runs for rows
   * where the value is not there), and typed statistics can skip row groups
   * ([[ShreddedSkipPredicates]]).
   */
  def typedLeaf(level: Expression): Option[(Expression, Option[Expression])] =
    (level, level.dataType) match {
      case (TypedOnly(typed), _) => Some(typed -> None)
      case (LeafParts(typed, untyped), _) => Some(typed -> Some(untyped))
      case (_, s: StructType) =>
        val shape = LevelShape.of(s)
        Some(shape).filter(sh => sh.isLeaf && sh.primitive >= 0).map(sh =>
          part(level, s, sh.primitive) -> residual(s).map(part(level, s, _)))
      case _ => None
    }

  /**
   * A primitive level of just its `typed_value`: null where the value is null (a missing value,
   * as for a level read whole), else a struct of it.
   */
  object TypedOnly {
    def apply(typed: Expression): Expression = {
      val level = CreateNamedStruct(Seq(Literal(DraftLayout.Typed), typed))
      If(IsNull(typed), Literal(null, level.dataType), level)
    }

    def unapply(e: Expression): Option[Expression] = e match {
      case IfOf(IsNull(t), Literal(null, _), CreateNamedStruct(Seq(Literal(_, _), typed))) if t == typed =>
        Some(typed)
      case _ => None
    }
  }

  /**
   * A primitive level rebuilt from its `typed_value` and residual: null where both are null (the
   * value is missing there, as for the level read whole), else a struct of the two. The plan then
   * references the two leaves, not the level, so a vectorized scan hands them on as plain
   * columns (see NestedLeavesAsColumns) and the common case, a typed value, compiles to two
   * column reads; the struct is only built for the rows the general read handles.
   */
  object LeafParts {
    def apply(level: StructType, typed: Expression, untyped: Expression): Expression = {
      val parts = Seq(typed, untyped).sortBy { case StructFieldOf(_, ordinal) => ordinal }
      val struct = CreateNamedStruct(parts.flatMap {
        case g @ StructFieldOf(_, ordinal) => Seq(Literal(level(ordinal).name), g)
      })
      If(And(IsNull(typed), IsNull(untyped)), Literal(null, struct.dataType), struct)
    }

    def unapply(e: Expression): Option[(Expression, Expression)] = e match {
      case IfOf(And(IsNull(t), IsNull(u)), Literal(null, _), CreateNamedStruct(Seq(_, a, _, b)))
          if Set(a, b) == Set(t, u) => Some(t -> u)
      case _ => None
    }
  }

  /**
   * The residual of a level that has no typed part: the same value as the level read whole (a
   * level of only a residual is its residual, and missing where that is null), one column instead
   * of a struct.
   */
  private def residualOnly(level: Expression): Option[Expression] = level.dataType match {
    case s: StructType =>
      val shape = LevelShape.of(s)
      if (shape.primitive >= 0 || shape.obj >= 0 || shape.array >= 0) None
      else residual(s).map(part(level, s, _))
    case _ => None
  }

  /** The ordinal of a level's residual, unless it is absent or null in every file. */
  private def residual(level: StructType): Option[Int] =
    Some(LevelShape.of(level).untyped).filter(u => u >= 0 && !LayoutMarks.isNullEverywhere(level(u)))

  /** True when reading a place may decode a residual binary (so the spec layout's dictionary). */
  private def decodes(t: DataType): Boolean = t match {
    case BinaryType => true
    case s: StructType => s.fields.exists(f => f.dataType match {
      case BinaryType => f.name != SpecLayout.Metadata && !LayoutMarks.isNullEverywhere(f)
      case other => decodes(other)
    })
    case ArrayType(e, _) => decodes(e)
    case _ => false
  }

  /**
   * Whether the variant a shredded struct rebuilds is not SQL NULL, decided by which parts are
   * null, as [[ShreddedLevel.build]] decides it: a spec-layout variant is null exactly when its
   * group is (a group storing nothing holds a variant null); a draft-layout variant also when no
   * part of its top level holds anything (a residual null in every file holds nothing). A null
   * check then reads a leaf or two, not the whole value.
   */
  def isPresent(root: Expression): Expression = {
    val level = root.dataType.asInstanceOf[StructType]
    if (SpecLayout.isSpec(level)) IsNotNull(root) else {
      val shape = LevelShape.of(level)
      (residual(level).toSeq ++ Seq(shape.primitive, shape.obj, shape.array)).filter(_ >= 0)
        .map(o => IsNotNull(part(root, level, o)): Expression)
        .reduceOption(Or(_, _)).getOrElse(Literal.FalseLiteral)
    }
  }

  private def part(e: Expression, s: StructType, ordinal: Int): Expression =
    GetStructField(e, ordinal, Some(s(ordinal).name))
}
