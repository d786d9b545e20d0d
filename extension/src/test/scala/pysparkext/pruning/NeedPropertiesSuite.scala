package pysparkext.pruning

import scala.util.Random

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.types._

import pysparkext.pruning.Need._

/**
 * [[Need]]'s laws over random nested types (structs, arrays and maps to depth 4) and random needs
 * of them, most fitting the type's shape and some not: `merge` is a join (commutative,
 * associative, idempotent, with `Presence` below and `Whole` above everything), and `prune` only
 * ever removes struct fields, never empties a struct, keeps the whole type for `Whole`, and serves
 * a merged need at least as widely as either part. Each property runs on a few hundred cases from
 * a fixed seed, so a failure is reproducible; its message shows the case.
 */
class NeedPropertiesSuite extends AnyFunSuite {
  private val Cases = 400
  private val Names = Seq("a", "b", "c", "d", "e")
  private val Leaves: Seq[DataType] = Seq(BooleanType, ByteType, IntegerType, LongType, DoubleType,
    StringType, BinaryType, DateType, TimestampType, DecimalType(10, 2), DecimalType(30, 5))

  private def leaf(r: Random): DataType = Leaves(r.nextInt(Leaves.size))

  private def dataType(r: Random, depth: Int = 4): DataType =
    if (depth == 0 || r.nextInt(4) == 0) leaf(r) else r.nextInt(4) match {
      case 0 | 1 => StructType(r.shuffle(Names).take(1 + r.nextInt(4)).map(n =>
        StructField(n, dataType(r, depth - 1), nullable = r.nextBoolean())))
      case 2 => ArrayType(dataType(r, depth - 1), r.nextBoolean())
      case _ => MapType(if (r.nextBoolean()) StringType else leaf(r), dataType(r, depth - 1), r.nextBoolean())
    }

  /** A need of `t`: mostly of its shape, sometimes `Whole` or `Presence`, rarely of another shape. */
  private def need(r: Random, t: DataType): Need = r.nextInt(12) match {
    case 0 => Whole
    case 1 => Presence
    case 2 => Seq(field("z", Whole), Elements(Presence), Values(Whole), Fields(Map.empty))(r.nextInt(4))
    case _ => t match {
      case s: StructType =>
        Fields(r.shuffle(s.fields.toSeq).take(1 + r.nextInt(s.length)).map(f => f.name -> need(r, f.dataType)).toMap)
      case ArrayType(e, _) => Elements(need(r, e))
      case MapType(_, v, _) => Values(need(r, v))
      case _ => if (r.nextBoolean()) Whole else Presence
    }
  }

  /** `Cases` random types, each with three needs of it, from a fixed seed. */
  private def cases(seed: Int): Seq[(DataType, Need, Need, Need)] = {
    val r = new Random(seed)
    Seq.fill(Cases) {
      val t = dataType(r)
      (t, need(r, t), need(r, t), need(r, t))
    }
  }

  /** Every leaf as its path from the root (`[]` an element, `{key}`/`{value}` of a map) and type. */
  private def leaves(t: DataType, at: String = "$"): Set[(String, DataType)] = t match {
    case s: StructType => s.fields.flatMap(f => leaves(f.dataType, s"$at.${f.name}")).toSet
    case ArrayType(e, _) => leaves(e, s"$at[]")
    case MapType(k, v, _) => leaves(k, s"$at{key}") ++ leaves(v, s"$at{value}")
    case other => Set(at -> other)
  }

  /**
   * Whether `p` is `t` with only struct fields removed: the same containers, nullability,
   * metadata and field order, and no struct left empty.
   */
  private def narrows(p: DataType, t: DataType): Boolean = (p, t) match {
    case (ps: StructType, ts: StructType) =>
      ps.nonEmpty && {
        val kept = ps.fields.map(f => ts.fields.indexWhere(_.name == f.name))
        kept.forall(_ >= 0) && kept.toSeq == kept.toSeq.sorted && ps.fields.zip(kept).forall { case (f, i) =>
          val o = ts.fields(i)
          f.nullable == o.nullable && f.metadata == o.metadata && narrows(f.dataType, o.dataType)
        }
      }
    case (ArrayType(pe, pn), ArrayType(te, tn)) => pn == tn && narrows(pe, te)
    case (MapType(pk, pv, pn), MapType(tk, tv, tn)) => pk == tk && pn == tn && narrows(pv, tv)
    case _ => p == t
  }

