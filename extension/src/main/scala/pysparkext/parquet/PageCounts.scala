package pysparkext.parquet

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.filter2.compat.FilterCompat
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexFilter

import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.internal.LegacyBehaviorPolicy
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.sources

import pysparkext.parquet.RowGroups.FilterSettings

/**
 * How many pages of the columns a scan reads its pushed filters let Parquet's page index skip,
 * inside the row groups that are read.
 *
 * Spark's vectorized reader (`readNextFilteredRowGroup`, on every supported line) asks Parquet for
 * the row ranges of each row group that the filter can match, from the column indexes
 * (`ColumnIndexFilter.calculateRowRanges`: per-page min/max and null counts; an OR is the union of
 * its sides' ranges), and decodes only the pages, found through the offset indexes, that overlap
 * those ranges. The count here asks the same question of the same Parquet code: the row groups
 * are those Parquet's reader keeps (statistics, dictionaries, bloom filters, by Parquet's own
 * settings), less those [[RowGroupSelection]] skips where the scan reads through it; a page is
 * read when its rows overlap the row ranges. With `parquet.filter.columnindex.enabled` off, or a
 * column chunk without a column index, every page counts as read, as the reader reads them all.
 * A column chunk without an offset index has no page count in the footer: it is left out of
 * both counts, and a file with no offset index at all gives no count.
 */
object PageCounts {
  /** Pages of the read columns in the row groups read, and those of them the reader decodes. */
  final case class Pages(total: Long, read: Long) {
    def +(o: Pages): Pages = Pages(total + o.total, read + o.read)
  }

  /**
   * Pages of the columns `columns` (dotted Parquet paths) in `file`, or None where no read column
   * chunk has an offset index or no filter reaches Parquet.
   */
  def of(file: Path, footer: ParquetMetadata, conf: Configuration, pushed: Seq[sources.Filter],
      columns: Set[String], settings: FilterSettings, selects: Boolean): Option[Pages] = {
    val schema = footer.getFileMetaData.getSchema
    settings.predicate(schema, pushed, RebaseSpec(LegacyBehaviorPolicy.CORRECTED, None)).flatMap { p =>
      val filter = FilterCompat.get(p)
      val options = HadoopReadOptions.builder(conf, file).withRecordFilter(filter).build()
      val reader = SparkInternals.openParquetFile(HadoopInputFile.fromPath(file, conf), footer, options)
      try {
        val useIndex = options.useColumnIndexFilter
        val allPaths = schema.getColumns.asScala.map(c =>
          org.apache.parquet.hadoop.metadata.ColumnPath.get(c.getPath: _*)).toSet.asJava
        val counted = reader.getRowGroups.asScala.zipWithIndex.flatMap { case (block, i) =>
          if (selects && !RowGroupSelection.kept(p, block, reader, conf)) Nil
          else {
            val store = reader.getColumnIndexStore(i)
            // all the file's columns: a filter column the read does not select is in the file
            val ranges = if (useIndex) Some(ColumnIndexFilter.calculateRowRanges(filter, store, allPaths,
              block.getRowCount)) else None
            block.getColumns.asScala.filter(c => columns.contains(c.getPath.toDotString)).flatMap { chunk =>
              Option(reader.readOffsetIndex(chunk)).map { index =>
                val pages = index.getPageCount
                val read = ranges.fold(pages) { r =>
                  (0 until pages).count(j => r.isOverlapping(index.getFirstRowIndex(j),
                    index.getLastRowIndex(j, block.getRowCount)))
                }
                Pages(pages, read)
              }
            }
          }
        }
        counted.reduceOption(_ + _)
      } finally reader.close()
    }
  }
}
