package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, Cast, CreateNamedStruct, Expression, ExprId}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project, Repartition, RepartitionByExpression, Sort}
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.{DataError, SparkInternals, SparkInternalsProbe}
import org.apache.spark.sql.types.{DataType, Metadata, MetadataBuilder, StructType, VariantType}

import pysparkext.{ConfEntry, ExtConf, GuardedRule}
import pysparkext.variant.expressions.{ShredDraftVariant, ShredSpecVariant}
import pysparkext.variant.format.SpecShreddingParquetFormat
import pysparkext.variant.layout.SpecShreddingSchema

/**
 * The spec-layout writer's analysis rule (post-hoc resolution), in two steps:
 *
 * 1. `shred_variant(v, schema, 'spec') AS name` becomes `v AS name` with the schema in the
 *    alias's metadata, and every reference to that alias carries it too, so the column that
 *    leaves the query says how to shred it. Inside `struct(...)` / `named_struct(...)` the mark
 *    goes into the struct's field metadata instead, kept by a cast of the struct to its own type
 *    with that metadata (Spark's CleanupAliases drops aliases inside a struct, and with them
 *    their metadata).
 * 2. A Parquet write (`InsertIntoHadoopFsRelationCommand`: `df.write.parquet` / `save`,
 *    `INSERT` into a path or a table whose data schema keeps the marks) whose data carries a
 *    schema writes through [[SpecShreddingParquetFormat]].
 *
 * {{{
 * Before: InsertIntoHadoopFsRelationCommand parquet
 *         +- Project [id, shred_variant(v, s, spec) AS v]
 * After:  InsertIntoHadoopFsRelationCommand Parquet (spec-layout shredding)
 *           (options + pyspark_ext.specLayoutWriter=true)
 *         +- Project [id, v AS v {pyspark_ext.variantShreddingSchema: s}]
 * }}}
 *
 * A [[GuardedRule]] like the others: with the master switch or
 * `spark.pyspark_ext.writer.specLayout.enabled` off, nothing changes and the marked variant is
 * written as Spark writes any VARIANT. An internal error leaves the plan as it was (the marked
 * variant then is written as Spark writes any VARIANT) and logs a warning naming the rule; in
 * strict mode it fails the query. Bad input (a marked column that is not a VARIANT) fails the query
 * in any mode ([[DataError]]).
 */
object ResolveSpecLayoutWrites extends GuardedRule {
  override protected def featureConf: ConfEntry[Boolean] = ExtConf.SpecLayoutWriter

  override protected def rewrite(plan: LogicalPlan): LogicalPlan =
    writeThroughFormat(markColumns(markStructFields(plan)))

  private def unmark(e: Expression): Option[(Expression, DataType)] = e match {
    case ShredSpecVariant(child, schema) => Some((variant(child), schema))
    case Alias(ShredSpecVariant(child, schema), _) => Some((variant(child), schema))
    case _ => None
  }

  /** The marked column, which must be a VARIANT (checked here: the mark is gone by CheckAnalysis). */
  private def variant(child: Expression): Expression = {
    if (child.resolved && child.dataType != VariantType) throw new DataError(
      s"Cannot shred column ${child.sql} in the Parquet spec layout: it is ${child.dataType.sql}, not VARIANT")
    child
  }

