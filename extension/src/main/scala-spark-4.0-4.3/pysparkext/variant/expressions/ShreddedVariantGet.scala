package pysparkext.variant.expressions

import java.time.ZoneId
import java.util.Locale

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, GenericInternalRow, TimeZoneAwareExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.variant.{VariantCastArgs, VariantGet, VariantPathSegment}
import org.apache.spark.sql.types.{BinaryType, DataType, Decimal, DecimalType, StructType, VariantType}
import org.apache.spark.types.variant.{Variant, VariantUtil}
import org.apache.spark.unsafe.types.VariantVal

import pysparkext.codegen.MethodCallCodegen
import pysparkext.variant.ShreddedVariantException
import pysparkext.variant.codec.{RawPrimitive, ScalarCast, TypedValue, UntypedValue}
import pysparkext.variant.layout.ShreddedLevel

/**
 * `variant_get` of one path of a shredded variant (draft or spec layout), reading only the columns
 * on that path.
 *
 * Each child is a place the value can be, deepest first (see [[ShreddedPaths]]): the shredded level
 * at the end of the path (a struct), then the `untyped_value` of each shallower level with the
 * rest of the path still to apply. The first non-null place decides the result. That is exact for
 * valid data: a shredded field never appears in its object's residual, so a shallower residual
 * that holds a value means every deeper place was empty.
 *
 * Values are cast by Spark's own `VariantGet.cast`, with the original expression's error mode and
 * time zone, so results and errors match decoding the whole variant.
 *
 * In the spec layout (`spec`) residuals hold value bytes only; `withDictionary` says the last
 * child is the column's `metadata`, which decodes them. A read whose every residual is null in
 * every file (see [[LayoutMarks.markNullEverywhere]]) decodes none and goes without it.
 *
 * `nullGroupChecks` names, for each spec-layout object step of the path whose field group may be
 * null in a file, the path to that field; its child (after the places and the dictionary) is true
 * where the enclosing object (the step's `typed_value`) is non-null but the field's group is
 * null. The spec requires the group (a missing field is a group of two nulls), so that is a
 * malformed file: the read fails as rebuilding the whole value does, where a null group would
 * otherwise read as a missing field. A null enclosing object (the value is no object there) is
 * valid and reads on.
 */
