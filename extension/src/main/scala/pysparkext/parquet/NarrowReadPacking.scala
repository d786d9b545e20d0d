package pysparkext.parquet

import java.util.Locale

import scala.collection.mutable
import scala.jdk.CollectionConverters._
import scala.reflect.ClassTag
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import org.apache.spark.internal.Logging
import org.apache.spark.rdd.{PartitionCoalescer, PartitionGroup, RDD}
import org.apache.spark.sql.execution.datasources.{FilePartition, HadoopFsRelation, PartitionedFile}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.StructType

import pysparkext.ExtConf

/**
 * Packs a Parquet scan's splits into fewer tasks when the scan reads a small share of each file.
 * Spark sizes scan tasks by whole-file bytes (`spark.sql.files.maxPartitionBytes`), so a scan
 * of two leaves of a wide file gets as many tasks as a scan of all of them, and each task's fixed
 * cost (scheduling, deserialisation, opening a file) is paid for little work. Here the share of
 * a file that the scan's columns take is estimated from the column-chunk sizes in a few footers
 * (the largest share found is used; a file's sizes are cached, so its footer is parsed once),
 * and Spark's own split rule is applied to the estimated bytes: the same `maxPartitionBytes`,
 * `openCostInBytes` and minimum number of partitions (the default parallelism unless
 * `spark.sql.files.minPartitionNum` says otherwise), so every core still gets work.
 *
 * Only the grouping changes: consecutive tasks become one task that reads their splits one
 * after the other, each whole and by the same reader, so the rows are the same.
 */
object NarrowReadPacking extends Logging {
  /** Reads taking more than this share of their files are left as Spark split them. */
  private val NarrowShare = 0.5
  private val SampledFiles = 3

  /** `rdd`, the splits of a scan of `relation` that reads `requiredSchema`, packed if narrow. */
  def apply[T: ClassTag](rdd: RDD[T], relation: HadoopFsRelation, requiredSchema: StructType): RDD[T] = {
    if (!ExtConf.PackNarrowReads.get) return rdd
    val splits = rdd.partitions
    val session = relation.sparkSession
    val sql = session.sessionState.conf
    // As Spark's FilePartition.maxSplitBytes reads it (its own accessor is private to Spark).
    val minPartitions = sql.filesMinPartitionNum.getOrElse(sql.getConf(
      SQLConf.LEAF_NODE_DEFAULT_PARALLELISM).getOrElse(session.sparkContext.defaultParallelism))
    if (splits.length <= minPartitions ||
        !splits.forall(_.isInstanceOf[FilePartition])) return rdd
    val files = splits.map(_.asInstanceOf[FilePartition].files)
    val share = readShare(files.flatten.toSeq, relation, requiredSchema).getOrElse(return rdd)
    if (share > NarrowShare) return rdd
    val openCost = sql.filesOpenCostInBytes
    val estimated = files.map(_.map(f => (f.length * share).toLong + openCost).sum)
    val total = estimated.sum
    val perCore = (total + minPartitions - 1) / minPartitions
    val maxSplit = math.min(sql.filesMaxPartitionBytes, math.max(openCost, perCore))
    // A whole number of waves over the cores: 3 equal tasks on 2 cores take as long as 4.
    val waves = math.ceil(total.toDouble / maxSplit / minPartitions).toInt.max(1)
    val groups = contiguous(estimated, waves * minPartitions)
    if (groups.length >= splits.length) return rdd
    logInfo(s"Scan of ${relation.location.rootPaths.mkString(", ")} reads about " +
      f"${share * 100}%.1f%% of its files: ${splits.length} splits packed into ${groups.length} tasks")
    rdd.coalesce(groups.length, shuffle = false, Some(new SplitGroups(groups)))
  }