  private def hasPresence(n: Need): Boolean = n match {
    case Presence => true
    case Fields(fs) => fs.values.exists(hasPresence)
    case Elements(e) => hasPresence(e)
    case Values(v) => hasPresence(v)
    case Whole => false
  }

  test("the generated cases are varied: nested types, and needs that prune them") {
    val all = cases(1)
    assert(all.count { case (t, _, _, _) => leafCount(t) >= 4 } > Cases / 4)
    assert(all.count { case (t, a, _, _) => prune(t, a) != t } > Cases / 4)
    assert(all.count { case (_, a, b, _) => merge(a, b) != Whole } > Cases / 2)
  }

  test("merge is commutative") {
    for ((t, a, b, _) <- cases(2)) assert(merge(a, b) == merge(b, a), s"$a and $b of ${t.simpleString}")
  }

  test("merge is associative") {
    for ((t, a, b, c) <- cases(3)) {
      assert(merge(merge(a, b), c) == merge(a, merge(b, c)), s"$a, $b and $c of ${t.simpleString}")
    }
  }

  test("merge is idempotent, with Presence its identity and Whole absorbing") {
    for ((t, a, _, _) <- cases(4)) {
      assert(merge(a, a) == a, s"$a of ${t.simpleString}")
      assert(merge(a, Presence) == a && merge(Presence, a) == a, s"$a of ${t.simpleString}")
      assert(merge(a, Whole) == Whole && merge(Whole, a) == Whole, s"$a of ${t.simpleString}")
    }
  }

  test("pruning for Whole keeps the type") {
    for ((t, _, _, _) <- cases(5)) assert(prune(t, Whole) == t, t.simpleString)
  }

  test("pruning only removes struct fields, so it never adds a leaf nor empties a struct") {
    for ((t, a, b, _) <- cases(6); n <- Seq(a, merge(a, b))) {
      val p = prune(t, n)
      assert(leaves(p).subsetOf(leaves(t)), s"$n of ${t.simpleString} gave ${p.simpleString}")
      assert(narrows(p, t), s"$n of ${t.simpleString} gave ${p.simpleString}")
    }
  }

  test("pruning twice for the same need changes nothing more") {
    for ((t, a, _, _) <- cases(7)) {
      val once = prune(t, a)
      assert(prune(once, a) == once, s"$a of ${t.simpleString}")
    }
  }

  /**
   * Whether `n` is of `t`'s shape throughout: fields that exist (at least one), elements of an
   * array, values of a map. A need of another shape keeps its type whole, which merging with a
   * fitting need may then narrow, so the next property is about fitting needs.
   */
  private def fits(t: DataType, n: Need): Boolean = (t, n) match {
    case (_, Whole | Presence) => true
    case (s: StructType, Fields(fs)) =>
      fs.nonEmpty && fs.forall { case (k, v) => s.fields.exists(f => f.name == k && fits(f.dataType, v)) }
    case (ArrayType(e, _), Elements(x)) => fits(e, x)
    case (MapType(_, v, _), Values(x)) => fits(v, x)
    case _ => false
  }

  test("a merged need keeps every leaf a fitting need without Presence keeps (any leaf serves Presence)") {
    val checked = cases(8).filter { case (t, a, _, _) => fits(t, a) && !hasPresence(a) }
    assert(checked.size > Cases / 4, s"only ${checked.size} cases")
    for ((t, a, b, _) <- checked) {
      val merged = leaves(prune(t, merge(a, b)))
      assert(leaves(prune(t, a)).subsetOf(merged), s"$a merged with $b of ${t.simpleString}")
    }
  }
}
