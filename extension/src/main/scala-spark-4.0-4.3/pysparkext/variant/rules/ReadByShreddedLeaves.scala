package pysparkext.variant.rules

import java.io.IOException

import org.apache.hadoop.fs.{FileStatus, Path}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Expression, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project, Union}
import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.pysparkext.{DataError, SparkInternals}
import org.apache.spark.sql.types.{DataType, StructField, StructType, VariantType}

import pysparkext.ExtConf
import pysparkext.formats.DeltaScans
import pysparkext.parquet.{FileTolerance, FooterSchemas, ListedFilesParquetFormat}
import pysparkext.variant.ShreddedVariantException
import pysparkext.variant.expressions.{RebuildShreddedStruct, ReconstructShreddedVariant}
import pysparkext.variant.format.VariantGroupsAsStructsParquetFormat
import pysparkext.variant.layout.{DraftLayout, FileGroups, LayoutMarks, SpecLayout}
import pysparkext.variant.layout.FileGroups.{Absent, ReadBySpark, Shredded, Stored}

/**
 * Reads a Parquet file relation with its variant columns by their shredded leaves: reads every
 * file's footer, groups the files by how they store the columns, and presents each column as
 * VARIANT (or a struct holding VARIANT fields as that struct) over its physical struct, as
 * [[ResolveShreddedVariantRelations]] describes. Shared by that rule, for the Parquet and Delta
 * relations it finds at analysis, and by [[ReadIcebergVariantFiles]], for the Parquet relation it
 * makes of an Iceberg relation's files in the optimizer.
 */
class ReadByShreddedLeaves(session: SparkSession) extends Logging {
  import ReadByShreddedLeaves.tableLabel

  private def leave(fs: HadoopFsRelation, table: Option[String], reason: String): Unit =
    DeltaScans.leaveToDelta(tableLabel(fs, table), "the shredded variant reads", reason)

  /** The type at `path` of `schema`, names matched as `exact` says. */
  private def typeAt(schema: StructType, path: Seq[String], exact: Boolean): Option[DataType] = {
    val f = schema.fields.find(f => if (exact) f.name == path.head else f.name.equalsIgnoreCase(path.head))
    (f.map(_.dataType), path.tail) match {
      case (t, Seq()) => t
      case (Some(s: StructType), rest) => typeAt(s, rest, exact)
      case _ => None
    }
  }

  private def declared(fs: HadoopFsRelation, c: Seq[String]): DataType =
    typeAt(fs.dataSchema, c, exact = true).get

