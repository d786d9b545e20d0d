package pysparkext.parquet

import com.google.common.cache.{Cache, CacheBuilder, Weigher}

/**
 * One version of a file, as a listing reports it. A file overwritten in place gets a new length
 * or modification time from the file system, so facts cached under its old version are never
 * used for its new content. A rewrite that keeps both (the same number of bytes written within
 * the file system's clock resolution) is indistinguishable from no rewrite, here as in Spark's own
 * file listing cache.
 */
final case class FileVersion(path: String, length: Long, modificationTime: Long)

/**
 * A bounded, thread-safe cache of facts read from files (footers, mostly), keyed by the file's
 * [[FileVersion]] and whatever else the facts depend on (`K`). Bounded by weight, not entries:
 * `weigh` estimates a value's size in small objects (schema fields, column paths), and the least
 * recently used entries go once `maxWeight` is reached, so a table of many narrow files and one of
 * a few very wide files both fit. Guava's cache, which Spark ships and uses for its own file
 * status cache.
 *
 * Values are computed outside the cache's locks: two threads asking for the same file at once
 * may both read it, and either result is kept (they are equal). An error while computing is not
 * cached and reaches the caller as it was thrown.
 */
final class PerFileCache[K, V <: AnyRef](maxWeight: Long, weigh: V => Int) {
  private val cache: Cache[(FileVersion, K), V] = CacheBuilder.newBuilder()
    .maximumWeight(maxWeight)
    .weigher(new Weigher[(FileVersion, K), V] {
      override def weigh(key: (FileVersion, K), value: V): Int = 1 + math.max(0, PerFileCache.this.weigh(value))
    })
    .build[(FileVersion, K), V]()

  def getOrLoad(file: FileVersion, key: K)(load: => V): V = {
    val hit = cache.getIfPresent((file, key))
    if (hit != null) return hit
    val value = load
    cache.put((file, key), value)
    value
  }

  /** Entries held now (for tests and logs). */
  def size: Long = cache.size()
}
