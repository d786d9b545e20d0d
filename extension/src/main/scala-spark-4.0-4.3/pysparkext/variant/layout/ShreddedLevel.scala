package pysparkext.variant.layout

import java.util.{ArrayList => JArrayList, Locale}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}

import pysparkext.variant.ShreddedVariantException
import pysparkext.variant.codec.{RawPrimitive, TypedValue, UntypedValue}

/**
 * One level of a shredded struct, in the draft or the spec layout, as it is actually read
 * (possibly pruned): the ordinals of whichever of its parts are present (see [[LevelShape]]).
 * Absent parts count as always null, as both layouts say. `metadata` is the ordinal of the spec
 * layout's top-level dictionary, -1 elsewhere.
 */
final case class ShreddedLevel(
    width: Int,
    metadata: Int,
    untyped: Int,
    typed: Int,
    typedType: DataType,
    objectOrdinal: Int,
    fields: IndexedSeq[(String, ShreddedLevel)],
    shreddedEverywhere: Set[String],
    arrayOrdinal: Int,
    element: ShreddedLevel,
    spec: Boolean) {

  /** Whether the row's value is in this level's residual alone (every shredded part null). */
  def residualOnly(row: InternalRow): Boolean =
    untyped >= 0 && !row.isNullAt(untyped) && (typed < 0 || row.isNullAt(typed)) &&
      (objectOrdinal < 0 || row.isNullAt(objectOrdinal)) && (arrayOrdinal < 0 || row.isNullAt(arrayOrdinal))

  /** Names of this layout's parts, for errors (the spec layout's objects and arrays are typed_value). */
  private def residualName: String = if (spec) SpecLayout.Value else DraftLayout.Untyped
  private def shreddedName(draft: String): String = if (spec) DraftLayout.Typed else draft

  /**
   * Appends this level's value to `b`, by the proposal's ConstructVariant (`docs/draft-layout.md`).
   * Returns false when the value is missing (every field null), so an object can leave the key out. `dictionary` is the
   * spec layout's metadata (null for the draft layout, whose residuals carry their own).
   */
  def append(
      b: VariantBuilder,
      row: InternalRow,
      column: String,
      path: String,
      dictionary: Array[Byte]): Boolean = {
    val typedWins = spec && objectOrdinal < 0 &&
      ((arrayOrdinal >= 0 && !row.isNullAt(arrayOrdinal)) || (typed >= 0 && !row.isNullAt(typed)))
    val untypedValue =
      if (!typedWins && untyped >= 0 && !row.isNullAt(untyped)) {
        UntypedValue.decode(row.getBinary(untyped), dictionary, column, path)
      } else null
    if (objectOrdinal >= 0 && !row.isNullAt(objectOrdinal)) {
      appendObject(b, row.getStruct(objectOrdinal, fields.length), untypedValue, column, path,
        dictionary)
      true
    } else if (arrayOrdinal >= 0 && !row.isNullAt(arrayOrdinal)) {
      // The spec forbids writers to set both, and leaves readers free to fail or to take
      // typed_value; Spark takes typed_value, so the spec layout does too (the draft fails).
      if (untypedValue != null && !spec) {
        throw ShreddedVariantException.inRow(column, path,
          s"both ${shreddedName(DraftLayout.Array)} and $residualName are non-null; " +
            "at most one may be")
      }
      val items = row.getArray(arrayOrdinal)
      val start = b.getWritePos
      val offsets = new JArrayList[Integer](items.numElements())
      var i = 0
      while (i < items.numElements()) {
        offsets.add(b.getWritePos - start)
        val present = !items.isNullAt(i) &&
          element.append(b, items.getStruct(i, element.width), column, s"$path[$i]", dictionary)
        if (!present) b.appendNull()
        i += 1
      }
      b.finishWritingArray(start, offsets)
      true
    } else if (typed >= 0 && !row.isNullAt(typed)) {
      if (untypedValue != null && !spec) {
        throw ShreddedVariantException.inRow(column, path,
          s"both typed_value and $residualName are non-null; at most one may be")
      }
      TypedValue.append(b, typedType, row.get(typed, typedType), keepScale = spec)
      true
    } else if (untypedValue != null) {
      RawPrimitive.appendResidual(b, untypedValue)
      true
    } else {
      false
    }
  }

  private def appendObject(
      b: VariantBuilder,
      obj: InternalRow,
      residual: Variant,
      column: String,
      path: String,
      dictionary: Array[Byte]): Unit = {
    if (residual != null && residual.getType != VariantUtil.Type.OBJECT) {
      throw ShreddedVariantException.inRow(column, path,
        s"${shreddedName(DraftLayout.Object)} is non-null but $residualName holds a " +
          s"${residual.getType.toString.toLowerCase(Locale.ROOT)}, not an object of the remaining fields")
    }
    val start = b.getWritePos
    val entries = new JArrayList[VariantBuilder.FieldEntry]()
    // A field whose shredded group is empty is read from the residual, as ConstructObject says:
    // with per-file schemas merged, a field shredded in one file lives in another's residual.
    val present = scala.collection.mutable.HashSet.empty[String]
    var i = 0
    while (i < fields.length) {
      val (name, level) = fields(i)
      if (obj.isNullAt(i) && spec && shreddedEverywhere.contains(name)) {
        // The spec's shredded field groups are required: a null one is not a missing field (that
        // is a group of two nulls). A field some files lack is null there, so only a field every
        // file shreds is checked. Spark raises MALFORMED_VARIANT here.
        throw ShreddedVariantException.inRow(column, s"$path.$name", ShreddedLevel.NullFieldGroup)
      }
      if (!obj.isNullAt(i)) {
        val id = b.addKey(name)
        val offset = b.getWritePos - start
        if (level.append(b, obj.getStruct(i, level.width), column, s"$path.$name", dictionary)) {
          entries.add(new VariantBuilder.FieldEntry(name, id, offset))
          present += name
        }
      }
      i += 1
    }
    if (residual != null) {
      var j = 0
      while (j < residual.objectSize()) {
        val field = residual.getFieldAtIndex(j)
        if (present.contains(field.key) || shreddedEverywhere.contains(field.key)) {
          throw ShreddedVariantException.inRow(column, path,
            s"field '${field.key}' is both shredded and in the residual")
        }
        val id = b.addKey(field.key)
        entries.add(new VariantBuilder.FieldEntry(field.key, id, b.getWritePos - start))
        b.appendVariant(field.value)
        j += 1
      }
    }
    b.finishWritingObject(start, entries)
  }
}