  /**
   * Per file, per candidate column: how the file stores it. Spark's encoding is read by us as the
   * spec layout's struct when any file of the relation shreds a top-level column in the spec layout
   * (switch: [[ExtConf.SpecVariant]]); the scan then reads every candidate's variant group as a
   * struct, so all of them must be. Otherwise Spark's reader keeps it. A VARIANT inside an array or
   * a map stays VARIANT in that scan and is read by Spark
   * ([[pysparkext.variant.layout.NestedVariants]]), so it never keeps the other columns from being
   * read by their leaves.
   */
  private def layouts(
      fs: HadoopFsRelation,
      columns: Seq[Seq[String]],
      table: Option[String]): (Seq[(FileStatus, Seq[Stored], Seq[Set[Seq[String]]])], Seq[Path]) = {
    val conf = session.sessionState.newHadoopConfWithOptions(fs.options)
    val files = fs.location.listFiles(Nil, Nil).flatMap(_.files).map(_.fileStatus)
    val tolerance = FileTolerance.of(fs.options)
    val unread = scala.collection.mutable.ArrayBuffer.empty[Path]
    val schemas = files.map { status =>
      // A footer Spark cannot convert (say a nanosecond timestamp inside typed_value) fails the
      // query as Spark's reader would, but naming the file.
      status -> (try FooterSchemas.of(status, conf) catch {
        case e @ (_: org.apache.spark.sql.AnalysisException | _: UnsupportedOperationException) =>
          throw new ShreddedVariantException(status.getPath.toString,
            columns.map(c => label(table, c)).mkString(", "), "",
            s"Spark cannot read this file's Parquet schema: ${e.getMessage}")
        // A footer that cannot be read at all (a damaged or vanished file) under Spark's
        // ignoreCorruptFiles or ignoreMissingFiles: planned as a file without the columns, so
        // it shapes no decision, and left to the scan, which skips it as Spark's would (see
        // ListedFilesParquetFormat.UnplannedFiles for a file readable again by then).
        case e @ (_: DataError | _: IOException) if tolerance.skips(e) =>
          logWarning(s"pyspark-ext plans ${tableLabel(fs, table)} without the footer of " +
            s"${status.getPath}, which Spark's scan will skip: ${e.getMessage}")
          unread += status.getPath
          FooterSchemas.FileSchema(new StructType(), Map.empty)
      })
    }
    def stored(schema: FooterSchemas.FileSchema, c: Seq[String]): Option[DataType] =
      typeAt(schema.schema, c, exact = false)
    // Footer facts are per top-level column; a field of a struct takes those under its path.
    def under(c: Seq[String], inside: Seq[String]): Option[Seq[String]] =
      if (inside.length > c.tail.length && inside.zip(c.tail).forall { case (a, b) => a.equalsIgnoreCase(b) }) {
        Some(inside.drop(c.tail.length))
      } else None
    val specShredded = ExtConf.SpecVariant.get &&
      schemas.exists { case (_, schema) =>
        columns.exists(c => declared(fs, c) == VariantType &&
          stored(schema, c).exists(SpecLayout.isShredded))
      }
    val perFile = schemas.map { case (status, schema) =>
      val file = status.getPath.toString
      val nulls = columns.map(c => schema.nullResiduals
        .getOrElse(c.head.toLowerCase(java.util.Locale.ROOT), Set.empty[Seq[String]]).flatMap(under(c, _)))
      (status, columns.map { c =>
        val name = label(table, c)
        def supported(t: StructType): Shredded = {
          // Listed as `s.w.typed_value... is ...; ...` per top-level column: this column's own.
          schema.unsupported.find(_._1.equalsIgnoreCase(c.head)).map(_._2.split("; ").toSeq)
            .map(_.filter(w => under(c, w.split(" ", 2).head.split('.').toSeq.tail).isDefined))
            .filter(_.nonEmpty).foreach { what =>
              throw new ShreddedVariantException(file, name, "", s"typed_value ${what.mkString("; ")}, " +
                "which the variant shredding spec does not allow")
            }
          Shredded(t)
        }
        stored(schema, c) match {
          case Some(t) if DraftLayout.isSparkVariant(t) =>
            if (declared(fs, c) != VariantType) {
              throw new ShreddedVariantException(file, name, "", "this file stores the column " +
                "in Spark's variant encoding (value/metadata) while other files use the draft " +
                "shredded layout; declare the column VARIANT to read both")
            }
            if (specShredded) supported(SpecLayout.validate(t, file, name)) else ReadBySpark
          case Some(t: StructType) if DraftLayout.looksDraft(t) || declared(fs, c) == VariantType =>
            supported(DraftLayout.validate(t, file, name))
          case Some(t) => throw new ShreddedVariantException(file, name, "",
            s"the column is ${t.sql} in this file, which is not a variant layout")
          case None => Absent
        }
      }, nulls)
    }
    (perFile, unread.toSeq)
  }

  /** The column as the user names it in errors: `table.column`, or the column of a path read. */
  private def label(table: Option[String], column: Seq[String]): String =
    table.map(t => s"$t.${column.mkString(".")}").getOrElse(column.mkString("."))

