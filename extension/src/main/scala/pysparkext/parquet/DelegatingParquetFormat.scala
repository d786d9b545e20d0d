package pysparkext.parquet

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{FileFormat, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.StructType

/** What Spark asks a file format's reader for (`buildReaderWithPartitionValues`), as one value. */
final case class ReaderRequest(
    session: SparkSession,
    dataSchema: StructType,
    partitionSchema: StructType,
    requiredSchema: StructType,
    filters: Seq[Filter],
    options: Map[String, String],
    hadoopConf: Configuration) {

  /** `format`'s reader for this request. */
  def readBy(format: FileFormat): PartitionedFile => Iterator[InternalRow] =
    format.buildReaderWithPartitionValues(session, dataSchema, partitionSchema, requiredSchema,
      filters, options, hadoopConf)
}

/**
 * A Parquet format whose reader of a file split is another reader with something around it
 * (a check, a count, another decoder for some files). Such a format implements [[readerFor]],
 * given the request and [[innerReader]]: by default Spark's own Parquet reader.
 */
abstract class WrappingParquetFormat extends ParquetFileFormat {
  protected def readerFor(request: ReaderRequest): PartitionedFile => Iterator[InternalRow]

  /** The reader this format wraps. */
  protected def innerReader(request: ReaderRequest): PartitionedFile => Iterator[InternalRow] =
    super.buildReaderWithPartitionValues(request.session, request.dataSchema,
      request.partitionSchema, request.requiredSchema, request.filters, request.options,
      request.hadoopConf)

  final override def buildReaderWithPartitionValues(
      sparkSession: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] =
    readerFor(ReaderRequest(sparkSession, dataSchema, partitionSchema, requiredSchema, filters,
      options, hadoopConf))
}

/**
 * A Parquet format that wraps another one's reader. Whether a scan returns batches, and of which
 * vectors, is the wrapped format's decision: Spark asks the scan's format, and the wrapped reader
 * must be asked for batches exactly when it can produce them (the spec-layout format, for one,
 * reads some files row by row).
 */
abstract class DelegatingParquetFormat(val delegate: ParquetFileFormat) extends WrappingParquetFormat {
  override protected def innerReader(request: ReaderRequest): PartitionedFile => Iterator[InternalRow] =
    request.readBy(delegate)

  override def supportBatch(sparkSession: SparkSession, schema: StructType): Boolean =
    delegate.supportBatch(sparkSession, schema)

  override def vectorTypes(
      requiredSchema: StructType,
      partitionSchema: StructType,
      sqlConf: SQLConf): Option[Seq[String]] =
    delegate.vectorTypes(requiredSchema, partitionSchema, sqlConf)
}
