package pysparkext.exec

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.vectorized.{OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.pysparkext.SparkInternals.FileScan
import org.apache.spark.sql.vectorized.{ColumnarBatch, ColumnVector}

import pysparkext.formats.{Feature, TableFormats}
import pysparkext.parquet.NarrowReadPacking

/**
 * One nested field of a column as a top-level column: `column` is the child's output index,
 * `ordinals` the struct fields from it down to the field.
 */
final case class NestedLeaf(attribute: Attribute, column: Int, ordinals: Seq[Int])

/**
 * Passes its child's columnar batches on with some nested struct fields also presented as
 * top-level columns: the very vectors of the batch, no copy. Reading `a.b.c` then costs what
 * reading a top-level column costs, instead of one struct row per level and row.
 *
 * Exact because a struct field's vector in Spark's vectorized Parquet reader is aligned row for
 * row with its parent and null wherever any ancestor is null (its definition level says so), which
 * is what the chain of field extractions returns. The exception is a column a file lacks: Spark
 * marks that one vector all-null and leaves its fields unfilled, so fields under it are served
 * as nulls here. Only the child's columns still referenced above are passed on. Since the scan
 * under it reads few columns, its splits may run as fewer tasks ([[NarrowReadPacking]]).
 */
case class NestedLeafColumnsExec(child: SparkPlan, kept: Seq[Int], leaves: Seq[NestedLeaf])
  extends UnaryExecNode {
  override def output: Seq[Attribute] = kept.map(child.output) ++ leaves.map(_.attribute)
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = Nil
  override def supportsColumnar: Boolean = true
  override def supportsRowBased: Boolean = false

  // A struct's field vectors are of its own vector class.
  override def vectorTypes: Option[Seq[String]] = child.vectorTypes.map(types =>
    kept.map(types) ++ leaves.map(l => types(l.column)))

  override protected def doExecute(): RDD[InternalRow] =
    throw new UnsupportedOperationException(s"$nodeName is columnar only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val (keep, fields) = (kept.toArray, leaves.map(l => (l.column, l.ordinals.toArray)).toArray)
    val scanned = child.executeColumnar()
    val input = child.collectFirst { case FileScan(_, relation, read, _) => (relation, read) }
      .filter { case (relation, _) => TableFormats.decide(Feature.NarrowReadPacking, relation).applies }
      .fold(scanned) { case (relation, read) => NarrowReadPacking(scanned, relation, read) }
    input.mapPartitions({ batches =>
      // A column missing from a file is one all-null vector whose fields are never filled, so a
      // field under it is served from a vector of nulls instead (one per field, reused).
      val nullVectors = new Array[OnHeapColumnVector](fields.length)
      val nullRows = new Array[Int](fields.length)
      def allNull(v: ColumnVector): Boolean = v match {
        case w: WritableColumnVector => w.isAllNull
        case _ => false
      }
      def nulls(j: Int, t: org.apache.spark.sql.types.DataType, rows: Int): ColumnVector = {
        if (nullVectors(j) == null || nullRows(j) < rows) {
          nullRows(j) = math.max(rows, 1)
          nullVectors(j) = new OnHeapColumnVector(nullRows(j), t)
          nullVectors(j).putNulls(0, nullRows(j))
        }
        nullVectors(j)
      }
      batches.map { b =>
        val columns = new Array[ColumnVector](keep.length + fields.length)
        var i = 0
        while (i < keep.length) { columns(i) = b.column(keep(i)); i += 1 }
        var j = 0
        while (j < fields.length) {
          var v = b.column(fields(j)._1)
          var missing = allNull(v)
          fields(j)._2.foreach { o => v = v.getChild(o); missing ||= allNull(v) }
          columns(i + j) = if (missing) nulls(j, v.dataType, b.numRows()) else v
          j += 1
        }
        new ColumnarBatch(columns, b.numRows())
      }
    }, preservesPartitioning = true)
  }

  override protected def withNewChildInternal(newChild: SparkPlan): NestedLeafColumnsExec =
    copy(child = newChild)
}
