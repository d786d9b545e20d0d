package pysparkext.parquet

import java.io.FileNotFoundException

import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.pysparkext.{DataError, SparkInternals}

/**
 * Reads Parquet footers, and holds the one cache of facts derived from them. Footers themselves
 * are not cached: a full footer holds every row group's column chunks, and what the rules need of
 * it (a schema, column sizes) is much smaller. Each kind of fact is cached under its own name, in
 * one cache bounded by weight: `weigh` estimates a fact's size in small objects (schema fields,
 * column paths).
 */
object ParquetFooters {
  /** Weight held at most: about 100 bytes a unit, some tens of megabytes in all. */
  val MaxCachedWeight = 700000

  private final case class Fact(value: AnyRef, weight: Int)
  private val cache = new PerFileCache[(String, Any), Fact](MaxCachedWeight, _.weight)

  /**
   * The fact `kind` of a file, derived by `load` from its footer once per file version and
   * `settings` (whatever else the fact depends on, such as session settings).
   */
  def cached[V <: AnyRef](file: FileVersion, kind: String, settings: Any, weigh: V => Int)(load: => V): V =
    cache.getOrLoad(file, (kind, settings)) {
      val value = load
      Fact(value, weigh(value))
    }.value.asInstanceOf[V]

  /** Entries held now (for tests and logs). */
  def cachedEntries: Long = cache.size

  /** A file's whole footer, row groups included. */
  def read(status: FileStatus, conf: Configuration): ParquetMetadata = naming(status.getPath.toString) {
    SparkInternals.readFooter(HadoopInputFile.fromStatus(status, conf), ParquetMetadataConverter.NO_FILTER)
  }

  def read(path: Path, conf: Configuration): ParquetMetadata = naming(path.toString) {
    SparkInternals.readFooter(HadoopInputFile.fromPath(path, conf), ParquetMetadataConverter.NO_FILTER)
  }

  /** Full footers (row groups included) of Parquet files, read once per report. */
  def read(files: Seq[String], conf: Configuration): Seq[ParquetMetadata] =
    files.map(file => read(new Path(file), conf))

  /** A split's footer: only the row groups that start inside the split, as Spark's reader reads it. */
  def readSplit(file: PartitionedFile, conf: Configuration): ParquetMetadata =
    readSplit(HadoopInputFile.fromPath(file.toPath, conf), file, conf)

  /** The same, from `input`, the split's file already opened as an input (a reader reuses it). */
  def readSplit(input: HadoopInputFile, file: PartitionedFile, conf: Configuration): ParquetMetadata =
    naming(file.filePath.toString) {
      SparkInternals.readFooter(input, SparkInternals.splitFooterFilter(conf, file))
    }

  /**
   * Parquet's errors for a truncated or corrupt footer ("footer is too large", "can not read
   * class FileMetaData") do not say which file; this one does. A missing file keeps its own
   * exception, which names it and which Spark's `ignoreMissingFiles` handling looks for.
   */
  private def naming(file: String)(read: => ParquetMetadata): ParquetMetadata =
    try read catch {
      case e @ (_: DataError | _: FileNotFoundException) => throw e
      case NonFatal(e) => throw new DataError(s"Cannot read the Parquet footer of file $file, " +
        s"which is truncated, corrupt or not a Parquet file: ${e.getMessage}", e)
    }
}
