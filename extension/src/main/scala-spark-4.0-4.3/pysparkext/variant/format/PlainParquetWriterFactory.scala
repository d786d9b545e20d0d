package pysparkext.variant.format

import org.apache.hadoop.mapreduce.TaskAttemptContext

import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.StructType

/**
 * Spark's factory's file names, with a writer that never infers a shredding schema: the
 * column-by-column one ([[ColumnarSpecWriteSupport]]) when `columnar`, else Spark's plain writer.
 */
class PlainParquetWriterFactory(spark: OutputWriterFactory, columnar: Boolean) extends OutputWriterFactory {
  override def getFileExtension(context: TaskAttemptContext): String = spark.getFileExtension(context)
  override def newInstance(path: String, dataSchema: StructType, context: TaskAttemptContext): OutputWriter =
    if (columnar) new ColumnarSpecOutputWriter(path, context)
    else SparkInternals.plainParquetOutputWriter(path, context)
}
