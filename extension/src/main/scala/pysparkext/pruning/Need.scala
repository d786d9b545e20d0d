package pysparkext.pruning

import org.apache.spark.sql.types._

/**
 * What the rest of a plan needs of one value: all of it, only whether it is null (and, for
 * collections, how many elements it has), or only some parts of it. Needs form a lattice whose
 * join, [[Need.merge]], is what two consumers of the same value need together. Anything the
 * analysis cannot express is [[Need.Whole]], so the lattice errs towards reading more.
 */
sealed trait Need

object Need {
  /** Every field, at every depth. */
  case object Whole extends Need
  /** Only nullness, and the length of arrays and maps; any single leaf provides it. */
  case object Presence extends Need
  /** Only these fields of a struct (by exact field name), each with its own need. */
  final case class Fields(fields: Map[String, Need]) extends Need
  /** The elements of an array, each with this need. */
  final case class Elements(element: Need) extends Need
  /** The values of a map with this need; keys are always read whole. */
  final case class Values(value: Need) extends Need

  def field(name: String, need: Need): Need = Fields(Map(name -> need))

  def merge(a: Need, b: Need): Need = (a, b) match {
    case (Whole, _) | (_, Whole) => Whole
    case (Presence, other) => other
    case (other, Presence) => other
    case (Fields(x), Fields(y)) =>
      Fields((x.keySet ++ y.keySet).iterator.map { k =>
        k -> (x.get(k) ++ y.get(k)).reduce(merge)
      }.toMap)
    case (Elements(x), Elements(y)) => Elements(merge(x, y))
    case (Values(x), Values(y)) => Values(merge(x, y))
    case _ => Whole
  }

  /** The need on the elements of a collection, given the need on the collection. */
  def ofElements(n: Need): Need = n match {
    case Elements(e) => e
    case Presence => Presence
    case _ => Whole
  }

  def ofValues(n: Need): Need = n match {
    case Values(v) => v
    case Presence => Presence
    case _ => Whole
  }

  /**
   * The smallest type that still serves `need`, as a subset of `dt` with fields in their original
   * order. A need that does not fit the type's shape keeps the type whole.
   */
  def prune(dt: DataType, need: Need): DataType = (dt, need) match {
    case (_, Whole) => dt
    case (s: StructType, Fields(fs)) =>
      val kept = s.fields.flatMap(f => fs.get(f.name).map(n => f.copy(dataType = prune(f.dataType, n))))
      if (kept.length == fs.size && kept.nonEmpty) StructType(kept) else dt
    case (s: StructType, Presence) if s.nonEmpty =>
      val best = s.fields.minBy(f => presenceCost(f.dataType))
      StructType(Array(best.copy(dataType = prune(best.dataType, Presence))))
    case (ArrayType(e, cn), Elements(n)) => ArrayType(prune(e, n), cn)
    case (ArrayType(e, cn), Presence) => ArrayType(prune(e, Presence), cn)
    case (MapType(k, v, vn), Values(n)) => MapType(k, prune(v, n), vn)
    case (MapType(k, v, vn), Presence) => MapType(k, prune(v, Presence), vn)
    case _ => dt
  }

  /** Rough bytes per value of the cheapest leaf that tells whether a value of `dt` is null. */
  private def presenceCost(dt: DataType): Double = dt match {
    case BooleanType | ByteType => 1
    case ShortType => 2
    case IntegerType | FloatType | DateType => 4
    case LongType | DoubleType | TimestampType | TimestampNTZType => 8
    case d: DecimalType => if (d.precision <= 18) 8 else 16
    case s: StructType if s.nonEmpty => 0.5 + s.fields.map(f => presenceCost(f.dataType)).min
    case ArrayType(e, _) => 64 + presenceCost(e)
    case MapType(k, v, _) => 64 + presenceCost(k) + presenceCost(v)
    case StringType | BinaryType => 32
    case _ => 1024
  }

  def leafCount(dt: DataType): Int = dt match {
    case s: StructType => s.fields.map(f => leafCount(f.dataType)).sum
    case ArrayType(e, _) => leafCount(e)
    case MapType(k, v, _) => leafCount(k) + leafCount(v)
    case _ => 1
  }
}
