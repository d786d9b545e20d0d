package org.apache.spark.sql.pysparkext.shims

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.ParquetReadOptions
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.format.converter.ParquetMetadataConverter.MetadataFilter
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetInputFormat}
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.execution.datasources.PartitionedFile

/**
 * Footers and file readers on Spark 3.5 (Parquet 1.13). Footers are read as on 4.0.
 *
 * Parquet 1.13's one reader constructor that takes a footer already read is
 * `ParquetFileReader(Configuration, Path, ParquetMetadata)` (deprecated, but what Spark 3.5's own
 * vectorized reader opens when it has read the footer). It takes no read options: it builds them
 * from the configuration, as `HadoopReadOptions.builder(conf)` does, and keeps the footer's row
 * groups that the configuration's record filter keeps. So [[open]] gives it a copy of the file's
 * configuration that says what the options say: the record filter, stored as
 * `ParquetInputFormat.setFilterPredicate` stores it (as Spark 3.5's reader stores its pushed
 * filter), and the filtering and checksum switches. The footer is not read a second time, and the
 * reader keeps the same row groups and pages as one opened from the options: the footer it gets is
 * already cut to the split (the options' range), and the rest of the options (codec factory,
 * allocator) are the defaults the builder takes from the same configuration.
 */
object ParquetFooterShim {
  val signatures: Seq[(String, () => Unit)] = Seq(
    "ParquetFileReader.readFooter(InputFile, MetadataFilter)" -> (() =>
      classOf[ParquetFileReader].getMethod("readFooter", classOf[org.apache.parquet.io.InputFile],
        classOf[MetadataFilter])),
    "ParquetFileReader(Configuration, Path, ParquetMetadata)" -> (() => classOf[ParquetFileReader]
      .getConstructor(classOf[Configuration], classOf[org.apache.hadoop.fs.Path], classOf[ParquetMetadata])),
    "ParquetFileReader(InputFile, ParquetReadOptions)" -> (() => classOf[ParquetFileReader]
      .getConstructor(classOf[org.apache.parquet.io.InputFile], classOf[ParquetReadOptions])))

  def readFooter(file: HadoopInputFile, filter: MetadataFilter): ParquetMetadata =
    ParquetFileReader.readFooter(file, filter)

  def splitFilter(conf: Configuration, file: PartitionedFile): MetadataFilter =
    ParquetMetadataConverter.range(file.start, file.start + file.length)

  /**
   * A reader of `input` that uses `footer` (already cut to the split `options` read) instead of
   * reading it again. `options` come from `HadoopReadOptions.builder` over `input`'s
   * configuration, as every caller builds them. An unbound record filter (an old Parquet API no
   * caller uses) has no place in the configuration beside a predicate: such options open the
   * reader from the file, which reads the footer once more.
   */
  @annotation.nowarn("cat=deprecation")
  def open(input: HadoopInputFile, footer: ParquetMetadata, options: ParquetReadOptions)
      : ParquetFileReader =
    readerConf(input.getConfiguration, options) match {
      case Some(conf) => new ParquetFileReader(conf, input.getPath, footer)
      case None => new ParquetFileReader(input, options)
    }

  /** A copy of `base` from which Parquet 1.13 builds `options` again; None where it cannot. */
  private def readerConf(base: Configuration, options: ParquetReadOptions): Option[Configuration] = {
    val conf = new Configuration(base)
    conf.unset(ParquetInputFormat.UNBOUND_RECORD_FILTER)
    conf.unset(ParquetInputFormat.FILTER_PREDICATE)
    val carried = options.getRecordFilter match {
      case f: FilterCompat.FilterPredicateCompat =>
        ParquetInputFormat.setFilterPredicate(conf, f.getFilterPredicate)
        true
      case _: FilterCompat.NoOpFilter => true
      case _ => false
    }
    if (!carried) return None
    conf.setBoolean(ParquetInputFormat.RECORD_FILTERING_ENABLED, options.useRecordFilter)
    conf.setBoolean(ParquetInputFormat.STATS_FILTERING_ENABLED, options.useStatsFilter)
    conf.setBoolean(ParquetInputFormat.DICTIONARY_FILTERING_ENABLED, options.useDictionaryFilter)
    conf.setBoolean(ParquetInputFormat.COLUMN_INDEX_FILTERING_ENABLED, options.useColumnIndexFilter)
    conf.setBoolean(ParquetInputFormat.BLOOM_FILTERING_ENABLED, options.useBloomFilter)
    conf.setBoolean(ParquetInputFormat.PAGE_VERIFY_CHECKSUM_ENABLED, options.usePageChecksumVerification)
    conf.setBoolean("parquet.strings.signed-min-max.enabled", options.useSignedStringMinMax)
    conf.setInt("parquet.read.allocation.size", options.getMaxAllocationSize)
    Some(conf)
  }
}
