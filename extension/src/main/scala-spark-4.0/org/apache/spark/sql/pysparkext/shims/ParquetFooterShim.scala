package org.apache.spark.sql.pysparkext.shims

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.ParquetReadOptions
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.format.converter.ParquetMetadataConverter.MetadataFilter
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.execution.datasources.PartitionedFile

/**
 * Footers and file readers on Spark 4.0 (Parquet 1.15), whose `ParquetFooterReader` reads by
 * path or status only. Parquet's own calls do the same work: a split's footer holds the row
 * groups whose midpoint lies in the split, as Spark 4.0's reader cuts it.
 */
object ParquetFooterShim {
  val signatures: Seq[(String, () => Unit)] = Seq(
    "ParquetFileReader.readFooter(InputFile, MetadataFilter)" -> (() =>
      classOf[ParquetFileReader].getMethod("readFooter", classOf[org.apache.parquet.io.InputFile],
        classOf[MetadataFilter])),
    "ParquetFileReader(Configuration, Path, ParquetMetadata, ParquetReadOptions, " +
      "SeekableInputStream)" -> (() => classOf[ParquetFileReader].getConstructor(
        classOf[Configuration], classOf[org.apache.hadoop.fs.Path], classOf[ParquetMetadata],
        classOf[ParquetReadOptions], classOf[org.apache.parquet.io.SeekableInputStream])))

  def readFooter(file: HadoopInputFile, filter: MetadataFilter): ParquetMetadata =
    ParquetFileReader.readFooter(file, filter)

  def splitFilter(conf: Configuration, file: PartitionedFile): MetadataFilter =
    ParquetMetadataConverter.range(file.start, file.start + file.length)

  /** A reader of `input` that uses `footer` instead of reading it again. */
  def open(input: HadoopInputFile, footer: ParquetMetadata, options: ParquetReadOptions)
      : ParquetFileReader =
    new ParquetFileReader(input.getConfiguration, input.getPath, footer, options, input.newStream())
}
