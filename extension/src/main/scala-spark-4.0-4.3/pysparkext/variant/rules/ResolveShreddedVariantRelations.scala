package pysparkext.variant.rules

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{EliminateSubqueryAliases, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{AnalysisHelper, Command, LeafNode, LogicalPlan}
import org.apache.spark.sql.catalyst.util.MetadataColumnHelper
import org.apache.spark.sql.execution.datasources.HadoopFsRelation
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.VariantType

import pysparkext.{ExtConf, GuardedRule}
import pysparkext.formats.{Applies, DeltaScans, TableFormats}
import pysparkext.variant.expressions.RebuildShreddedStruct
import pysparkext.variant.format.VariantGroupsAsStructsParquetFormat
import pysparkext.variant.layout.{DraftLayout, LayoutMarks, NestedVariants}

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

  private val readByLeaves = new ReadByShreddedLeaves(session)

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
          else TableFormats.variantReads(fs, ReadByShreddedLeaves.tableLabel(fs, name), command) match {
            // a table format's own format stays (Delta's): see `delta` below
            case Applies(keepsFormat) => readByLeaves(r, fs, columns, name, delta = keepsFormat, oneRelation)
            case _ => r
          }
      }
    }
  }

  /** The name of the metadata column of Spark's file sources. */
  private val FileSourceMetadataColumn = "_metadata"

  /**
   * One warning per table and VARIANT inside an array or a map: VARIANT columns and VARIANT fields
   * of structs are read by their shredded leaves, each of the others is left to Spark's reader
   * ([[NestedVariants]]).
   */
  private def warnNested(fs: HadoopFsRelation, table: Option[String]): Unit =
    NestedVariants.leftToSpark(fs.dataSchema).foreach { path =>
      DeltaScans.warnOnce(s"pyspark-ext leaves the VARIANT $path of ${ReadByShreddedLeaves.tableLabel(fs, table)} to " +
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
}
