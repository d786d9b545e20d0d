package pysparkext.exec

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, GetStructField, NamedExpression}
import org.apache.spark.sql.execution.{FileSourceScanExec, FilterExec, ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.pysparkext.{SparkInternals, SparkInternalsProbe}
import org.apache.spark.sql.pysparkext.SparkInternals.{FileScan, StructFieldOf}

import pysparkext.{ExtConf, GuardedPlanRule}
import pysparkext.formats.{Feature, TableFormats}
import pysparkext.parquet.{LeafColumnsParquetFormat, LeafColumnsReader, LeafPath}

/**
 * Reads nested struct fields of a vectorized Parquet scan as top-level columns: under a
 * projection (and its filter) or an aggregate straight over the scan, every maximal chain of
 * struct field extractions from a scan column, `v.a.b`, becomes a column of a
 * [[NestedLeafColumnsExec]] that hands the field's own vector on. Generated code then reads it as
 * a flat column.
 *
 * Safe because the node presents exactly the values (and nulls) the extraction chain returns;
 * only vectorized Parquet scans, whose struct vectors have that shape, and unbucketed ones (whose
 * partitioning does not depend on the columns) are rewritten. The operators rewritten define
 * their own output, so the columns they no longer need can be dropped. Runs before the columnar
 * transitions, so Spark puts the row conversion above the new node.
 *
 * {{{
 *   Before: Project [s.a.b + 1]
 *           +- FileScan parquet [s: struct<a: struct<b: int, c: string>>]
 *   After:  Project [s_a_b + 1]
 *           +- NestedLeafColumns [s_a_b]    (the vector of s.a.b, as a top-level column)
 *              +- FileScan Parquet, leaf columns [s]
 * }}}
 */
object NestedLeavesAsColumns extends GuardedPlanRule[SparkPlan] {
  override protected def featureConf = ExtConf.NestedLeavesAsColumns

  override protected def rewrite(plan: SparkPlan): SparkPlan = plan.transformDown {
    case p @ ProjectExec(_, f @ FilterExec(_, s: FileSourceScanExec)) if eligible(s) =>
      over(s, p.expressions ++ f.expressions).map { case (node, replace) =>
        replace(p).withNewChildren(Seq(replace(f).withNewChildren(Seq(node))))
      }.getOrElse(p)
    case p @ (_: ProjectExec | _: BaseAggregateExec) if p.children.length == 1 &&
        (p.children.head match { case s: FileSourceScanExec => eligible(s); case _ => false }) =>
      val s = p.children.head.asInstanceOf[FileSourceScanExec]
      over(s, p.expressions).map { case (node, replace) =>
        replace(p).withNewChildren(Seq(node))
      }.getOrElse(p)
  }

  // Builds whose struct vectors are not row-aligned are caught by SparkInternalsProbe, which
  // switches this rule off (SparkInternals.structVectorsRowAligned). Which formats it may rewrite
  // (Parquet ones, not a scan DataFusion Comet will read natively) is TableFormats' decision.
  private def eligible(s: FileSourceScanExec): Boolean = s match {
    case FileScan(_, relation, _, _) => s.supportsColumnar && !SparkInternals.isBucketedScan(s) &&
      TableFormats.decide(Feature.LeavesAsColumns, relation).applies
    case _ => false
  }

  /** A chain of struct field extractions from an attribute: (attribute, ordinals). */
  private def chain(e: Expression): Option[(Attribute, List[Int])] = e match {
    case StructFieldOf(a: Attribute, o) => Some(a -> List(o))
    case StructFieldOf(c, o) => chain(c).map { case (a, os) => a -> (os :+ o) }
    case _ => None
  }

  /**
   * The node over `scan`, and how to rewrite an operator's expressions onto it, if `exprs`
   * extract any nested field. Chains start only at data columns that the reader fills as
   * writable vectors (not file metadata or partition values).
   */
  private def over(
      scan: FileSourceScanExec,
      exprs: Seq[Expression]): Option[(SparkPlan, SparkPlan => SparkPlan)] = {
    val output = scan.output
    val types = scan.vectorTypes.getOrElse(return None)
    val FileScan(_, _, read, _) = scan
    val data = read.fieldNames.toSet
    def root(a: Attribute): Int = {
      val i = output.indexWhere(_.exprId == a.exprId)
      if (i >= 0 && i < types.length && data.contains(a.name) &&
        SparkInternals.isOnHeapVector(types(i))) i
      else -1
    }
    def key(g: GetStructField): Option[(Int, List[Int])] =
      chain(g).map { case (a, ords) => root(a) -> ords }.filter(_._1 >= 0)
    val leaves = mutable.LinkedHashMap.empty[(Int, List[Int]), NestedLeaf]
    exprs.foreach(_.foreach {
      case g: GetStructField => key(g).foreach(k => leaves.getOrElseUpdate(k, NestedLeaf(
        SparkInternals.attribute(g.sql.replaceAll("[^A-Za-z0-9_.]", "_"), g.dataType, nullable = true),
        k._1, k._2)))
      case _ =>
    })
    if (leaves.isEmpty) return None
    // Applied top-down, so the outermost chain is replaced whole.
    val toLeaf: PartialFunction[Expression, Expression] = Function.unlift {
      case g: GetStructField => key(g).flatMap(leaves.get).map(_.attribute)
      case _ => None
    }
    val replace: SparkPlan => SparkPlan = _.transformExpressionsDown(toLeaf)
    val rewritten = exprs.map(_.transformDown(toLeaf))
    val used = rewritten.flatMap(_.references.map(_.exprId)).toSet
    val kept = output.indices.filter(i => used.contains(output(i).exprId))
    val usedLeaves = leaves.values.filter(l => used.contains(l.attribute.exprId)).toSeq
    Some(NestedLeafColumnsExec(withLeafReader(scan, kept, usedLeaves), kept, usedLeaves) -> replace)
  }

  /**
   * The scan reading through a [[LeafColumnsParquetFormat]] when everything above uses only
   * primitive leaves of it (no struct whole, so no struct nulls are needed) that the files store
   * as columns, and it has no metadata columns; else the scan as it is. The scan's output is its
   * data columns, then its partition columns (as `FileSourceStrategy` plans it, and as the
   * batches hold them); the reader appends the partition values itself, so kept partition columns
   * need no leaf.
   */
  private def withLeafReader(
      scan: FileSourceScanExec,
      kept: Seq[Int],
      leaves: Seq[NestedLeaf]): FileSourceScanExec = {
    val FileScan(_, relation, schema, _) = scan
    val format = relation.fileFormat
    val partitions = relation.partitionSchema
    val eligible = SparkInternalsProbe.on(ExtConf.LeafColumnsReader) &&
      TableFormats.decide(Feature.LeafReader, relation).applies &&
      scan.output.length == schema.length + partitions.length &&
      scan.output.drop(schema.length).map(_.name) == partitions.fieldNames.toSeq
    val paths = kept.filter(_ < schema.length).map(LeafPath(_, Nil)) ++
      leaves.map(l => LeafPath(l.column, l.ordinals))
    if (!eligible || !LeafColumnsParquetFormat.areColumns(paths, schema)) return scan
    val leafFormat = new LeafColumnsParquetFormat(format.asInstanceOf[ParquetFileFormat], paths)
    SparkInternals.withFileFormat(scan, leafFormat)
  }
}
