package pysparkext.variant.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{Command, LogicalPlan, Project, Union}
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.execution.datasources.HadoopFsRelation
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.{StructField, StructType, VariantType}

import pysparkext.{ExtConf, GuardedRule}
import pysparkext.formats.{DeltaScans, IcebergFiles, IcebergTables, TableFormats}
import pysparkext.variant.layout.NestedVariants

/**
 * Reads the shredded VARIANT columns of an Iceberg relation by their shredded leaves: the data
 * files Spark's Parquet reader reads as Iceberg's would become a Parquet relation presenting the
 * columns as VARIANT, as [[ResolveShreddedVariantRelations]] presents a Parquet table's (with the
 * same code, [[ReadByShreddedLeaves]]), and the relation's other files stay with Iceberg's reader,
 * as a staged set of Iceberg's own tasks under the same Union ([[pysparkext.formats.IcebergFiles]]);
 * [[RewriteShreddedVariantPaths]] then turns path reads into column reads.
 *
 * It runs in the optimizer (with Spark's operator optimisation), not the analyzer, because the
 * analysed plan is what metadata columns resolve against: Spark adds `_file` or `_pos` to a V2
 * relation only once a query refers to it, and the DataFrame API resolves
 * `df.metadataColumn("_file")` against a DataFrame's analysed plan, where the relation must still
 * be Iceberg's. By the optimizer the relation's output holds every metadata column the query
 * reads, and a relation reading one stays with Iceberg. A relation left to Iceberg is tagged, so
 * the batch's later rounds do not plan it again.
 *
 * The relation's files are planned once per query, here rather than at analysis; a relation
 * analysed alone (`spark.table`) is thus planned only when a query runs on it. A projection
 * holding a correlated subquery over a Union made here is pushed into its children at once
 * ([[PushCorrelatedProjectionThroughUnion]]), since Spark's rule that fails on it runs in the
 * same batch.
 *
 * Safe because the files read by Spark's reader are exactly those Iceberg plans for the relation
 * (its snapshot, branch or tag), each one Spark's reader reads as Iceberg's would (no delete
 * files, the table's names, field ids and types), the rest read by Iceberg itself with their
 * delete files; the output keeps the relation's attributes, so the plan above is unchanged.
 *
 * Before:
 * {{{
 *   Filter (variant_get(v#2, $.b, StringType) = x)
 *   +- RelationV2[id#1, v#2] ice.db.t
 * }}}
 * After (files with delete files read by Iceberg, under a Union; without them, no Union):
 * {{{
 *   Filter (variant_get(v#2, $.b, StringType) = x)
 *   +- Union
 *      :- Project [id#1, reconstruct_shredded_variant(v#3) AS v#2]
 *      :  +- Relation parquet [id#1, v#3: struct<metadata: binary, value: binary, typed_value: ...>]
 *      +- Project [id#4, v#5]
 *         +- RelationV2[id#4, v#5, _row_id#6, ...] ice.db.t (Iceberg's table of the staged set)
 * }}}
 */
class ReadIcebergVariantFiles(session: SparkSession) extends GuardedRule {
  override protected def featureConf = ExtConf.ShreddedVariant

  private val readByLeaves = new ReadByShreddedLeaves(session)

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = {
    // Iceberg's row-level commands hand the optimizer the relation they rewrite files of.
    val command = plan.collectFirst { case c: Command => c.nodeName }
    val read = plan.transformUp {
      case r: DataSourceV2Relation if IcebergTables.isIceberg(r.table) && !IcebergTables.isStagedRead(r.table) &&
          !r.getTagValue(ReadIcebergVariantFiles.Left).contains(ExtConf.IcebergVariantReads.get) =>
        val read = readIceberg(r, command)
        if (read eq r) r.setTagValue(ReadIcebergVariantFiles.Left, ExtConf.IcebergVariantReads.get)
        read
    }
    // A Union made here meets Spark's PushProjectionThroughUnion in the batch's next round: a
    // projection holding a correlated subquery over it is pushed first, as before that batch.
    if (read eq plan) plan else PushCorrelatedProjectionThroughUnion(read)
  }

  /**
   * An Iceberg relation whose VARIANT columns some data file shreds, read as a Parquet file
   * relation over exactly the files Iceberg plans for it that Spark's reader reads as Iceberg's
   * does, beside Iceberg's own read of the rest ([[pysparkext.formats.IcebergFiles]]); or, when
   * [[TableFormats]] says so or no file shreds a variant, the relation as it is, for Iceberg to
   * read. Iceberg writes dates and timestamps proleptic and never skips a file, so the scan
   * rebases nothing and ignores no missing or corrupt file, whatever the session says.
   */
  private def readIceberg(r: DataSourceV2Relation, command: Option[String]): LogicalPlan = {
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
        val resolved = readByLeaves(files, fs, columns, Some(name), delta = false, oneRelation = false)
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

  private val IcebergScanOptions = Map("datetimeRebaseMode" -> "CORRECTED", "int96RebaseMode" -> "CORRECTED",
    "ignoreCorruptFiles" -> "false", "ignoreMissingFiles" -> "false")
}

object ReadIcebergVariantFiles {
  /**
   * Marks a relation this rule left to Iceberg's reader, with the Iceberg switch's value then (a
   * DataFrame's plan is planned again, under other settings, each time it runs).
   */
  val Left: TreeNodeTag[Boolean] = TreeNodeTag[Boolean]("pyspark-ext.icebergVariantFilesLeft")
}
