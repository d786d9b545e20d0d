package org.apache.spark.sql.pysparkext

import org.apache.spark.internal.config.ConfigEntry
import org.apache.spark.sql.internal.SQLConf

/**
 * One conf registered with Spark through `SQLConf.buildConf`, as Spark's own and other
 * extensions' confs are: `SET -v` lists it with its doc, and Spark checks a value by the conf's
 * type when it is set (`SET`, `spark.conf.set`, or from the SparkConf when a session starts).
 * Spark's `ConfigBuilder` and `ConfigEntry` are package-private, so the declaration lives under
 * Spark's package; `pysparkext.ExtConf` declares the confs through it.
 */
final class SqlConfDeclaration[T] private (entry: ConfigEntry[T], val valueType: String,
    val minimum: Option[Long] = None) {
  def key: String = entry.key
  def alternatives: Seq[String] = entry.alternatives
  def doc: String = entry.doc
  def isPublic: Boolean = entry.isPublic
  def defaultString: String = entry.defaultValueString

  /** The session's value; a bad value of `key`, or of an older key read in its place, fails. */
  def get: T = SQLConf.get.getConf(entry)

  /** Whether `raw` is a value of the conf's type, as Spark reads it (`true`/`false` for a boolean). */
  def accepts(raw: String): Boolean =
    try { entry.valueConverter(raw); true } catch { case _: IllegalArgumentException => false }

  /** Whether `raw` is a whole number, as Spark reads one, below this conf's minimum. */
  def belowMinimum(raw: String): Boolean =
    minimum.exists(m => scala.util.Try(raw.trim.toLong).toOption.exists(_ < m))

  /**
   * Fails with Spark's own message (which names the key and the value) if `raw`, the value of
   * `setAs` (the key or an older key read in its place), is not a value of the conf's type.
   */
  def check(setAs: String, raw: String): Unit =
    try entry.valueConverter(raw) catch {
      case e: IllegalArgumentException if setAs != key =>
        throw new IllegalArgumentException(s"${e.getMessage} (set as $setAs, the older name of $key)", e)
    }
}

object SqlConfDeclaration {
  private def builder(key: String, doc: String, alternatives: Seq[String], internal: Boolean, version: String) = {
    val b = alternatives.foldLeft(SQLConf.buildConf(key).doc(doc).version(version))(_.withAlternative(_))
    if (internal) b.internal() else b
  }

  def boolean(key: String, doc: String, default: Boolean, alternatives: Seq[String], internal: Boolean,
      version: String): SqlConfDeclaration[Boolean] =
    new SqlConfDeclaration(builder(key, doc, alternatives, internal, version).booleanConf
      .createWithDefault(default), "boolean")

  /**
   * A whole number of at least `minimum`, bounded by Spark's own `checkValue` (as Delta's
   * `DeltaSQLConf` bounds its numbers): Spark refuses a smaller value wherever it is set, with a
   * message naming the key, the value and the bound.
   */
  def long(key: String, doc: String, default: Long, minimum: Long, alternatives: Seq[String],
      internal: Boolean, version: String): SqlConfDeclaration[Long] = {
    require(default >= minimum, s"$key: default $default is below its minimum $minimum")
    new SqlConfDeclaration(builder(key, doc, alternatives, internal, version).longConf
      .checkValue(_ >= minimum, s"It must be at least $minimum.")
      .createWithDefault(default), "long", Some(minimum))
  }

  def string(key: String, doc: String, default: String, alternatives: Seq[String], internal: Boolean,
      version: String): SqlConfDeclaration[String] =
    new SqlConfDeclaration(builder(key, doc, alternatives, internal, version).stringConf
      .createWithDefault(default), "string")
}