  /**
   * Indices 0 until `sizes.length` cut into at most `n` runs of consecutive indices whose sizes
   * are as even as whole items allow (a run ends once it reaches its share of the total).
   */
  private[parquet] def contiguous(sizes: Array[Long], n: Int): Array[Array[Int]] = {
    val total = sizes.sum.toDouble
    val runs = Array.newBuilder[Array[Int]]
    var (start, done, cut) = (0, 0.0, 1)
    sizes.indices.foreach { i =>
      done += sizes(i)
      if (cut < n && done >= total * cut / n) {
        runs += (start to i).toArray
        start = i + 1
        while (cut < n && done >= total * cut / n) cut += 1
      }
    }
    if (start < sizes.length) runs += (start until sizes.length).toArray
    runs.result()
  }

  /**
   * The largest share of a sampled file's bytes in the column chunks under the scan's required
   * columns, or None if a footer cannot be read (then Spark's splits stand).
   */
  private def readShare(
      files: Seq[PartitionedFile],
      relation: HadoopFsRelation,
      requiredSchema: StructType): Option[Double] = {
    // The first split of each file, in order (`distinctBy` is not in Scala 2.12, which Spark 3.5 runs).
    val byPath = files.foldLeft(mutable.LinkedHashMap.empty[String, PartitionedFile]) { (m, f) =>
      m.getOrElseUpdate(f.filePath.toString, f); m
    }.values.toIndexedSeq
    if (byPath.isEmpty) return None
    val sample = (0 until SampledFiles).map(i => byPath(i * (byPath.length - 1) / (SampledFiles - 1).max(1)))
      .distinct
    val conf = relation.sparkSession.sessionState.newHadoopConfWithOptions(relation.options)
    val caseSensitive = relation.sparkSession.sessionState.conf.caseSensitiveAnalysis
    val wanted = prefixes(requiredSchema).map(normalise(_, caseSensitive))
    try {
      Some(sample.map { f =>
        val read = columnBytes(f, conf).collect {
          case (names, bytes) if wanted.exists(normalise(names, caseSensitive).startsWith(_)) => bytes
        }.sum
        read.toDouble / math.max(1L, f.fileSize)
      }.max)
    } catch {
      case NonFatal(e) =>
        logDebug(s"Not packing splits: a footer could not be read: $e")
        None
    }
  }

  /**
   * A file's compressed bytes per column path, from its footer; cached by the file's version
   * (path, size, modification time), so a wide footer is parsed once rather than at every query
   * and a file rewritten in place is read again. Weighed in column paths in [[ParquetFooters]]'
   * one cache.
   */
  private def columnBytes(f: PartitionedFile, conf: Configuration): Seq[(List[String], Long)] =
    ParquetFooters.cached(FileVersion(f.filePath.toString, f.fileSize, f.modificationTime),
        "columnBytes", (), (sizes: Seq[(List[String], Long)]) => sizes.length) {
      val footer = ParquetFooters.read(new Path(f.filePath.toUri), conf)
      footer.getBlocks.asScala.flatMap(_.getColumns.asScala)
        .groupBy(_.getPath.toArray.toList).map { case (path, chunks) => path -> chunks.map(_.getTotalSize).sum }
        .toSeq
    }

  /**
   * The column paths the scan reads: struct fields down to the first non-struct type. A struct
   * of values Spark's variant push-down extracts reads its whole variant group.
   */
  private def prefixes(schema: StructType): Seq[List[String]] = schema.fields.toSeq.flatMap { f =>
    f.dataType match {
      case s: StructType if s.nonEmpty && !SparkInternals.isVariantStruct(s) => prefixes(s).map(f.name :: _)
      case _ => Seq(List(f.name))
    }
  }

  private def normalise(names: List[String], caseSensitive: Boolean): List[String] =
    if (caseSensitive) names else names.map(_.toLowerCase(Locale.ROOT))

  /** Groups a parent's partitions by index, as [[contiguous]] cut them. */
  private final class SplitGroups(groups: Array[Array[Int]])
    extends PartitionCoalescer with Serializable {
    override def coalesce(maxPartitions: Int, parent: RDD[_]): Array[PartitionGroup] =
      groups.map { g =>
        val group = new PartitionGroup(None)
        g.foreach(i => group.partitions += parent.partitions(i))
        group
      }
  }
}
