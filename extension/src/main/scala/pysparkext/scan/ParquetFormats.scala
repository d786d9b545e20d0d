package pysparkext.scan

import org.apache.spark.sql.execution.datasources.FileFormat
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat

import pysparkext.variant.VariantGroupsAsStructsParquetFormat

/** Which Parquet formats the physical rules may wrap or replace. */
object ParquetFormats {
  /**
   * Spark's own Parquet format, or the extension's variant-struct variant of it (which only sets
   * a Hadoop option). A format that subclasses Spark's, such as a table format's, may read
   * differently, so it is left alone.
   */
  def readsAsSpark(format: FileFormat): Boolean = format != null &&
    (format.getClass == classOf[ParquetFileFormat] ||
      format.getClass == classOf[VariantGroupsAsStructsParquetFormat])
}
