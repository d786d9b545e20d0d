package pysparkext.variant.layout

import org.apache.spark.sql.types._

/**
 * Marks, in a shredded struct's field metadata, what analysis learnt from every file's footer, so
 * that the rules after it read no more than the files need. Both layouts carry them: the relation
 * column that holds the shredded struct, the object fields and arrays every file shreds, and the
 * residuals no file holds a value in.
 */
object LayoutMarks {
  /** Marks a relation column that already holds the draft struct, so analysis never redoes it. */
  val MarkerKey = "pyspark_ext.draft_variant"

  /**
   * Marks each object field and array that every file of a group shreds. A valid writer puts
   * an object into its object part (the residual only holds fields the object does not shred:
   * the proposal's rule, and the spec's "shredded fields in typed_value are not present in value"),
   * and the proposal's writer an array into `array`, so for a marked step the shallower residual
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
          val inFiles = objects.flatMap(_.find(_.name == c.name))
          val having = inFiles.map(_.dataType).collect { case l: StructType => l }
          val everywhere = objects.length == files.length && having.length == files.length
          val required = everywhere && inFiles.forall(_.metadata.contains(RequiredInFile))
          val unflagged = c.copy(metadata = new MetadataBuilder().withMetadata(c.metadata)
            .remove(RequiredInFile).build())
          val flagged = if (required) withFlag(unflagged, RequiredEverywhere) else unflagged
          val marked = if (everywhere) withFlag(flagged, ShreddedEverywhere) else flagged
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
   * Marks a spec-layout object field whose group every file declares required (as Spark's writer
   * does): it is never null, so a path read need not check it (see ShreddedPaths). One file's
   * validated type carries [[RequiredInFile]]; [[markShreddedEverywhere]] turns it into this.
   */
  val RequiredEverywhere = "pyspark_ext.required_in_every_file"
  val RequiredInFile = "pyspark_ext.required_in_file"

  def isRequiredEverywhere(f: StructField): Boolean = f.metadata.contains(RequiredEverywhere)

  def requiredInFile(f: StructField, required: Boolean): StructField =
    if (required) withFlag(f, RequiredInFile) else f

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

  def mark(f: StructField): StructField = withFlag(f, MarkerKey)

  def isMarked(f: StructField): Boolean = f.metadata.contains(MarkerKey)
}
