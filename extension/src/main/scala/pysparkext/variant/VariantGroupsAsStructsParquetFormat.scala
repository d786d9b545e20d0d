package pysparkext.variant

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

/**
 * Spark's Parquet reader, except that groups annotated with Parquet's VARIANT logical type are
 * read as the structs they physically are (`metadata`, `value`, `typed_value`...). Spark's own
 * switch for this, `spark.sql.parquet.ignoreVariantAnnotation`, is session-wide; this format sets
 * it only in the Hadoop configuration of the scans that use it, so one query can read the leaves
 * of a shredded variant while every other scan keeps reading VARIANT. Everything else
 * (vectorised reading, filter push-down, row-group statistics) is the stock reader's.
 */
class VariantGroupsAsStructsParquetFormat extends ParquetFileFormat {
  override def buildReaderWithPartitionValues(
      sparkSession: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    val conf = new Configuration(hadoopConf)
    conf.setBoolean(VariantGroupsAsStructsParquetFormat.IgnoreAnnotation, true)
    super.buildReaderWithPartitionValues(sparkSession, dataSchema, partitionSchema,
      requiredSchema, filters, options, conf)
  }

  // Stock ParquetFileFormat equals any ParquetFileFormat; this one must not be taken for it.
  override def equals(other: Any): Boolean = other.isInstanceOf[VariantGroupsAsStructsParquetFormat]
  override def hashCode(): Int = getClass.hashCode()
}

object VariantGroupsAsStructsParquetFormat {
  val IgnoreAnnotation = "spark.sql.parquet.ignoreVariantAnnotation"
}
