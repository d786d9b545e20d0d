package pysparkext.variant

import org.apache.spark.sql.catalyst.expressions.InputFileName
import org.apache.spark.sql.pysparkext.DataError

/**
 * Bad shredded-variant input: a malformed layout, invalid data in a row, or a corrupt variant
 * binary. It names the file, the column and the path inside the variant so the user can find
 * the data. It is a data error, not an internal failure, so rules never swallow it.
 */
class ShreddedVariantException(val file: String, val column: String, val path: String, detail: String)
  extends DataError(s"Invalid shredded variant in file $file, column `$column`" +
    (if (path.isEmpty || path == "$") "" else s", at path $path") + s": $detail")

object ShreddedVariantException {
  /** The file being read by the current task, when the expression runs in the scan's stage. */
  def currentFile: String = {
    val name = InputFileName()
    name.initialize(0)
    val f = String.valueOf(name.eval(null))
    if (f.isEmpty) "<unknown file: the value was read in an earlier stage>" else f
  }

  def inRow(column: String, path: String, detail: String): ShreddedVariantException =
    new ShreddedVariantException(currentFile, column, path, detail)
}
