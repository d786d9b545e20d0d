package pysparkext.parquet

import org.apache.parquet.filter2.compat.{FilterCompat, RowGroupFilter}
import org.apache.parquet.filter2.predicate.{FilterApi, FilterPredicate}
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.schema.MessageType

import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.sources

/**
 * How many row groups a scan's pushed filters keep, judged on each file's row-group statistics
 * exactly as Parquet's reader judges them (dictionaries and the page index can skip more).
 */
object RowGroups {
  /**
   * The session settings that decide which filters reach Parquet. Taken on the driver, because
   * executors count row groups too (`RowGroupCountingParquetFormat`).
   */
  case class FilterSettings(
      pushDown: Boolean, date: Boolean, timestamp: Boolean, decimal: Boolean,
      stringPredicate: Boolean, inThreshold: Int, caseSensitive: Boolean) {

    /** The Parquet predicate Spark pushes for `filters` on a file of `schema`, if any. */
    def predicate(schema: MessageType, filters: Seq[sources.Filter], rebase: RebaseSpec): Option[FilterPredicate] =
      if (!pushDown) None else {
        val convert = SparkInternals.parquetFilters(schema, date, timestamp, decimal, stringPredicate,
          inThreshold, caseSensitive, rebase)
        filters.flatMap(f => convert.createFilter(f)).reduceOption(FilterApi.and(_, _))
      }
  }

  object FilterSettings {
    def current: FilterSettings = {
      val sql = SQLConf.get
      FilterSettings(sql.parquetFilterPushDown, sql.parquetFilterPushDownDate,
        sql.parquetFilterPushDownTimestamp, sql.parquetFilterPushDownDecimal,
        sql.parquetFilterPushDownStringPredicate, sql.parquetFilterPushDownInFilterThreshold,
        sql.caseSensitiveAnalysis)
    }
  }

  /** (row groups in the footer, row groups whose statistics the filters cannot rule out). */
  def keptIn(footer: ParquetMetadata, filters: Seq[sources.Filter], s: FilterSettings): (Int, Int) = {
    val schema = footer.getFileMetaData.getSchema
    val blocks = footer.getBlocks
    val predicate = s.predicate(schema, filters, RebaseSpec(LegacyBehaviorPolicy.CORRECTED, None))
    val kept = predicate.map(p =>
      RowGroupFilter.filterRowGroups(FilterCompat.get(p), blocks, schema).size).getOrElse(blocks.size)
    (blocks.size, kept)
  }

  /** Summed over files: (row groups, row groups kept). */
  def count(footers: Seq[ParquetMetadata], filters: Seq[sources.Filter]): (Long, Long) = {
    val settings = FilterSettings.current
    footers.foldLeft((0L, 0L)) { case ((total, kept), footer) =>
      val (t, k) = keptIn(footer, filters, settings)
      (total + t, kept + k)
    }
  }
}
