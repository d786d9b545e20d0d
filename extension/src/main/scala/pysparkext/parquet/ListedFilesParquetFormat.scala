package pysparkext.parquet

import java.io.FileNotFoundException

import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.pysparkext.{DataError, HadoopConfShipping}

/**
 * Spark's Parquet reader for the scans of shredded variant relations, whose plan rests on the
 * footers [[ResolveShreddedVariantRelations]] read when the query was analysed (each file's
 * shredding, its all-null residuals). Before a file split is read, the file's length and
 * modification time are compared with the listing the plan was made from; a file rewritten since
 * (a catalog table's cached listing, or a DataFrame run again after its files changed) fails the
 * query with an error naming the file and saying to refresh the table, where the plan would
 * otherwise read columns by a shredding the file no longer has. Stock Spark reads such a file
 * with the stale listing's length too (and can miss row groups past it); `REFRESH TABLE` is the
 * user's step in both cases. One file-status call per split; a file that has disappeared is left
 * to Spark's reader (`spark.sql.files.ignoreMissingFiles`).
 *
 * A file whose footer could not be read at planning, under Spark's `ignoreCorruptFiles` or
 * `ignoreMissingFiles`, is in the plan as a file that lacks the variant columns; the relation
 * lists it in the option [[ListedFilesParquetFormat.UnplannedFiles]]. Its footer is read again
 * before it is read: the same failure goes to Spark's scan, which skips the file as it would
 * without the extension; a footer that can be read now fails the split instead (the plan does not
 * know how the file shreds), and Spark's scan skips that too under `ignoreCorruptFiles`.
 *
 * With variant skipping on, a split is read over only the row groups [[RowGroupSelection]] keeps,
 * which judges the extension's disjunctive skip predicates on statistics, dictionaries and bloom
 * filters together.
 */
class ListedFilesParquetFormat extends WrappingParquetFormat {
  override protected def readerFor(request: ReaderRequest): PartitionedFile => Iterator[InternalRow] = {
    val read = innerReader(request)
    val conf = HadoopConfShipping.ship(request.session.sparkContext, request.hadoopConf)
    val unplanned = ListedFilesParquetFormat.unplanned(request.options)
    val selection = if (RowGroupSelection.selects(this)) Some(RowGroupSelection.Settings.current) else None
    val filters = request.filters
    (file: PartitionedFile) => {
      val c = conf()
      ListedFilesParquetFormat.checkUnchanged(file, c, unplanned)
      selection match {
        case Some(s) => RowGroupSelection.readKept(file, c, filters, s)(read)
        case None => read(file)
      }
    }
  }

  // Stock ParquetFileFormat equals any ParquetFileFormat; this one must not be taken for it.
  override def equals(other: Any): Boolean = other != null && other.getClass == getClass
  override def hashCode(): Int = getClass.hashCode()
}

object ListedFilesParquetFormat {
  /** The relation option that lists, one a line, the files planned without their footers. */
  val UnplannedFiles = "pyspark_ext.unplannedFiles"

  def unplanned(options: Map[String, String]): Set[String] =
    options.get(UnplannedFiles).map(_.split("\n").filter(_.nonEmpty).toSet).getOrElse(Set.empty)

  /**
   * Fails if `file` no longer has the length and modification time it was listed with, or if it
   * is one of the `unplanned` files (see the class).
   */
  def checkUnchanged(file: PartitionedFile, conf: Configuration, unplanned: Set[String] = Set.empty): Unit = {
    val path = file.toPath
    if (unplanned.contains(path.toString)) {
      ParquetFooters.read(path, conf) // fails again as at planning: Spark's scan decides
      throw new DataError(s"The footer of file $path could not be read when the query was " +
        "planned, so the plan does not know how the file stores its variant columns; it can be " +
        "read now. Rerun the query.")
    }
    val now = try path.getFileSystem(conf).getFileStatus(path) catch {
      case _: FileNotFoundException => return
    }
    val listedTime = file.modificationTime
    if (now.getLen != file.fileSize || (listedTime > 0 && now.getModificationTime != listedTime)) {
      throw new DataError(s"File $path changed after the query's table was listed (length " +
        s"${file.fileSize} -> ${now.getLen} bytes, modification time $listedTime -> " +
        s"${now.getModificationTime}), so the shredding read from its footer at planning may no " +
        "longer hold. Refresh the table (REFRESH TABLE <table>, spark.catalog.refreshTable, or " +
        "read the path again) and rerun the query.")
    }
  }
}
