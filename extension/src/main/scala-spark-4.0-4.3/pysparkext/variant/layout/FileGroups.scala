package pysparkext.variant.layout

import org.apache.spark.sql.types.{ArrayType, DataType, StructType}

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
   *
   * Merging is not transitive (an unshredded file merges with two files that conflict), so which
   * groups come out depends on the order the files are taken in. They are taken in an order of
   * their layouts alone, never in the order given (a file system lists a directory in an order of
   * its own, which changes with the files' generated names): fewest typed leaves first, then by
   * the layouts themselves; files with equal layouts keep the order given, and always fall in
   * one group. Taking the files that shred least first gathers them (unshredded files, schemas
   * Spark infers for values that change type) into the first group, so a file that shreds more
   * and conflicts with that group is read apart, where a filter on one of its typed leaves can
   * skip its row groups. In one scan with a file that holds the same path in a residual it could
   * not: the scan's skip predicate keeps every row group where that residual may hold the path.
   */
  def group[F](files: Seq[(F, Seq[Stored])]): Seq[(Seq[Stored], Seq[F])] = {
    val ordered = files.sortBy { case (_, types) =>
      (types.map(typedLeaves).sum, types.map(render).mkString("\n"))
    }
    val groups = scala.collection.mutable.ArrayBuffer.empty[(Seq[Stored], Seq[F])]
    ordered.foreach { case (file, types) =>
      val at = groups.indexWhere { case (merged, _) => mergeAll(merged, types).isDefined }
      if (at < 0) groups += (types -> Seq(file))
      else groups(at) = (mergeAll(groups(at)._1, types).get, groups(at)._2 :+ file)
    }
    groups.toSeq
  }

  /** How many primitive `typed_value` leaves (in either layout) a file's column has. */
  private def typedLeaves(stored: Stored): Int = stored match {
    case Shredded(t) => typedLeaves(t)
    case _ => 0
  }

  private def typedLeaves(t: DataType): Int = t match {
    case s: StructType => s.fields.map { f =>
      f.dataType match {
        case nested @ (_: StructType | _: ArrayType) => typedLeaves(nested)
        case _ => if (f.name == DraftLayout.Typed) 1 else 0
      }
    }.sum
    case ArrayType(element, _) => typedLeaves(element)
    case _ => 0
  }

  /** A layout in full (names, types, nullability, metadata), to order files by. */
  private def render(stored: Stored): String = stored match {
    case Shredded(t) => t.json
    case other => other.toString
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
