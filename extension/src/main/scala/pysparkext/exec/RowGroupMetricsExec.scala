package pysparkext.exec

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.pysparkext.SparkInternals.FileScan
import org.apache.spark.sql.vectorized.ColumnarBatch

import pysparkext.parquet.RowGroupCountingParquetFormat

/**
 * Shows, right above a Parquet scan, how many row groups it read and how many its pushed filters
 * skipped, as SQL metrics (Spark UI, `SparkPlan.metrics`, `pyspark_ext.explain_read_schema`).
 * A file scan's own metrics are fixed by Spark, hence this node. It passes rows and columnar
 * batches through untouched and keeps the scan's partitioning, ordering and vector types, so
 * whole-stage code generation and the columnar transitions around it plan as they would
 * around the scan.
 */
case class RowGroupMetricsExec(child: SparkPlan) extends UnaryExecNode {
  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering
  override def supportsColumnar: Boolean = child.supportsColumnar
  override def supportsRowBased: Boolean = child.supportsRowBased
  override def vectorTypes: Option[Seq[String]] = child.vectorTypes

  override lazy val metrics: Map[String, SQLMetric] = RowGroupMetricsExec.countersOf(child)
    .map(f => Map("rowGroupsRead" -> f.rowGroupsRead, "rowGroupsSkipped" -> f.rowGroupsSkipped))
    .getOrElse(Map.empty)

  override protected def doExecute(): RDD[InternalRow] = child.execute()
  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = child.executeColumnar()

  override protected def withNewChildInternal(newChild: SparkPlan): RowGroupMetricsExec =
    copy(child = newChild)
}

object RowGroupMetricsExec {
  def countersOf(plan: SparkPlan): Option[RowGroupCountingParquetFormat] = plan match {
    case FileScan(_, relation, _, _) => relation.fileFormat match {
      case f: RowGroupCountingParquetFormat => Some(f)
      case _ => None
    }
    case _ => None
  }
}
