package org.apache.spark.sql.pysparkext.shims

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.ParquetReadOptions
import org.apache.parquet.format.converter.ParquetMetadataConverter.MetadataFilter
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFooterReader

/** Footers and file readers the way Spark 4.1+ reads them (one open input for both). */
object ParquetFooterShim {
  val signatures: Seq[(String, () => Unit)] = Seq(
    "ParquetFooterReader.readFooter(HadoopInputFile, MetadataFilter)" -> (() =>
      classOf[ParquetFooterReader].getMethod("readFooter", classOf[HadoopInputFile],
        classOf[MetadataFilter])),
    "ParquetFooterReader.buildFilter(Configuration, PartitionedFile, boolean)" -> (() =>
      classOf[ParquetFooterReader].getMethod("buildFilter", classOf[Configuration],
        classOf[PartitionedFile], java.lang.Boolean.TYPE)))

  def readFooter(file: HadoopInputFile, filter: MetadataFilter): ParquetMetadata =
    ParquetFooterReader.readFooter(file, filter)

  def splitFilter(conf: Configuration, file: PartitionedFile): MetadataFilter =
    ParquetFooterReader.buildFilter(conf, file, false)

  /** A reader of `input` that uses `footer` instead of reading it again. */
  def open(input: HadoopInputFile, footer: ParquetMetadata, options: ParquetReadOptions)
      : ParquetFileReader =
    ParquetFileReader.open(input, footer, options, input.newStream())
}
