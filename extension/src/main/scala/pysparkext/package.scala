/** The extension's rules, its settings ([[pysparkext.ExtConf]]) and its session extension. */
package object pysparkext {
  /**
   * A setting of the extension: Spark's own `ConfigEntry` and what the extension says about it,
   * declared in [[ExtConf]]. The class lives under Spark's package, which alone may build
   * Spark's config entries; the rules know it by this name.
   */
  type ConfEntry[T] = org.apache.spark.sql.pysparkext.ExtConfEntry[T]
}
