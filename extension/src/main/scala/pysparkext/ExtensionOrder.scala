package pysparkext

import org.apache.spark.SparkEnv
import org.apache.spark.internal.Logging

/**
 * The extension's place in `spark.sql.extensions`, next to Delta Lake's.
 *
 * Spark runs the rules that session extensions inject into one optimizer batch in the order the
 * extensions are listed. Delta plans its table scans (which files, for which filters) in the
 * "Pre CBO Rules" batch, where the extension narrows scans and rewrites their filters too. Listed
 * after Delta, the extension changes a Delta scan after Delta has planned it; Delta then finds
 * that the scan's filters differ from those it planned with, and lists the table's files again
 * while the query runs (its `PreparedDeltaFileIndex`). Rows are the same in either order. Listed
 * first, the extension's scans are planned by Delta once. `pyspark_ext.configure` lists it first;
 * a session configured by hand in the other order logs [[warning]] once.
 */
object ExtensionOrder extends Logging {
  val DeltaExtensionClass = "io.delta.sql.DeltaSparkSessionExtension"
  private val OwnClass = classOf[PySparkExtSessionExtensions].getName

  /** The warning for a `spark.sql.extensions` value that lists Delta's extension ahead of this one. */
  def warning(extensions: String): Option[String] = {
    val names = extensions.split(",").map(_.trim).filter(_.nonEmpty).toSeq
    val delta = names.indexOf(DeltaExtensionClass)
    if (delta < 0 || names.indexOf(OwnClass) < delta) None
    else Some(s"pyspark-ext: spark.sql.extensions lists $DeltaExtensionClass ahead of $OwnClass. " +
      "Delta then plans each table scan before the extension narrows it, and lists the table's " +
      "files a second time during each query whose scan the extension changes. The rows are the " +
      s"same; to save that listing, list $OwnClass first (pyspark_ext.configure does).")
  }

  // A lazy val: evaluated once per JVM, by one thread, as `spark.sql.extensions` is static.
  private lazy val checked: Unit =
    Option(SparkEnv.get).flatMap(env => warning(env.conf.get("spark.sql.extensions", "")))
      .foreach(message => logWarning(message))

  /** Logs [[warning]] for this JVM's `spark.sql.extensions`, once per JVM. */
  def checkOnce(): Unit = checked
}