  private def markStructFields(plan: LogicalPlan): LogicalPlan = plan.transformAllExpressions {
    case c: CreateNamedStruct if c.valExprs.exists(unmark(_).isDefined) =>
      val children = c.children.grouped(2).flatMap {
        case Seq(name, value) => Seq(name, unmark(value).map(_._1).getOrElse(value))
        case other => other
      }.toSeq
      val struct = CreateNamedStruct(children)
      val marked = StructType(struct.dataType.fields.zip(c.valExprs).map { case (f, value) =>
        unmark(value).map { case (_, schema) =>
          f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata)
            .withMetadata(SpecShreddingSchema.metadata(schema)).build())
        }.getOrElse(f)
      })
      Cast(struct, marked, Option(SQLConf.get.sessionLocalTimeZone))
  }

  private def markColumns(plan: LogicalPlan): LogicalPlan = {
    val marked = scala.collection.mutable.HashMap.empty[ExprId, Metadata]
    val aliased = plan.transformAllExpressions {
      case a @ Alias(ShredSpecVariant(column, schema), name) =>
        val child = variant(column)
        val md = new MetadataBuilder().withMetadata(a.metadata)
          .withMetadata(SpecShreddingSchema.metadata(schema)).build()
        marked(a.exprId) = md
        SparkInternals.alias(child, name, a.exprId, a.qualifier, Some(md), a.nonInheritableMetadataKeys)
    }
    if (marked.isEmpty) plan
    else aliased.transformAllExpressions {
      case r: AttributeReference if marked.contains(r.exprId) => r.withMetadata(marked(r.exprId))
    }
  }

  private def writeThroughFormat(plan: LogicalPlan): LogicalPlan = plan.transformDown {
    case cmd: InsertIntoHadoopFsRelationCommand if cmd.fileFormat.getClass == classOf[ParquetFileFormat] =>
      val query = draftColumnsMarked(marksThroughRenames(cmd.query)._1)
      // The option makes the new command differ from the old one: Spark's ParquetFileFormat
      // equals any ParquetFileFormat, ours included, so a copy that changed only the format
      // would count as unchanged and the transform would keep the old node.
      if (!SpecShreddingSchema.hasSchemas(query.schema)) cmd
      else SparkInternals.withWriteFormat(cmd, new SpecShreddingParquetFormat,
        cmd.options + (WriterOption -> "true"), query)
  }

  /**
   * An insert into an existing table renames the data to the table's columns, `v AS v` with the
   * table column's metadata, which drops the spec-layout mark of `v`. Here a rename in the
   * projections at the top of the write's query keeps the mark of the column it renames (and the
   * references above it see the marked column), so the insert writes the schema the data asked for.
   *
   * {{{
   * Before: InsertIntoHadoopFsRelationCommand parquet, `t`
   *         +- Project [id AS id, v {pyspark_ext.variantShreddingSchema: s} AS v]
   * After:  InsertIntoHadoopFsRelationCommand parquet, `t`
   *         +- Project [id AS id, v AS v {pyspark_ext.variantShreddingSchema: s}]
   * }}}
   */
  private def marksThroughRenames(plan: LogicalPlan): (LogicalPlan, Map[ExprId, Metadata]) = plan match {
    case p @ Project(list, child) =>
      val (below, markedBelow) = marksThroughRenames(child)
      var marked = Map.empty[ExprId, Metadata]
      val newList = list.map {
        case r: AttributeReference if markedBelow.contains(r.exprId) =>
          marked += r.exprId -> markedBelow(r.exprId)
          r.withMetadata(markedBelow(r.exprId))
        case a @ Alias(r: AttributeReference, name) if specMark(r, markedBelow).isDefined &&
            !a.metadata.contains(SpecShreddingSchema.MetadataKey) =>
          val md = new MetadataBuilder().withMetadata(a.metadata)
            .putString(SpecShreddingSchema.MetadataKey, specMark(r, markedBelow).get).build()
          marked += a.exprId -> md
          SparkInternals.alias(r, name, a.exprId, a.qualifier, Some(md), a.nonInheritableMetadataKeys)
        case e => e
      }
      if (marked.isEmpty) (plan, Map.empty) else (p.copy(projectList = newList, child = below), marked)
    case other => (other, Map.empty)
  }

  private def specMark(r: AttributeReference, markedBelow: Map[ExprId, Metadata]): Option[String] = {
    val md = markedBelow.getOrElse(r.exprId, r.metadata)
    if (md.contains(SpecShreddingSchema.MetadataKey)) Some(md.getString(SpecShreddingSchema.MetadataKey))
    else None
  }

  /**
   * With the column-by-column writer on, a write whose query ends in projections, one of them
   * `shred_variant(v, 'schema') AS name` (the draft layout, `pyspark_ext.shred(df, column,
   * schema)`) and those above passing the column on, writes `v AS name` instead, marked with the
   * schema ([[SpecShreddingSchema.DraftKey]]): the writer shreds it into the draft layout's columns
   * as it writes, and gives the file the draft struct the expression would have made, so the file
   * is the same. Anywhere else the expression stays and runs as before.
   *
   * {{{
   * Before: InsertIntoHadoopFsRelationCommand parquet
   *         +- Project [id, shred_variant(v, schema) AS v]
   * After:  InsertIntoHadoopFsRelationCommand Parquet (spec-layout shredding)
   *         +- Project [id, v AS v {pyspark_ext.draftShreddingSchema: schema}]
   * }}}
   */
  private def draftColumnsMarked(query: LogicalPlan): LogicalPlan =
    if (!ExtConf.ColumnarSpecWriter.get || !SparkInternalsProbe.on(ExtConf.ColumnarSpecWriter)) query
    else markDrafts(query)._1

  /**
   * The chain of projections at the top of `plan`, with each `shred_variant(v, 'schema') AS name`
   * turned into the marked `v AS name`, and the ids so marked. A projection above may pass such a
   * column on as it is, and a filter, sort or repartition by other columns may stand between them;
   * one that uses it any other way (a field of the struct, say) keeps the whole chain as it was.
   */
  private def markDrafts(plan: LogicalPlan): (LogicalPlan, Map[ExprId, Metadata]) = plan match {
    case p @ Project(list, child) =>
      val (below, markedBelow) = markDrafts(child)
      val passedOn = markedBelow.keySet.forall(id => list.forall {
        case _: AttributeReference => true
        case e => !e.references.exists(_.exprId == id)
      })
      if (!passedOn) return (plan, Map.empty)
      var marked = passedOnFrom(markedBelow, list)
      val newList = list.map {
        case a @ Alias(ShredDraftVariant(child, ddl), name) if child.dataType == VariantType =>
          val md = new MetadataBuilder().withMetadata(a.metadata)
            .withMetadata(SpecShreddingSchema.draftMetadata(ddl)).build()
          marked += a.exprId -> md
          SparkInternals.alias(child, name, a.exprId, a.qualifier, Some(md), a.nonInheritableMetadataKeys)
        case r: AttributeReference if marked.contains(r.exprId) =>
          r.withDataType(VariantType).withMetadata(marked(r.exprId))
        case e => e
      }
      if (marked.isEmpty) (plan, Map.empty) else (p.copy(projectList = newList, child = below), marked)
    // Rows kept, ordered or moved by the other columns pass the column on as it is.
    case u @ (_: Filter | _: Sort | _: Repartition | _: RepartitionByExpression) =>
      val (below, markedBelow) = markDrafts(u.children.head)
      val usesIt = u.expressions.exists(_.references.exists(a => markedBelow.contains(a.exprId)))
      if (markedBelow.isEmpty || usesIt) (plan, Map.empty) else (u.withNewChildren(Seq(below)), markedBelow)
    case other => (other, Map.empty)
  }

  /** The ids marked below that this projection list passes on. */
  private def passedOnFrom(below: Map[ExprId, Metadata], list: Seq[Expression]): Map[ExprId, Metadata] =
    below.filter { case (id, _) => list.exists {
      case r: AttributeReference => r.exprId == id
      case _ => false
    } }

  /** Shown in the write's options (EXPLAIN): the spec-layout writer writes this command. */
  val WriterOption = "pyspark_ext.specLayoutWriter"

}
