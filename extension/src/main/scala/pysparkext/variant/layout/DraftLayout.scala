package pysparkext.variant.layout

import org.apache.spark.sql.types._

import pysparkext.variant.ShreddedVariantException

/**
 * The seed's draft shredding layout (written up in `docs/draft-layout.md`). Every level of a shredded variant is a group of
 * `untyped_value` (binary: metadata then value) and at most one of `typed_value` (a primitive),
 * `object` (a group of named levels) or `array` (a LIST of levels). Names starting with `_` are
 * reserved for compatible extensions and ignored; any other name makes the group unreadable.
 */
object DraftLayout {
  val Untyped = "untyped_value"
  val Typed = "typed_value"
  val Object = "object"
  val Array = "array"
  val Names: Set[String] = Set(Untyped, Typed, Object, Array)

  /** Marks a relation column that already holds the draft struct, so analysis never redoes it. */
  val MarkerKey = "pyspark_ext.draft_variant"

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

  /**
   * Merges two files' draft types so one read schema serves both: fields missing from a file read
   * as null, which the layout defines as "not shredded here". None when a leaf differs in type;
   * such files must be read separately.
   */
  def merge(a: DataType, b: DataType): Option[DataType] = (a, b) match {
    case (x: StructType, y: StructType) if isSpecLevel(x).zip(isSpecLevel(y)).exists { case (p, q) => p != q } => None
    case (x: StructType, y: StructType) =>
      val names = (x.fieldNames ++ y.fieldNames).distinct
      val merged = names.map { n =>
        (x.find(_.name == n), y.find(_.name == n)) match {
          case (Some(f), Some(g)) => merge(f.dataType, g.dataType).map(t => f.copy(dataType = t))
          case (Some(f), None) => Some(f)
          case (None, Some(g)) => Some(g)
          case _ => None
        }
      }
      if (merged.forall(_.isDefined)) Some(StructType(merged.map(_.get).toSeq)) else None
    case (ArrayType(x, n), ArrayType(y, m)) => merge(x, y).map(ArrayType(_, n || m))
    case (x, y) if x == y => Some(x)
    case _ => None
  }

  /**
   * Marks each object field and array that every file of a group shreds. A valid writer puts
   * an object into its object part (the residual only holds fields the object does not shred:
   * the seed's rule, and the spec's "shredded fields in typed_value are not present in value"),
   * and the seed's writer an array into `array`, so for a marked step the shallower residual
   * cannot hold the path and need not be read. A field shredded in only some files stays
   * unmarked: the other files keep it in their residual. Spec-layout arrays are never marked:
   * the spec does not forbid an array in `value` beside a LIST `typed_value`.
   */
  def markShreddedEverywhere(merged: StructType, files: Seq[StructType]): StructType = {
    val shape = LevelShape.of(merged)
    val spec = merged.fieldNames.contains(SpecLayout.Value)
    def part(level: StructType, pick: LevelShape => Int): Option[DataType] =
      Some(pick(LevelShape.of(level))).filter(_ >= 0).map(level(_).dataType)
    StructType(merged.fields.zipWithIndex.map {
      case (f, i) if i == shape.obj =>
        val objects = files.flatMap(part(_, _.obj)).collect { case o: StructType => o }
        val fields = f.dataType.asInstanceOf[StructType].fields.map { c =>
          val having = objects.flatMap(_.find(_.name == c.name)).map(_.dataType)
            .collect { case l: StructType => l }
          val everywhere = objects.length == files.length && having.length == files.length
          val marked = if (everywhere) withFlag(c, ShreddedEverywhere) else c
          marked.copy(dataType = markShreddedEverywhere(c.dataType.asInstanceOf[StructType], having))
        }
        f.copy(dataType = StructType(fields))
      case (f, i) if i == shape.array =>
        val arrays = files.flatMap(part(_, _.array)).collect { case ArrayType(e: StructType, _) => e }
        val ArrayType(e: StructType, n) = f.dataType
        val marked = if (arrays.length == files.length && !spec) withFlag(f, ShreddedEverywhere) else f
        marked.copy(dataType = ArrayType(markShreddedEverywhere(e, arrays), n))
      case (f, _) => f
    })
  }

  val ShreddedEverywhere = "pyspark_ext.shredded_in_every_file"

  /**
   * Marks each residual (`untyped_value` or `value`, outside arrays) that holds no value in any
   * row of any file of a group: the file lacks it, or its row-group statistics count only nulls
   * (`nullResiduals`, paths from the column root). A path read then never reads such a column,
   * and need not read the spec layout's `metadata` either when it decodes no residual at all.
   * `files` pairs each file's own stored type (None: the file lacks the column) with its null
   * residuals.
   */
  def markNullEverywhere(
      merged: StructType,
      files: Seq[(Option[StructType], Set[Seq[String]])]): StructType = {
    def has(t: Option[StructType], path: Seq[String]): Boolean = (t, path) match {
      case (Some(s), Seq(last)) => s.fieldNames.contains(last)
      case (Some(s), head +: rest) => s.find(_.name == head).map(_.dataType) match {
        case Some(c: StructType) => has(Some(c), rest)
        case _ => false
      }
      case _ => false
    }
    def level(s: StructType, at: Seq[String]): StructType = {
      val shape = LevelShape.of(s)
      StructType(s.fields.zipWithIndex.map {
        case (f, i) if i == shape.untyped =>
          val path = at :+ f.name
          if (files.forall { case (t, nulls) => !has(t, path) || nulls.contains(path) }) {
            withFlag(f, NullEverywhere)
          } else f
        case (f, i) if i == shape.obj => f.copy(dataType = StructType(
          f.dataType.asInstanceOf[StructType].fields.map(c => c.dataType match {
            case l: StructType => c.copy(dataType = level(l, at :+ f.name :+ c.name))
            case _ => c
          })))
        case (f, _) => f
      })
    }
    level(merged, Nil)
  }

  val NullEverywhere = "pyspark_ext.null_in_every_file"

  def isNullEverywhere(f: StructField): Boolean = f.metadata.contains(NullEverywhere)

  def isShreddedEverywhere(f: StructField): Boolean = f.metadata.contains(ShreddedEverywhere)

  private def withFlag(f: StructField, key: String): StructField =
    f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putBoolean(key, true).build())

  /** A level of the spec layout (`value`), not the draft's (`untyped_value`); object fields of
   * neither kind (a level with only a typed part) match either. */
  private def isSpecLevel(s: StructType): Option[Boolean] =
    if (s.fieldNames.contains(SpecLayout.Value) || s.fieldNames.contains(SpecLayout.Metadata)) Some(true)
    else if (s.fieldNames.contains(Untyped) || s.fieldNames.contains(Object) || s.fieldNames.contains(Array)) Some(false)
    else None

  /** The position of a field by exact name, or -1. */
  def ordinal(s: StructType, name: String): Int = s.fieldNames.indexOf(name)

  def mark(f: StructField): StructField = withFlag(f, MarkerKey)

  def isMarked(f: StructField): Boolean = f.metadata.contains(MarkerKey)
}
