package org.apache.spark.sql.pysparkext

import java.lang.ref.WeakReference
import java.nio.charset.StandardCharsets
import java.security.MessageDigest

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration

import org.apache.spark.SparkContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.util.SerializableConfiguration

/**
 * Ships a scan's Hadoop configuration to executors, as Spark's own file formats do: by broadcast.
 *
 * A broadcast of a session's configuration (about 1,100 entries) costs the driver some 10 ms,
 * mostly to serialize it, and every executor as much again to read it. Spark's Parquet reader
 * already pays that once per scan; a format of the extension that wraps it would pay it a second
 * time, which is a tenth of a small query. So a broadcast is kept and reused for every later scan
 * whose configuration has the same entries, on the same Spark context. The entries Spark's
 * Parquet reader writes for each scan's schema ([[PerScanKeys]]) do not count: the extension's
 * readers never read them.
 */
object HadoopConfShipping {
  /** Set by Spark's `ParquetFileFormat` to each scan's schema (its read and write supports). */
  val PerScanKeys: Set[String] = Set(
    "org.apache.spark.sql.parquet.row.requested_schema",
    "org.apache.spark.sql.parquet.row.attributes")

  /** Configurations kept at once: one per set of session settings and table options in use. */
  val MaxKept = 16

  private var context = new WeakReference[SparkContext](null)
  private val kept = new java.util.LinkedHashMap[String, Broadcast[SerializableConfiguration]](
      MaxKept, 0.75f, true) {
    override def removeEldestEntry(
        eldest: java.util.Map.Entry[String, Broadcast[SerializableConfiguration]]): Boolean =
      size > MaxKept
  }

  /** A serializable function that returns `conf` on an executor. */
  def ship(sc: SparkContext, conf: Configuration): () => Configuration = {
    val shipped = broadcastOf(sc, conf)
    () => shipped.value.value
  }

  /** The broadcast of `conf`'s entries on `sc`: a kept one, or a new one that is then kept. */
  def broadcastOf(sc: SparkContext, conf: Configuration): Broadcast[SerializableConfiguration] = {
    val key = fingerprint(conf)
    synchronized {
      if (context.get ne sc) {
        // A new context: the old one's broadcasts went with it.
        kept.clear()
        context = new WeakReference(sc)
      }
      // SerializableConfiguration.broadcast is 4.1+; a broadcast of the wrapper works on every line.
      kept.computeIfAbsent(key, _ => sc.broadcast(new SerializableConfiguration(conf)))
    }
  }

  /** A digest of `conf`'s entries, in key order, leaving out [[PerScanKeys]]. */
  private def fingerprint(conf: Configuration): String = {
    val digest = MessageDigest.getInstance("SHA-256")
    conf.iterator().asScala.map(e => e.getKey -> e.getValue)
      .filterNot(e => PerScanKeys.contains(e._1)).toSeq.sortBy(_._1).foreach { case (k, v) =>
        // Lengths first, so that no two different sets of entries give the same bytes.
        digest.update(s"${k.length}:${v.length}:$k$v".getBytes(StandardCharsets.UTF_8))
      }
    digest.digest().map("%02x".format(_)).mkString
  }
}
