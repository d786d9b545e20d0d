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
 * Footers and file readers on Spark 3.5 (Parquet 1.13). Footers are read as on 4.0. Parquet 1.13
 * has no reader constructor that takes a footer already read, so a reader is opened from the
 * file and the options, and reads the split's footer once more: the same row groups (the
 * options carry the split's range), at the cost of one more footer read per split.
 */
object ParquetFooterShim {
  val signatures: Seq[(String, () => Unit)] = Seq(
    "ParquetFileReader.readFooter(InputFile, MetadataFilter)" -> (() =>
      classOf[ParquetFileReader].getMethod("readFooter", classOf[org.apache.parquet.io.InputFile],
        classOf[MetadataFilter])),
    "ParquetFileReader(InputFile, ParquetReadOptions)" -> (() => classOf[ParquetFileReader]
      .getConstructor(classOf[org.apache.parquet.io.InputFile], classOf[ParquetReadOptions])))

  def readFooter(file: HadoopInputFile, filter: MetadataFilter): ParquetMetadata =
    ParquetFileReader.readFooter(file, filter)

  def splitFilter(conf: Configuration, file: PartitionedFile): MetadataFilter =
    ParquetMetadataConverter.range(file.start, file.start + file.length)

  /** A reader of `input`'s split, as `options` cut it; `footer` is not reused on Parquet 1.13. */
  def open(input: HadoopInputFile, footer: ParquetMetadata, options: ParquetReadOptions)
      : ParquetFileReader =
    new ParquetFileReader(input, options)
}
