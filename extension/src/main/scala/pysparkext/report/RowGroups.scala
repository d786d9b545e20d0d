package pysparkext.report

import org.apache.parquet.filter2.compat.{FilterCompat, RowGroupFilter}
import org.apache.parquet.filter2.predicate.FilterApi
import org.apache.parquet.hadoop.metadata.ParquetMetadata

import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.execution.datasources.parquet.ParquetFilters
import org.apache.spark.sql.internal.{LegacyBehaviorPolicy, SQLConf}
import org.apache.spark.sql.sources

/**
 * How many row groups a scan's pushed filters keep, judged on each file's row-group statistics
 * exactly as Parquet's reader judges them (dictionaries and the page index can skip more).
 */
object RowGroups {
  /** (row groups in the files, row groups whose statistics the filters cannot rule out). */
  def count(footers: Seq[ParquetMetadata], filters: Seq[sources.Filter]): (Long, Long) = {
    val sql = SQLConf.get
    footers.foldLeft((0L, 0L)) { case ((total, kept), footer) =>
      val schema = footer.getFileMetaData.getSchema
      val blocks = footer.getBlocks
      val convert = new ParquetFilters(schema, sql.parquetFilterPushDownDate,
        sql.parquetFilterPushDownTimestamp, sql.parquetFilterPushDownDecimal,
        sql.parquetFilterPushDownStringPredicate, sql.parquetFilterPushDownInFilterThreshold,
        sql.caseSensitiveAnalysis, RebaseSpec(LegacyBehaviorPolicy.CORRECTED, None), None)
      val predicate = filters.flatMap(f => convert.createFilter(f)).reduceOption(FilterApi.and(_, _))
      val read = predicate.map(p =>
        RowGroupFilter.filterRowGroups(FilterCompat.get(p), blocks, schema).size).getOrElse(blocks.size)
      (total + blocks.size, kept + read)
    }
  }
}
