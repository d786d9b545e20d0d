package pysparkext.parquet

import org.apache.spark.sql.execution.datasources.FileFormat
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.pysparkext.shims.VariantHalfShim

/** Which Parquet formats the physical rules may wrap or replace. */
object ParquetFormats {
  /**
   * Spark's own Parquet format, or the extension's formats for shredded variant relations (which
   * only set a Hadoop option, and check that files are still as listed). A format that subclasses
   * Spark's, such as a table format's, may read differently, so it is left alone.
   */
  def readsAsSpark(format: FileFormat): Boolean = format != null &&
    (format.getClass == classOf[ParquetFileFormat] ||
      format.getClass == classOf[ListedFilesParquetFormat] ||
      VariantHalfShim.isVariantGroupsFormat(format))
}
