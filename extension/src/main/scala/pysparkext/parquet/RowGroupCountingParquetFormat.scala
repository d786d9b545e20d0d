package pysparkext.parquet

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.pysparkext.HadoopConfShipping

/**
 * A Parquet format that reads exactly as `delegate` does and counts, per file split, the row
 * groups the split holds and those its pushed filters keep on row-group statistics. The counts go
 * to two SQL metrics that [[RowGroupMetricsExec]] shows above the scan.
 *
 * Counting reads the split's footer once more (no column data, but a wide file's footer is
 * large: see [[InsertRowGroupMetrics]] for what that costs). Over a format that reads only the
 * row groups [[RowGroupSelection]] keeps (shredded variant scans), it counts what that selection
 * keeps, on statistics, dictionaries and bloom filters (reading those of the split once more).
 * Elsewhere it judges statistics exactly as Parquet's reader does; Parquet may skip more row
 * groups using dictionaries and bloom filters, so "read" is an upper bound on what the reader
 * decodes.
 */
class RowGroupCountingParquetFormat(
    delegate: ParquetFileFormat,
    val rowGroupsRead: SQLMetric,
    val rowGroupsSkipped: SQLMetric) extends DelegatingParquetFormat(delegate) {

  override protected def readerFor(request: ReaderRequest): PartitionedFile => Iterator[InternalRow] = {
    val readFile = innerReader(request)
    val filters = request.filters
    val settings = RowGroups.FilterSettings.current
    val selection = if (RowGroupSelection.selects(delegate)) Some(RowGroupSelection.Settings.current) else None
    val conf = HadoopConfShipping.ship(request.session.sparkContext, request.hadoopConf)
    val (read, skipped) = (rowGroupsRead, rowGroupsSkipped)
    (file: PartitionedFile) => {
      val c = conf()
      val judged = selection.flatMap(s => RowGroupSelection.judge(file, c, filters, s, always = true))
      val (total, kept) = judged.map(j => (j.size, j.count(_._2))).getOrElse(
        RowGroups.keptIn(ParquetFooters.readSplit(file, c), filters, settings))
      read.add(kept.toLong)
      skipped.add((total - kept).toLong)
      readFile(file)
    }
  }

  // Reads as the delegate does, so scans that differ only in their counters are the same scan
  // (exchange and subquery reuse compare scans by their relation).
  override def equals(other: Any): Boolean = other match {
    case c: RowGroupCountingParquetFormat => c.delegate == delegate
    case _ => false
  }
  override def hashCode(): Int = delegate.hashCode()
}
