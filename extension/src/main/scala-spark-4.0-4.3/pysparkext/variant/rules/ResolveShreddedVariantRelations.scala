package pysparkext.variant.rules

import java.io.IOException

import org.apache.hadoop.fs.{FileStatus, Path}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{EliminateSubqueryAliases, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{AnalysisHelper, Command, LeafNode, LogicalPlan, Project, Union}
import org.apache.spark.sql.catalyst.util.MetadataColumnHelper
import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.pysparkext.{DataError, SparkInternals}
import org.apache.spark.sql.types.{DataType, StructField, StructType, VariantType}

import pysparkext.{ExtConf, GuardedRule}
import pysparkext.formats.{Applies, DeltaScans, IcebergFiles, TableFormats}
import pysparkext.parquet.{FileTolerance, FooterSchemas, ListedFilesParquetFormat, VariantGroupsAsStructsParquetFormat}
import pysparkext.variant.ShreddedVariantException
import pysparkext.variant.expressions.{RebuildShreddedStruct, ReconstructShreddedVariant}
import pysparkext.variant.layout.{DraftLayout, FileGroups, LayoutMarks, NestedVariants, SpecLayout}
import pysparkext.variant.layout.FileGroups.{Absent, ReadBySpark, Shredded, Stored}

/**
 * Presents shredded variant columns of Parquet relations, in the proposal's draft layout or the
 * Parquet spec layout, as VARIANT over their physical structs.
 *
 * A column qualifies when the table declares it VARIANT and its files hold the draft layout, or,
 * for a path read without a catalog table, when the inferred struct has the layout's shape
 * (switch: [[ExtConf.InferDraftLayout]]). Every file's footer is read, because each file may
 * shred differently. Files whose draft schemas merge (fields added or missing) are read by one
 * relation; files whose typed columns conflict are read by separate relations under a Union. The
 * column is then `reconstruct_shredded_variant(struct) AS v`, keeping `v`'s expression id, so the
 * rest of the query is unchanged; [[RewriteShreddedVariantPaths]] later turns path reads into
 * column reads.
 *
 * A VARIANT field reached through structs only (`s.w`, `s.t.w`) qualifies as a column does: it
 * holds one value per row, and its footer facts are the column's below its path. Its struct
 * column is read with the field as its shredded struct and presented as
 * `rebuild_shredded_struct(s) AS s` ([[RebuildShreddedStruct]]), the declared struct with the
 * field reconstructed, keeping `s`'s expression id. A VARIANT inside an array or a map stays
 * VARIANT and is read by Spark's reader ([[NestedVariants]]).
 *
 * Safe because reconstruction is the proposal's algorithm over the file's own data, and a file whose
 * layout is wrong fails with an error naming it rather than being read as something else.
 * Spec-layout files (Spark's encoding, `metadata`/`value`/`typed_value`) are taken over only when
 * some file of the relation shreds the column; the scan then reads variant groups as structs
 * ([[VariantGroupsAsStructsParquetFormat]]). Unshredded tables stay with Spark's reader.
 *
 * Before:
 * {{{
 *   Relation parquet [id#1, v#2: variant]
 * }}}
 * After (one group of files whose layouts merge; files that conflict become more branches of a
 * Union, each with ids of its own):
 * {{{
 *   Project [id#1, reconstruct_shredded_variant(v#3) AS v#2]
 *   +- Relation parquet [id#1, v#3: struct<untyped_value: binary, object: struct<a: struct<...>>>]
 * }}}
 */
class ResolveShreddedVariantRelations(session: SparkSession) extends GuardedRule {
  override protected def featureConf = ExtConf.ShreddedVariant
  override protected def preservesSchema: Boolean = false

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = {
    val infer = ExtConf.InferDraftLayout.get
    // Delta's commands (MERGE, UPDATE, DELETE...) take the analysed table plan and rebuild its
    // relation themselves (fewer columns, other files, extra metadata columns), which a relation
    // read as structs under a reconstruction would not survive. The queries they then run over
    // the table are plain queries, analysed again, and rewritten then.
    val command = plan.collectFirst { case c: Command => c.nodeName }
    // Whether the query reads the file source's metadata column `_metadata`, which a Union of
    // relations does not offer: resolved already, or a name still to resolve (any of its parts,
    // `_metadata.file_name`), which Spark adds to the relation only after it fails to resolve.
    val readsMetadata = plan.flatMap(_.expressions).exists(_.exists {
      case u: UnresolvedAttribute => u.nameParts.exists(_.equalsIgnoreCase(FileSourceMetadataColumn))
      case a: Attribute => a.isMetadataCol && a.name.equalsIgnoreCase(FileSourceMetadataColumn)
      case _ => false
    })
    // A relation analysed alone (`spark.read`) is a DataFrame's plan, against which the DataFrame
    // API resolves `df.metadataColumn("_metadata")`; a query on that DataFrame is analysed again.
    val oneRelation = readsMetadata || EliminateSubqueryAliases(plan).isInstanceOf[LeafNode]
    // Not resolveOperators: Spark caches a catalog table's relation, already marked analyzed,
    // and hands the same node to later queries, which must still be rewritten (a relation once
    // rewritten has no VARIANT candidates left, so the rule never applies twice).
    AnalysisHelper.allowInvokingTransformsInAnalyzer {
      plan.transformUp {
        case SparkInternals.FileRelation(r, fs, _, table)
            if fs.fileFormat.isInstanceOf[ParquetFileFormat] =>
          // An analyzed relation (a temp view or DataFrame made with inference off) has had its
          // struct columns resolved against by the plan above; presenting them as VARIANT now
          // would leave that plan unresolved.
          val delta = DeltaScans.isDelta(fs.fileFormat)
          val columns = candidates(fs, infer && table.isEmpty && !r.analyzed && !delta)
          val name = table.map(_.identifier.unquotedString)
          if (TableFormats.readsVariantColumns(fs.fileFormat)) warnNested(fs, name)
          if (columns.isEmpty) r
          else TableFormats.variantReads(fs, tableLabel(fs, name), command) match {
            // a table format's own format stays (Delta's): see `delta` below
            case Applies(keepsFormat) => resolve(r, fs, columns, name, delta = keepsFormat, oneRelation)
            case _ => r
          }
      }
    }
  }

  /**
   * An Iceberg relation whose VARIANT columns some data file shreds, read as a Parquet file
   * relation over exactly the files Iceberg plans for it that Spark's reader reads as Iceberg's
   * does, beside Iceberg's own read of the rest ([[pysparkext.formats.IcebergFiles]]); or, when
   * [[TableFormats]] says so or no file shreds a variant, the relation as it is, for Iceberg to
   * read. Iceberg writes dates and timestamps proleptic and never skips a file, so the scan
   * rebases nothing and ignores no missing or corrupt file, whatever the session says. Called by
   * [[ReadIcebergVariantFiles]], in the optimizer.
   */
  private[rules] def readIceberg(r: DataSourceV2Relation, command: Option[String]): LogicalPlan = {
    val schema = StructType(r.output.map(a => StructField(a.name, a.dataType, a.nullable, a.metadata)))
    val columns = schema.fields.toSeq.collect { case f if f.dataType == VariantType => Seq(f.name) } ++
      NestedVariants.inStructs(schema)
    if (columns.isEmpty) return r
    val name = r.table.name()
    TableFormats.icebergVariantFiles(r, name, command, session) match {
      case Some(planned) =>
        val index = SparkInternals.fileIndex(session, planned.files.map(_.getPath), IcebergScanOptions, None)
        val files = SparkInternals.fileRelation(index, schema, new ParquetFileFormat, IcebergScanOptions,
          session, r.output)
        val fs = files.relation.asInstanceOf[HadoopFsRelation]
        NestedVariants.leftToSpark(schema).foreach { path =>
          DeltaScans.warnOnce(s"pyspark-ext leaves the VARIANT $path of $name to Spark's reader: it " +
            "reads VARIANT columns and VARIANT fields of structs by their shredded leaves, not a " +
            "VARIANT inside an array or a map")
        }
        val resolved = resolve(files, fs, columns, Some(name), delta = false, oneRelation = false)
        if (resolved eq files) {
          TableFormats.leftToIceberg(r, name, "none of its data files shreds a variant column")
          r
        } else planned.iceberg.fold(resolved) { read =>
          TableFormats.someLeftToIceberg(read, name)
          Union(resolved, icebergSide(r, read))
        }
      case None => r
    }
  }

  /**
   * The data files of `r` that Iceberg's reader reads, as a relation over Iceberg's table of their
   * staged tasks, presenting `r`'s columns (fresh ids) in `r`'s order; the table's metadata
   * columns it also offers (row lineage) are left out.
   */
  private def icebergSide(r: DataSourceV2Relation, read: IcebergFiles.IcebergRead): LogicalPlan = {
    val staged = DataSourceV2Relation.create(read.table, r.catalog, r.identifier, read.options)
    Project(r.output.map(a => staged.output.find(_.name == a.name).get), staged)
  }

  /** The name of the metadata column of Spark's file sources. */
  private val FileSourceMetadataColumn = "_metadata"

  private val IcebergScanOptions = Map("datetimeRebaseMode" -> "CORRECTED", "int96RebaseMode" -> "CORRECTED",
    "ignoreCorruptFiles" -> "false", "ignoreMissingFiles" -> "false")

  private def tableLabel(fs: HadoopFsRelation, table: Option[String]): String =
    table.getOrElse(fs.location.rootPaths.map(_.toString).mkString(","))

  private def leave(fs: HadoopFsRelation, table: Option[String], reason: String): Unit =
    DeltaScans.leaveToDelta(tableLabel(fs, table), "the shredded variant reads", reason)

  /**
   * One warning per table and VARIANT inside an array or a map: VARIANT columns and VARIANT fields
   * of structs are read by their shredded leaves, each of the others is left to Spark's reader
   * ([[NestedVariants]]).
   */
  private def warnNested(fs: HadoopFsRelation, table: Option[String]): Unit =
    NestedVariants.leftToSpark(fs.dataSchema).foreach { path =>
      DeltaScans.warnOnce(s"pyspark-ext leaves the VARIANT $path of ${tableLabel(fs, table)} to " +
        "Spark's reader: it reads VARIANT columns and VARIANT fields of structs by their shredded " +
        "leaves, not a VARIANT inside an array or a map")
    }

  /**
   * The variant columns to consider, each as the field names from the column down: a top-level
   * column (`Seq("v")`) or a VARIANT field of structs (`Seq("s", "w")`), read alike.
   */
  private def candidates(fs: HadoopFsRelation, inferred: Boolean): Seq[Seq[String]] =
    (fs.dataSchema.fields.toSeq.collect {
      case f if f.dataType == VariantType => Seq(f.name)
      case f if inferred && !LayoutMarks.isMarked(f) && DraftLayout.looksDraft(f.dataType) => Seq(f.name)
    } ++ NestedVariants.inStructs(fs.dataSchema))
      .filterNot(c => fs.partitionSchema.fieldNames.contains(c.head))

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
   * spec layout's struct when any file of the relation shreds a top-level column in the spec
   * layout (switch: [[ExtConf.SpecVariant]]); the scan then reads every candidate's variant group
   * as a struct, so all of them must be. Otherwise Spark's reader keeps it. A VARIANT inside an
   * array or a map stays VARIANT in that scan and is read by Spark ([[NestedVariants]]), so it
   * never keeps the other columns from being read by their leaves.
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
  private def resolve(
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