case class ShreddedVariantGet(
    children: Seq[Expression],
    remainingPaths: Seq[Seq[VariantPathSegment]],
    targetType: DataType,
    failOnError: Boolean,
    column: String,
    path: String,
    timeZoneId: Option[String] = None,
    withDictionary: Boolean = false,
    spec: Boolean = false,
    shreddedFieldsWin: Boolean = false,
    nullGroupChecks: Seq[String] = Nil)
  extends Expression with TimeZoneAwareExpression {

  private def places: Int =
    children.length - nullGroupChecks.length - (if (withDictionary) 1 else 0)

  /** The children that are places the value can be (without the spec layout's dictionary). */
  def placeChildren: Seq[Expression] = children.take(places)

  @transient private lazy val levels: IndexedSeq[ShreddedLevel] = children.toIndexedSeq.map { c =>
    c.dataType match {
      case s: StructType => ShreddedLevel.of(s, spec)
      case _ => null
    }
  }
  @transient private lazy val segments: IndexedSeq[Array[VariantPathSegment]] =
    remainingPaths.toIndexedSeq.map(_.toArray)
  @transient private lazy val castArgs = VariantCastArgs(failOnError, timeZoneId, zoneId)
  @transient private lazy val fromString = ScalarCast.fromString(targetType, timeZoneId).orNull

  override def dataType: DataType = targetType
  override def nullable: Boolean = true
  override def prettyName: String = if (failOnError) "shredded_variant_get" else "try_shredded_variant_get"
  override def toString: String = s"$prettyName(${children.mkString(", ")}, $path, ${targetType.sql})"

  override def withTimeZone(timeZoneId: String): ShreddedVariantGet =
    copy(timeZoneId = Option(timeZoneId))

  override def eval(input: InternalRow): Any = {
    val values = new Array[Any](children.length)
    var i = 0
    while (i < children.length) { values(i) = children(i).eval(input); i += 1 }
    evalValues(values)
  }

  /** The answer from the children's values; generated code evaluates them and calls this. */
  def evalValues(values: Array[Any]): Any = {
    if (nullGroupChecks.nonEmpty) checkGroups(values)
    val direct = scalarResidual(values)
    if (direct != null) direct
    else if (compactDecimals) compact(answer(values)) else answer(values)
  }

  /** Fails where a check finds a null field group inside a non-null object (see the class doc). */
  private def checkGroups(values: Array[Any]): Unit = {
    val first = children.length - nullGroupChecks.length
    var i = 0
    while (i < nullGroupChecks.length) {
      if (values(first + i) == true) {
        throw ShreddedVariantException.inRow(column, nullGroupChecks(i), ShreddedLevel.NullFieldGroup)
      }
      i += 1
    }
  }

  /**
   * Where the value is a spec-layout residual that is a plain integer or small decimal (a path
   * Spark's writer left untyped: every row), the answer read from its bytes, which is what
   * [[answer]] would return, long-backed decimals included; null where [[answer]] must decide.
   */
  private def scalarResidual(values: Array[Any]): Any = {
    if (!withDictionary || values(places) == null) return null
    var i = 0
    while (i < places && values(i) == null) i += 1
    if (i == places || !residualPlaces(i) || segments(i).nonEmpty) null
    else ScalarCast.fromValueBytes(values(i).asInstanceOf[Array[Byte]], targetType)
  }

  @transient private lazy val residualPlaces: Array[Boolean] =
    children.take(places).map(_.dataType == BinaryType).toArray

  @transient private lazy val compactDecimals = targetType match {
    case d: DecimalType => d.precision <= Decimal.MAX_LONG_DIGITS
    case _ => false
  }

  /**
   * A decimal cast from a variant (or from text) holds a BigDecimal. Equal as a value, but once
   * added into an aggregate's buffer it keeps every later addition in BigDecimal arithmetic, so
   * one fallback row would slow a whole `sum` several times over. Decimals that fit a long are
   * returned long-backed, as a Parquet column read returns them.
   */
  private def compact(v: Any): Any = v match {
    case d: Decimal if d.precision <= Decimal.MAX_LONG_DIGITS =>
      Decimal.createUnsafe(d.toUnscaledLong, d.precision, d.scale)
    case other => other
  }

  private def answer(values: Array[Any]): Any = {
    val dictionary = if (withDictionary) values(places).asInstanceOf[Array[Byte]] else null
    var i = 0
    while (i < places) {
      val value = values(i)
      if (value != null) {
        if (withDictionary && dictionary == null) {
          throw ShreddedVariantException.inRow(column, path, "metadata is null in a non-null variant")
        }
        val variant = children(i).dataType match {
          case BinaryType =>
            UntypedValue.decode(value.asInstanceOf[Array[Byte]], dictionary, column, path)
          case _ => fromLevel(levels(i), value.asInstanceOf[InternalRow], dictionary) match {
            case Left(direct) => return direct
            case Right(v) => v
          }
        }
        if (variant != null) {
          // A primitive Spark has no type for goes to Spark's cast, which fails on it as on the
          // unshredded value.
          if (segments(i).isEmpty && RawPrimitive.knownToSpark(variant)) {
            val direct = ScalarCast.exact(variant, targetType)
            if (direct.isDefined) return direct.get
            if (fromString != null && variant.getType == VariantUtil.Type.STRING) {
              val cast = fromString(variant)
              if (cast != null) return cast
            }
          }
          return VariantGet.variantGet(
            new VariantVal(variant.getValue, variant.getMetadata), segments(i), targetType, castArgs)
        }
      }
      i += 1
    }
    null
  }

  /** Left: the answer read straight from `typed_value`; Right: the level's variant, or null. */
  private def fromLevel(
      level: ShreddedLevel,
      row: InternalRow,
      dictionary: Array[Byte]): Either[Any, Variant] = {
    if (shreddedFieldsWin && targetType.isInstanceOf[StructType] && level.objectOrdinal >= 0 &&
        !row.isNullAt(level.objectOrdinal)) {
      return Left(asStruct(level, row, targetType.asInstanceOf[StructType], path, dictionary))
    }
    val typedOnly = level.objectOrdinal < 0 && level.arrayOrdinal < 0 && level.typed >= 0 &&
      !row.isNullAt(level.typed) && (level.untyped < 0 || row.isNullAt(level.untyped))
    if (typedOnly && level.typedType == targetType) {
      Left(row.get(level.typed, targetType))
    } else if (typedOnly && targetType != VariantType) {
      Left(VariantGet.cast(TypedValue.toVariant(level.typedType, row.get(level.typed, level.typedType),
        keepScale = spec),
        targetType, castArgs))
    } else {
      Right(ShreddedLevel.build(level, row, column, path, dictionary))
    }
  }

  /**
   * A shredded object read as a struct the way Spark reads it when it pushes the cast into its
   * scan (`spark.sql.variant.pushVariantIntoScan`): each struct field that the object shreds
   * comes from its shredded group alone (a group of two nulls is a missing field: null), any
   * other from the residual object. The residual is not checked for copies of shredded fields,
   * as Spark's scan does not check it; rebuilding the whole value (push-down off) does, and fails.
   */
  private def asStruct(
      level: ShreddedLevel,
      row: InternalRow,
      target: StructType,
      at: String,
      dictionary: Array[Byte]): InternalRow = {
    val obj = row.getStruct(level.objectOrdinal, level.fields.length)
    lazy val residual: Variant =
      if (level.untyped < 0 || row.isNullAt(level.untyped)) null else {
        val r = UntypedValue.decode(row.getBinary(level.untyped), dictionary, column, at)
        if (r.getType != VariantUtil.Type.OBJECT) {
          throw ShreddedVariantException.inRow(column, at,
            s"typed_value is an object but value holds a ${r.getType.toString.toLowerCase(Locale.ROOT)}, " +
              "not an object of the remaining fields")
        }
        r
      }
    val out = new GenericInternalRow(target.length)
    var i = 0
    while (i < target.length) {
      val f = target.fields(i)
      val ord = level.fields.indexWhere(_._1 == f.name)
      val shredded = ord >= 0 && (!obj.isNullAt(ord) || level.shreddedEverywhere.contains(f.name))
      if (shredded) {
        val fieldPath = s"$at.${f.name}"
        if (obj.isNullAt(ord)) {
          throw ShreddedVariantException.inRow(column, fieldPath, "the shredded field's group is null")
        }
        val fieldLevel = level.fields(ord)._2
        val group = obj.getStruct(ord, fieldLevel.width)
        out.update(i, f.dataType match {
          case s: StructType if fieldLevel.objectOrdinal >= 0 && !group.isNullAt(fieldLevel.objectOrdinal) =>
            asStruct(fieldLevel, group, s, fieldPath, dictionary)
          case t =>
            val v = ShreddedLevel.build(fieldLevel, group, column, fieldPath, dictionary)
            if (v == null) null
            else VariantGet.cast(v, t, castArgs)
        })
      } else if (residual != null) {
        val v = residual.getFieldByKey(f.name)
        if (v != null) out.update(i, VariantGet.cast(v, f.dataType, castArgs))
      }
      i += 1
    }
    out
  }

  // Generated code evaluates the children and calls evalValues, so a plan holding this
  // expression keeps whole-stage code generation (a CodegenFallback would switch it off).
  override def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    MethodCallCodegen.callWithChildren(ctx, ev, this, "evalValues", children, dataType)

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): ShreddedVariantGet =
    copy(children = newChildren)
}
