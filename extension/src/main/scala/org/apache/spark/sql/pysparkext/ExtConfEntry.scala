package org.apache.spark.sql.pysparkext

import org.apache.spark.internal.config.ConfigEntry
import org.apache.spark.sql.internal.SQLConf

/**
 * A setting of the extension: Spark's own `ConfigEntry`, built with `SQLConf.buildConf` as
 * Spark's settings and other extensions' (Delta's `DeltaSQLConf`) are, and what the extension
 * says about it. Through the entry, Spark checks a value by the setting's type (and a number's
 * bound) when it is set (`SET`, `spark.conf.set`, or from the SparkConf when a session starts)
 * and `SET -v` lists the setting with its doc. It is read with [[get]] from the session's settings
 * (`SQLConf.get`), so it is settable at run time or statically (`--conf`, spark-defaults.conf);
 * when the key is not set, an older key it was renamed from is read ([[alternatives]]), then the
 * default.
 *
 * Spark's `ConfigBuilder` and `ConfigEntry` are package-private, so this class lives under
 * Spark's package; `pysparkext.ExtConf` declares the settings with the factories of the
 * companion, and the rules name the class as `pysparkext.ConfEntry`.
 */
final class ExtConfEntry[T] private (entry: ConfigEntry[T], val valueType: String,
    val minimum: Option[Long] = None) {
  def key: String = entry.key
  def alternatives: Seq[String] = entry.alternatives
  def doc: String = entry.doc
  /** False for testing-only settings, which `SET -v` and the settings table leave out. */
  def isPublic: Boolean = entry.isPublic
  def defaultString: String = entry.defaultValueString

  /** The session's value; a bad value of `key`, or of an older key read in its place, fails. */
  def get: T = SQLConf.get.getConf(entry)

  /**
   * Fails with Spark's message naming the key and the value if this key, or an older key it
   * reads, holds a value (as `valueOf` gives it) that is not of its type.
   */
  def check(valueOf: String => Option[String]): Unit =
    rejections(valueOf).foreach { case (k, _, e) =>
      throw if (k == key) e else new IllegalArgumentException(s"${e.getMessage} (set as $k, the older name of $key)", e)
    }

  /**
   * The extension's own message for each of this key and its older keys whose value, as
   * `valueOf` gives it, is not of this setting's type: it names the key, the value and the
   * values the setting takes (`pyspark_ext/settings.py` words a rejected `configure` value the
   * same way).
   */
  def badValues(valueOf: String => Option[String]): Seq[String] =
    rejections(valueOf).map { case (k, value, _) =>
      val name = if (k == key) k else s"$k (the older name of $key)"
      val what = if (belowMinimum(value)) s"below its minimum ${minimum.get}" else s"not a $valueType"
      s"$name is '$value', which is $what: use $takes"
    }

  /**
   * Each of this key and its older keys whose value, as `valueOf` gives it, Spark's converter for
   * the setting's type (and bound) refuses: the key, the value and Spark's error, in key order.
   */
  private def rejections(valueOf: String => Option[String]): Seq[(String, String, IllegalArgumentException)] =
    (key +: alternatives).flatMap { k =>
      valueOf(k).flatMap { raw =>
        try { entry.valueConverter(raw); None } catch { case e: IllegalArgumentException => Some((k, raw, e)) }
      }
    }

  /** Whether `raw` is a whole number, as Spark reads one, below this setting's minimum. */
  private def belowMinimum(raw: String): Boolean =
    minimum.exists(m => scala.util.Try(raw.trim.toLong).toOption.exists(_ < m))

  private def takes: String = valueType match {
    case "boolean" => "true or false"
    case "long" => "a whole number" + minimum.fold("")(m => s" of at least $m")
    case other => s"a $other"
  }

  override def toString: String = key
}

object ExtConfEntry {
  private def builder(key: String, doc: String, alternatives: Seq[String], internal: Boolean, version: String) = {
    val b = alternatives.foldLeft(SQLConf.buildConf(key).doc(doc).version(version))(_.withAlternative(_))
    if (internal) b.internal() else b
  }

  def boolean(key: String, doc: String, default: Boolean, alternatives: Seq[String], internal: Boolean,
      version: String): ExtConfEntry[Boolean] =
    new ExtConfEntry(builder(key, doc, alternatives, internal, version).booleanConf
      .createWithDefault(default), "boolean")

  /**
   * A whole number of at least `minimum`, bounded by Spark's own `checkValue` (as Delta's
   * `DeltaSQLConf` bounds its numbers): Spark refuses a smaller value wherever it is set, with a
   * message naming the key, the value and the bound.
   */
  def long(key: String, doc: String, default: Long, minimum: Long, alternatives: Seq[String],
      internal: Boolean, version: String): ExtConfEntry[Long] = {
    require(default >= minimum, s"$key: default $default is below its minimum $minimum")
    new ExtConfEntry(builder(key, doc, alternatives, internal, version).longConf
      .checkValue(_ >= minimum, s"It must be at least $minimum.")
      .createWithDefault(default), "long", Some(minimum))
  }

  def string(key: String, doc: String, default: String, alternatives: Seq[String], internal: Boolean,
      version: String): ExtConfEntry[String] =
    new ExtConfEntry(builder(key, doc, alternatives, internal, version).stringConf
      .createWithDefault(default), "string")

  /**
   * The settings of `conf` whose keys start with `prefix`, read from its own map of settings
   * (which `getAllConfs` would copy whole): a walk of the map under its lock, building only the
   * few entries that match.
   */
  def settingsUnder(conf: SQLConf, prefix: String): Map[String, String] = {
    val settings = conf.settings
    settings.synchronized {
      val matching = Map.newBuilder[String, String]
      val entries = settings.entrySet.iterator
      while (entries.hasNext) {
        val e = entries.next()
        if (e.getKey.startsWith(prefix)) matching += e.getKey -> e.getValue
      }
      matching.result()
    }
  }
}
