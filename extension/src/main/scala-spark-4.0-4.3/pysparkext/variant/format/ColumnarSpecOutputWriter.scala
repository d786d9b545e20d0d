package pysparkext.variant.format

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{RecordWriter, TaskAttemptContext}
import org.apache.parquet.hadoop.ParquetOutputFormat

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.OutputWriter

import pysparkext.variant.write.columnar.ColumnarSpecWriteSupport

/**
 * Spark's `ParquetOutputWriter`, with the write support given as an object rather than by class
 * name in the conf (an executor's conf may not load the extension's classes by name).
 */
class ColumnarSpecOutputWriter(val path: String, context: TaskAttemptContext) extends OutputWriter {
  private val records: RecordWriter[Void, InternalRow] =
    new ParquetOutputFormat[InternalRow](new ColumnarSpecWriteSupport) {
      override def getDefaultWorkFile(context: TaskAttemptContext, extension: String): Path = new Path(path)
    }.getRecordWriter(context)

  override def write(row: InternalRow): Unit = records.write(null, row)
  override def close(): Unit = records.close(context)
}
