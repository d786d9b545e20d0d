package pysparkext.parquet

import java.io.{FileNotFoundException, IOException}

import org.apache.spark.sql.catalyst.FileSourceOptions
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap

/**
 * Spark's file-tolerance settings for one relation: `ignoreCorruptFiles` and `ignoreMissingFiles`,
 * each a data-source option or else the session's `spark.sql.files.*` setting, read by Spark's own
 * `FileSourceOptions` as the scan reads them. With one on, Spark's scan (`FileScanRDD`) skips a
 * file whose read fails; a rule that reads footers at planning must let such a file through to
 * the scan instead of failing the query first.
 */
final case class FileTolerance(ignoreCorruptFiles: Boolean, ignoreMissingFiles: Boolean) {
  /**
   * Whether the scan would skip a file whose read failed with `e`, by `FileScanRDD`'s rule: a
   * missing file only under `ignoreMissingFiles` (even with `ignoreCorruptFiles` on), any other
   * I/O or runtime failure under `ignoreCorruptFiles`.
   */
  def skips(e: Throwable): Boolean = e match {
    case _: FileNotFoundException => ignoreMissingFiles
    case _: RuntimeException | _: IOException => ignoreCorruptFiles
    case _ => false
  }

  def any: Boolean = ignoreCorruptFiles || ignoreMissingFiles
}

object FileTolerance {
  /** The settings of a relation with data-source options `options`, under the session's conf. */
  def of(options: Map[String, String]): FileTolerance = {
    val o = new FileSourceOptions(CaseInsensitiveMap(options))
    FileTolerance(o.ignoreCorruptFiles, o.ignoreMissingFiles)
  }
}
