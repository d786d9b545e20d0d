package org.apache.spark.sql.pysparkext

import java.lang.ref.WeakReference

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
  // Keyed by the entries themselves: their strings are shared with the session's configuration,
  // so hashing and comparing them is cheap (a digest of them cost 1.4 ms a scan).
  private val kept = new java.util.LinkedHashMap[java.util.Map[String, String],
      Broadcast[SerializableConfiguration]](MaxKept, 0.75f, true) {
    override def removeEldestEntry(eldest: java.util.Map.Entry[java.util.Map[String, String],
        Broadcast[SerializableConfiguration]]): Boolean = size > MaxKept
  }

  /** A serializable function that returns `conf` on an executor. */
  def ship(sc: SparkContext, conf: Configuration): () => Configuration = {
    val shipped = broadcastOf(sc, conf)
    () => shipped.value.value
  }

  /** The broadcast of `conf`'s entries on `sc`: a kept one, or a new one that is then kept. */
  def broadcastOf(sc: SparkContext, conf: Configuration): Broadcast[SerializableConfiguration] = {
    val key = entries(conf)
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

  /** `conf`'s entries, leaving out [[PerScanKeys]]. */
  private def entries(conf: Configuration): java.util.Map[String, String] = {
    val all = new java.util.HashMap[String, String]()
    conf.iterator().forEachRemaining(e => if (!PerScanKeys.contains(e.getKey)) all.put(e.getKey, e.getValue))
    java.util.Collections.unmodifiableMap(all)
  }
}
