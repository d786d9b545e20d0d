package pysparkext.parquet

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.filter2.bloomfilterlevel.BloomFilterImpl
import org.apache.parquet.filter2.dictionarylevel.DictionaryFilter
import org.apache.parquet.filter2.predicate.FilterPredicate
import org.apache.parquet.filter2.predicate.Operators.{And, Or}
import org.apache.parquet.filter2.statisticslevel.StatisticsFilter
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.{BlockMetaData, ParquetMetadata}
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{DataSourceUtils, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources

import pysparkext.ExtConf
import pysparkext.parquet.RowGroups.FilterSettings

/**
 * Which row groups of a file split can hold a row that the scan's pushed filters accept, judged
 * on statistics, dictionaries and bloom filters together, leaf predicate by leaf predicate.
 *
 * Parquet's reader (`RowGroupFilter`) asks each level about the whole predicate: statistics, then
 * dictionaries, then bloom filters, each alone. The extension's skip predicates for shredded paths
 * are disjunctions, `typed_value = 'x' OR untyped IS NOT NULL`: only statistics decide the
 * `IS NOT NULL` (an all-null column), and on unsorted data only a dictionary or a bloom filter
 * decides the equality, so no level alone can rule the disjunction out and nothing is skipped.
 * Here each leaf predicate is ruled out if any level rules it out; an AND is ruled out if one
 * side is, an OR if both are. Each level's verdict on a leaf is sound on its own (Parquet's), and
 * a row can satisfy an AND or OR only if it satisfies its sides as the connective says, so a
 * row group ruled out this way holds no row the filter accepts: the same rows come back, from
 * fewer row groups. A `NOT` and everything else that is not AND/OR is judged whole by each level,
 * as Parquet judges it.
 *
 * The reader is then given one sub-split per run of kept row groups: Spark's reader reads the row
 * groups whose midpoint falls inside a split, so a split from the first kept group's start to the
 * last one's end reads exactly that run. Only predicates with an OR are judged here; without one,
 * Parquet's own level-by-level judgement is the same as this one.
 */
object RowGroupSelection {
  /** What the executors need to judge a split, taken on the driver. */
  final case class Settings(filters: FilterSettings, datetimeRebaseMode: String) {
    def predicate(footer: ParquetMetadata, pushed: Seq[sources.Filter]): Option[FilterPredicate] = {
      val keyValues = footer.getFileMetaData.getKeyValueMetaData
      val rebase = DataSourceUtils.datetimeRebaseSpec(k => keyValues.get(k), datetimeRebaseMode)
      filters.predicate(footer.getFileMetaData.getSchema, pushed, rebase)
    }
  }

  object Settings {
    def current: Settings =
      Settings(FilterSettings.current, SQLConf.get.getConf(SQLConf.PARQUET_REBASE_MODE_IN_READ).toString)
  }

  /** The levels Parquet's reader uses, by its own settings (all on by default). */
  private final case class Levels(statistics: Boolean, dictionary: Boolean, bloom: Boolean)

  private def levels(conf: Configuration): Levels = Levels(
    conf.getBoolean("parquet.filter.statistics.enabled", true),
    conf.getBoolean("parquet.filter.dictionary.enabled", true),
    conf.getBoolean("parquet.filter.bloom.enabled", true))

  private def hasOr(p: FilterPredicate): Boolean = p match {
    case _: Or => true
    case a: And => hasOr(a.getLeft) || hasOr(a.getRight)
    case _ => false
  }

  /**
   * The split's row groups (in file order) and, for each, whether it is kept; None where nothing
   * is pushed, or (unless `always`) where the pushed predicate has no OR (Parquet's reader judges
   * such a predicate as well by itself; counting row groups judges it here too).
   */
  def judge(file: PartitionedFile, conf: Configuration, pushed: Seq[sources.Filter],
      settings: Settings, always: Boolean = false): Option[Seq[(BlockMetaData, Boolean)]] = {
    if (pushed.isEmpty) return None
    val input = HadoopInputFile.fromPath(file.toPath, conf)
    val footer = ParquetFooters.readSplit(input, file, conf)
    val blocks = footer.getBlocks.asScala.toSeq
    settings.predicate(footer, pushed).filter(p => blocks.nonEmpty && (always || hasOr(p))).map { predicate =>
      val on = levels(conf)
      val needsReader = on.dictionary || on.bloom
      val reader = if (needsReader) {
        org.apache.spark.sql.pysparkext.SparkInternals.openParquetFile(input, footer,
          HadoopReadOptions.builder(conf, file.toPath).build())
      } else null
      try blocks.map(b => b -> !cannotMatch(predicate, b, reader, on))
      finally if (reader != null) reader.close()
    }
  }

  /** Whether `block` is kept as [[judge]] keeps it, by the levels `conf` turns on. */
  def kept(predicate: FilterPredicate, block: BlockMetaData, reader: ParquetFileReader,
      conf: Configuration): Boolean = !cannotMatch(predicate, block, reader, levels(conf))

  private def cannotMatch(p: FilterPredicate, block: BlockMetaData, reader: ParquetFileReader,
      on: Levels): Boolean = p match {
    case a: And => cannotMatch(a.getLeft, block, reader, on) || cannotMatch(a.getRight, block, reader, on)
    case o: Or => cannotMatch(o.getLeft, block, reader, on) && cannotMatch(o.getRight, block, reader, on)
    case leaf =>
      val columns = block.getColumns
      (on.statistics && StatisticsFilter.canDrop(leaf, columns)) ||
        (on.dictionary && DictionaryFilter.canDrop(leaf, columns, reader.getDictionaryReader(block))) ||
        (on.bloom && BloomFilterImpl.canDrop(leaf, columns, reader.getBloomFilterDataReader(block)))
  }

  /**
   * `read` over the row groups of `file` that [[judge]] keeps: the split itself where it keeps
   * them all (or does not judge), else one sub-split per run of kept row groups.
   */
  def readKept(file: PartitionedFile, conf: Configuration, pushed: Seq[sources.Filter],
      settings: Settings)(read: PartitionedFile => Iterator[InternalRow]): Iterator[InternalRow] =
    judge(file, conf, pushed, settings) match {
      case Some(judged) if judged.exists(!_._2) =>
        runs(judged).iterator.flatMap { case (start, end) =>
          read(file.copy(start = start, length = end - start))
        }
      case _ => read(file)
    }

  /**
   * Whether scans through `format` read only the row groups [[judge]] keeps: the formats of
   * shredded variant relations, while `spark.pyspark_ext.variant.skipping.enabled` is on.
   */
  def selects(format: ParquetFileFormat): Boolean = format match {
    case f: LeafColumnsParquetFormat => selects(f.delegate)
    case f: RowGroupCountingParquetFormat => selects(f.delegate)
    case _: ListedFilesParquetFormat => ExtConf.VariantSkipping.get
    case _ => false
  }

  /** Byte ranges, each from a run's first row group's start to its last one's end. */
  private def runs(judged: Seq[(BlockMetaData, Boolean)]): Seq[(Long, Long)] = {
    val out = Seq.newBuilder[(Long, Long)]
    var current: Option[(Long, Long)] = None
    judged.foreach { case (block, kept) =>
      val (start, end) = (block.getStartingPos, block.getStartingPos + block.getCompressedSize)
      if (kept) current = Some(current.map(_._1).getOrElse(start) -> end)
      else { current.foreach(out += _); current = None }
    }
    current.foreach(out += _)
    out.result()
  }
}