  /**
   * `r` read with its variant columns by their shredded leaves, or `r` itself. `oneRelation`: the
   * relation should stay one relation (a query reading `_metadata`, which a Union does not offer),
   * so files shredding a declared VARIANT in conflicting ways leave it to Spark's reader where
   * that reader can read them.
   */
  def apply(
      r: LogicalRelation,
      fs: HadoopFsRelation,
      columns: Seq[Seq[String]],
      table: Option[String],
      delta: Boolean,
      oneRelation: Boolean): LogicalPlan = {
    val (footers, unread) = layouts(fs, columns, table)
    val found = footers.map { case (status, types, _) => status -> types }
    if (!found.exists(_._2.exists(_.isInstanceOf[Shredded]))) return r
    // Delta's format, which stays, cannot check at read time a file planned without its footer.
    if (delta && unread.nonEmpty) {
      leave(fs, table, s"the footer of ${unread.head} could not be read, and Spark's " +
        "ignoreCorruptFiles or ignoreMissingFiles leave such a file to the scan to skip")
      return r
    }
    // What each file itself stores (None where it lacks the column) and its all-null residuals.
    val own = footers.map { case (status, types, nulls) =>
      status.getPath -> types.zip(nulls).map {
        case (Shredded(t), n) => (Some(t), n)
        case (_, n) => (None, n)
      }
    }.toMap
    // An inferred draft column absent from some file is read there as its inferred (all-null)
    // struct, so every branch presents the column the same way.
    val inferred: Seq[Stored] = columns.map { c =>
      declared(fs, c) match {
        case VariantType => Absent
        case t => Shredded(DraftLayout.validate(t, "<inferred schema>", c.mkString(".")))
      }
    }
    val perFile = found.map { case (status, types) =>
      status -> types.zip(inferred).map {
        case (Absent, inf) => inf
        case (t, _) => t
      }
    }
    // by path first, so that files of equal layouts, too, are planned in one order whatever the listing
    val groups = FileGroups.group(perFile.sortBy(_._1.getPath.toString))
    // A Delta scan keeps Delta's file index and format (deletion vectors, row tracking), so it
    // cannot be split by files, nor read raw typed leaves (which need Spark's row-based reader).
    if (delta && groups.length > 1) {
      leave(fs, table, "its files shred a variant column in conflicting ways, which would need " +
        "one scan per group of files")
      return r
    }
    if (delta && groups.exists(_._1.exists {
        case Shredded(t) => VariantGroupsAsStructsParquetFormat.hasRawLeaves(t)
        case _ => false
      })) {
      leave(fs, table, "a file shreds a value into a Parquet type Spark has no column type for " +
        "(TIME, nanosecond timestamps, UUID), which Spark's vectorised reader cannot read")
      return r
    }
    // Spark's reader reads none of an inferred draft column (VARIANT only as the extension
    // presents it) nor a raw typed leaf (a nanosecond timestamp): those stay with the extension.
    val sparkReads = columns.forall(c => declared(fs, c) == VariantType) && !groups.exists(_._1.exists {
      case Shredded(t) => VariantGroupsAsStructsParquetFormat.hasRawLeaves(t)
      case _ => false
    })
    if (oneRelation && groups.length > 1 && sparkReads) return r
    val fileTypes = perFile.map { case (status, types) => status.getPath -> types }.toMap
    val marked = groups.toSeq.map { case (merged, files) =>
      merged.zipWithIndex.map {
        case (Shredded(m), c) =>
          val having = files.flatMap(f => fileTypes(f.getPath)(c) match {
            case Shredded(t) => Some(t)
            case _ => None
          })
          Some(LayoutMarks.markNullEverywhere(LayoutMarks.markShreddedEverywhere(m, having),
            files.map(f => own(f.getPath)(c))))
        case _ => None
      } -> files
    }
    val branches = marked.zipWithIndex.map { case ((types, files), g) =>
      branch(r, fs, columns.zip(types).toMap, if (groups.length == 1) None else Some(files), g,
        table, delta, unread)
    }
    if (branches.length == 1) branches.head else Union(branches)
  }

  /**
   * The files planned without their footers, for the scan to check ([[ListedFilesParquetFormat]]);
   * a format that is not one (a table's own Parquet subclass) reads them as Spark does.
   */
  private def unplannedOption(format: FileFormat, unread: Seq[Path]): Map[String, String] =
    if (unread.isEmpty || !format.isInstanceOf[ListedFilesParquetFormat]) Map.empty
    else Map(ListedFilesParquetFormat.UnplannedFiles -> unread.map(_.toString).mkString("\n"))

