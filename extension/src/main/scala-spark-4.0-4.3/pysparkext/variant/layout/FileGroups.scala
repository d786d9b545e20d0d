package pysparkext.variant.layout

import org.apache.spark.sql.types.StructType

/**
 * The groups of files one relation's variant columns are read in: within a group, every column's
 * layouts merge into one read schema ([[PerFileTypes.merge]]), and each group becomes one scan
 * (`ResolveShreddedVariantRelations`: one relation, or one branch of a Union per group).
 */
object FileGroups {
  /** How one file stores one variant column. */
  sealed trait Stored
  /** The file lacks the column. */
  case object Absent extends Stored
  /** Spark's unshredded encoding, left to Spark's reader. */
  case object ReadBySpark extends Stored
  /** Shredded, in either layout: read as this struct. */
  case class Shredded(t: StructType) extends Stored

  /**
   * Groups files (each with how it stores every column, in the same column order) greedily: a
   * file joins the first group whose merged layouts its own merge with, else starts a group.
   * Each group comes with its merged layouts; most tables end up with one group.
   */
  def group[F](files: Seq[(F, Seq[Stored])]): Seq[(Seq[Stored], Seq[F])] = {
    val groups = scala.collection.mutable.ArrayBuffer.empty[(Seq[Stored], Seq[F])]
    files.foreach { case (file, types) =>
      val at = groups.indexWhere { case (merged, _) => mergeAll(merged, types).isDefined }
      if (at < 0) groups += (types -> Seq(file))
      else groups(at) = (mergeAll(groups(at)._1, types).get, groups(at)._2 :+ file)
    }
    groups.toSeq
  }

  /** Two files' (or groups') layouts of every column merged, or None where one conflicts. */
  def mergeAll(a: Seq[Stored], b: Seq[Stored]): Option[Seq[Stored]] = {
    val merged: Seq[Option[Stored]] = a.zip(b).map {
      case (Shredded(x), Shredded(y)) =>
        PerFileTypes.merge(x, y).map(t => Shredded(t.asInstanceOf[StructType]))
      case (Absent, y) => Some(y)
      case (x, Absent) => Some(x)
      case (ReadBySpark, ReadBySpark) => Some(ReadBySpark)
      case _ => None
    }
    if (merged.forall(_.isDefined)) Some(merged.map(_.get)) else None
  }
}
