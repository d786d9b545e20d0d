package pysparkext.parquet

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.execution.datasources.parquet.ParquetFooterReader

/** Full footers (row groups included) of Parquet files, read once per report. */
object ParquetFooters {
  def read(files: Seq[String], conf: Configuration): Seq[ParquetMetadata] = files.map { file =>
    ParquetFooterReader.readFooter(
      HadoopInputFile.fromPath(new Path(file), conf), ParquetMetadataConverter.NO_FILTER)
  }
}
