package pysparkext.variant.format

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.{DataType, StructType}

import pysparkext.parquet.{ListedFilesParquetFormat, ReaderRequest}
import pysparkext.variant.codec.RawTypedValue

/**
 * Spark's Parquet reader, except that groups annotated with Parquet's VARIANT logical type are
 * read as the structs they physically are (`metadata`, `value`, `typed_value`...). Spark's own
 * switch for this, `spark.sql.parquet.ignoreVariantAnnotation`, is session-wide; this format sets
 * it only in the Hadoop configuration of the scans that use it, so one query can read the leaves
 * of a shredded variant while every other scan keeps reading VARIANT. Everything else
 * (vectorised reading, filter push-down, row-group statistics) is the stock reader's.
 *
 * A scan that reads a `typed_value` leaf Spark has no column type for ([[RawTypedValue]]) uses
 * Spark's row-based reader: the vectorised reader converts the file's schema itself and rejects
 * such a leaf, or (TIME) reads it in another unit. The row-based reader converts an array's
 * element type to tell list layouts apart, so it reads nanosecond timestamps as longs (Spark's
 * `spark.sql.legacy.parquet.nanosAsLong`, which is what the raw type holds anyway). Such files are
 * rare (other engines' TIME, nanosecond timestamps and UUIDs); every other scan stays vectorised.
 * Like every scan of a shredded relation, it checks that each file is still as listed
 * ([[ListedFilesParquetFormat]]).
 */
class VariantGroupsAsStructsParquetFormat extends ListedFilesParquetFormat {
  override def supportBatch(sparkSession: SparkSession, schema: StructType): Boolean =
    !VariantGroupsAsStructsParquetFormat.hasRawLeaves(schema) && super.supportBatch(sparkSession, schema)

  // The listed-files check wraps a reader that ignores the annotation (and reads raw leaves row
  // by row), so both settings go into the request the inner reader gets.
  override protected def innerReader(request: ReaderRequest): PartitionedFile => Iterator[InternalRow] = {
    val conf = new Configuration(request.hadoopConf)
    conf.setBoolean(VariantGroupsAsStructsParquetFormat.IgnoreAnnotation, true)
    val session =
      if (!VariantGroupsAsStructsParquetFormat.hasRawLeaves(request.requiredSchema)) request.session
      else SparkInternals.withSettings(request.session, VariantGroupsAsStructsParquetFormat.RowReader)
    super.innerReader(request.copy(session = session, hadoopConf = conf))
  }

}

object VariantGroupsAsStructsParquetFormat {
  val IgnoreAnnotation = "spark.sql.parquet.ignoreVariantAnnotation"
  private val RowReader = Map("spark.sql.parquet.enableVectorizedReader" -> "false",
    "spark.sql.legacy.parquet.nanosAsLong" -> "true")

  def hasRawLeaves(t: DataType): Boolean =
    SparkInternals.existsRecursively(t)(_.isInstanceOf[RawTypedValue])
}