  private def branch(
      r: LogicalRelation,
      fs: HadoopFsRelation,
      draft: Map[Seq[String], Option[StructType]],
      files: Option[Seq[FileStatus]],
      g: Int,
      table: Option[String],
      delta: Boolean,
      unread: Seq[Path]): LogicalPlan = {
    def draftType(name: String): Option[StructType] = draft.get(Seq(name)).flatten
    // A struct holding shredded VARIANT fields is read with each of them as its shredded struct.
    def shreddedWithin(at: Seq[String], s: StructType): StructType = StructType(s.fields.map { f =>
      val path = at :+ f.name
      (draft.get(path).flatten, f.dataType) match {
        case (Some(t), _) => LayoutMarks.mark(StructField(f.name, t, nullable = true))
        case (None, st: StructType) if draft.exists { case (k, t) => t.isDefined && k.startsWith(path) } =>
          f.copy(dataType = shreddedWithin(path, st))
        case _ => f
      }
    })
    val dataSchema = shreddedWithin(Nil, fs.dataSchema)
    // The type a struct column holding shredded VARIANT fields is read as.
    def readType(name: String): Option[DataType] = for {
      read <- dataSchema.find(_.name == name)
      orig <- fs.dataSchema.find(_.name == name)
      if draftType(name).isEmpty && read.dataType != orig.dataType
    } yield read.dataType
    val location = files.map { fileList =>
      val base = fs.location.rootPaths match {
        case Seq(root) if fs.partitionSchema.nonEmpty => Map("basePath" -> root.toString)
        case _ => Map.empty[String, String]
      }
      SparkInternals.fileIndex(session, fileList.map(_.getPath: Path), fs.options ++ base,
        if (fs.partitionSchema.isEmpty) None else Some(fs.partitionSchema))
    }.getOrElse(fs.location)
    val specLayout = draft.values.flatten.exists(t =>
      SpecLayout.isSpec(t) || VariantGroupsAsStructsParquetFormat.hasRawLeaves(t))
    // Delta's format stays, and reads the variant groups as structs through the scan's Hadoop
    // options (Delta hands them to Spark's reader). Delta's files are never rewritten in place,
    // so the listed-files check is not needed there.
    val format = if (delta) fs.fileFormat
      else if (specLayout) new VariantGroupsAsStructsParquetFormat
      else if (fs.fileFormat.getClass == classOf[ParquetFileFormat]) new ListedFilesParquetFormat
      else fs.fileFormat
    val options = (if (delta && specLayout) {
      fs.options + (VariantGroupsAsStructsParquetFormat.IgnoreAnnotation -> "true")
    } else fs.options) ++ unplannedOption(format, unread)
    val relation = SparkInternals.withFiles(fs, location, dataSchema, format,
      if (files.isEmpty) fs.bucketSpec else None, session, options)
    val output = r.output.map { a =>
      draftType(a.name).map(t => SparkInternals.attribute(a.name, t, nullable = true,
        LayoutMarks.mark(StructField(a.name, t)).metadata, qualifier = a.qualifier))
        .orElse(readType(a.name).map(t => SparkInternals.attribute(a.name, t, a.nullable,
          a.metadata, qualifier = a.qualifier)))
        .getOrElse(if (g == 0) a else a.newInstance())
    }
    val columns = r.output.zip(output).map { case (orig, read) =>
      def rebuilt(e: Expression) = SparkInternals.alias(e, orig.name,
        exprId = if (g == 0) orig.exprId else NamedExpression.newExprId, qualifier = orig.qualifier)
      (draftType(orig.name), orig.dataType) match {
        case (Some(_), _) => rebuilt(ReconstructShreddedVariant(read, label(table, Seq(orig.name))))
        case (None, declaredType: StructType) if readType(orig.name).isDefined =>
          rebuilt(RebuildShreddedStruct(read, declaredType, label(table, Seq(orig.name))))
        case _ => read
      }
    }
    Project(columns, SparkInternals.withRelation(r, relation, output))
  }
}

object ReadByShreddedLeaves {
  /** How messages name a relation: its table, or the paths a path read reads. */
  def tableLabel(fs: HadoopFsRelation, table: Option[String]): String =
    table.getOrElse(fs.location.rootPaths.map(_.toString).mkString(","))
}
