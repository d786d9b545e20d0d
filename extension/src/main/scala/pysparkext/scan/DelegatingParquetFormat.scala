package pysparkext.scan

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

/**
 * A Parquet format that wraps another one's reader. Whether a scan returns batches, and of which
 * vectors, is the wrapped format's decision: Spark asks the scan's format, and the wrapped reader
 * must be asked for batches exactly when it can produce them (the spec-layout format, for one,
 * reads some files row by row).
 */
abstract class DelegatingParquetFormat(val delegate: ParquetFileFormat) extends ParquetFileFormat {
  override def supportBatch(sparkSession: SparkSession, schema: StructType): Boolean =
    delegate.supportBatch(sparkSession, schema)

  override def vectorTypes(
      requiredSchema: StructType,
      partitionSchema: StructType,
      sqlConf: SQLConf): Option[Seq[String]] =
    delegate.vectorTypes(requiredSchema, partitionSchema, sqlConf)
}