object ShreddedLevel {
  /** What is wrong where a spec-layout field group is null (rebuilding the value, or a path read). */
  val NullFieldGroup: String = "the shredded field's group is null; a missing field has a non-null " +
    "group whose value and typed_value are both null"

  /**
   * Compiles the shape of a (possibly pruned) shredded struct type; `spec` says which layout
   * (a pruned level alone cannot always tell).
   */
  def of(t: DataType, spec: Boolean): ShreddedLevel = t match {
    case s: StructType =>
      val shape = LevelShape.of(s)
      val objectFields = if (shape.obj < 0) IndexedSeq.empty else s(shape.obj).dataType match {
        case o: StructType => o.fields.toIndexedSeq
        case _ => IndexedSeq.empty
      }
      val fields = objectFields.map(f => f.name -> of(f.dataType, spec))
      // A key that every file shreds must never be in the residual as well.
      val everywhere = objectFields.filter(LayoutMarks.isShreddedEverywhere).map(_.name).toSet
      val element = if (shape.array < 0) null else s(shape.array).dataType match {
        case ArrayType(e, _) => of(e, spec)
        case _ => null
      }
      ShreddedLevel(s.length, LevelShape.ordinal(s, SpecLayout.Metadata), shape.untyped,
        shape.primitive, if (shape.primitive < 0) NullType else s(shape.primitive).dataType,
        shape.obj, fields, everywhere, shape.array, element, spec)
    case other => throw new IllegalArgumentException(s"not a shredded level: ${other.sql}")
  }

  /** The spec layout's dictionary of a top-level row, or null for the draft layout. */
  def dictionary(level: ShreddedLevel, row: InternalRow, column: String): Array[Byte] =
    if (level.metadata < 0) null
    else if (row.isNullAt(level.metadata)) {
      throw ShreddedVariantException.inRow(column, "$", "metadata is null in a non-null variant")
    } else row.getBinary(level.metadata)

  /** Rebuilds the whole variant of a top-level row (see [[build]]). */
  def reconstruct(level: ShreddedLevel, row: InternalRow, column: String): Variant =
    build(level, row, column, "$", dictionary(level, row, column))

  /**
   * The variant a level holds. Where nothing is stored the draft layout's value is missing
   * (null); at the spec layout's top level (the one with `metadata`) it is a variant null.
   */
  def build(
      level: ShreddedLevel,
      row: InternalRow,
      column: String,
      path: String,
      dictionary: Array[Byte]): Variant =
    if (level.residualOnly(row)) {
      // The residual is the whole value; decoding validates it, and rebuilding it would only copy.
      UntypedValue.decode(row.getBinary(level.untyped), dictionary, column, path)
    } else {
      val b = new VariantBuilder(false)
      if (level.append(b, row, column, path, dictionary)) b.result()
      else if (level.metadata >= 0) { b.appendNull(); b.result() }
      else null
    }
}
