package pysparkext.variant.rules

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LeafNode, LogicalPlan}
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.pysparkext.SparkInternals.{IfOf, StructFieldOf}
import org.apache.spark.sql.types._

import pysparkext.{ExtConf, GuardedRule}
import pysparkext.variant.expressions.ShreddedVariantGet

/**
 * Adds, next to a filter on shredded variant paths, a predicate on the physical leaves that
 * Parquet can test against row-group statistics, dictionaries and the page index.
 *
 * For a comparison `path op literal` it adds `(typed_value op literal) OR (untyped IS NOT NULL)`,
 * with one `IS NOT NULL` for every `untyped_value` that can hold the path (the leaf's own and the
 * residual of every object that some file does not shred the next key in). That predicate is
 * implied by the original one: a row matches only if its value is in `typed_value` and satisfies
 * the comparison there, or is somewhere untyped. So a row group is skipped only when its typed
 * statistics exclude the literal and every such untyped column is all null there, the proposal's
 * rule. When `typed_value` has no nulls in a row group, valid data has every untyped column null
 * there, so the same predicate covers that case too.
 *
 * A skipped row group is not read, so a malformation in it goes unreported where stock Spark,
 * reading every row group, raises. For a null field group no row of the answer depends on it: its
 * leaves are null there, and statistics that skip the group show no row of it can match however
 * that row is read (`IS NULL` keeps it). docs/troubleshooting.md lists the difference.
 *
 * Pushed only where the path ends at a primitive `typed_value` of the compared type, or an
 * integer column read as a wider integer with literals that fit the column (so no cast can change
 * which rows match), for `=`, `<=>`, `<`, `<=`, `>`, `>=`, `IN`, `IS NULL`,
 * `IS NOT NULL`, `startswith` and AND/OR of those. A negation is never pushed. The original
 * filter still runs on the rows read. Each added predicate carries the tag [[Added]]: being
 * implied by the filter, it is needed only where Parquet skips by it, and
 * [[pysparkext.exec.SkipPredicatesOnlyInScans]] leaves it out of the row filter above the scan.
 *
 * {{{
 *   Before: Filter shredded_variant_get(s.object.id.typed_value, s.object.id.untyped_value,
 *                                       ..., $.id, bigint) = 7
 *   After:  Filter shredded_variant_get(...) = 7 AND
 *                  (s.object.id.typed_value = 7 OR isnotnull(s.object.id.untyped_value)
 *                   OR isnotnull(s.untyped_value))    (pushed to Parquet)
 * }}}
 */
object ShreddedSkipPredicates extends GuardedRule {
  override protected def featureConf = ExtConf.VariantSkipping

  /** Marks a predicate this rule added; Spark's transformations copy it to the rewritten node. */
  val Added: TreeNodeTag[Unit] = TreeNodeTag[Unit]("pysparkext.shreddedSkipPredicate")

  /** Whether `e` is a predicate this rule added next to a filter that implies it. */
  def isAdded(e: Expression): Boolean = e.getTagValue(Added).isDefined

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case f @ Filter(cond, child) if scanBelow(child) && cond.exists(_.isInstanceOf[ShreddedVariantGet]) =>
      val existing = splitConjuncts(cond)
      val added = existing.flatMap(skip).filterNot(s => existing.exists(_.semanticEquals(s)))
      added.foreach(_.setTagValue(Added, ()))
      if (added.isEmpty) f else Filter((existing ++ added).reduce(And), child)
  }

  private def scanBelow(p: LogicalPlan): Boolean = p match {
    case f: Filter => scanBelow(f.child)
    case _: LeafNode => true
    case _ => false
  }

  private def splitConjuncts(e: Expression): Seq[Expression] = e match {
    case And(a, b) => splitConjuncts(a) ++ splitConjuncts(b)
    case other => Seq(other)
  }

  /**
   * The physical side of one path read: its typed leaf, every untyped that can hold it, and the
   * type the read returns. The leaf is of that type, or (see ShreddedPaths) an integer column the
   * read widens; then a literal that fits the column compares the same and one that does not is
   * not pushed.
   */
  private case class Physical(typed: Expression, untyped: Seq[Expression], read: DataType) {
    def exact: Boolean = typed.dataType == read

    def orUntyped(typedPredicate: Expression): Expression =
      untyped.map(IsNotNull(_): Expression).foldLeft(typedPredicate)(Or(_, _))

    /** The literal as one of the leaf's type, if it is exactly one. */
    def narrow(l: Literal): Option[Literal] = if (exact) Some(l) else {
      val v = l.value.asInstanceOf[Number].longValue()
      val fits = typed.dataType match {
        case ByteType => v.isValidByte
        case ShortType => v.isValidShort
        case _ => v.isValidInt
      }
      if (fits) Some(Literal.create(Cast(Literal(v), typed.dataType).eval(), typed.dataType)) else None
    }
  }

  private object PathRead {
    def unapply(e: Expression): Option[Physical] = e match {
      case IfOf(_, _, g: ShreddedVariantGet) => physical(g)
      case g: ShreddedVariantGet => physical(g)
      case _ => None
    }

    private def physical(g: ShreddedVariantGet): Option[Physical] = {
      if (g.remainingPaths.isEmpty || g.remainingPaths.head.nonEmpty) return None
      val others = g.placeChildren.tail
      if (!others.forall(isStructChain)) return None
      ShreddedPaths.typedLeaf(g.placeChildren.head).filter { case (typed, own) =>
        isStructChain(typed) && own.forall(isStructChain) && comparable(typed.dataType, g.targetType)
      }.map { case (typed, own) => Physical(typed, own.toSeq ++ others, g.targetType) }
    }

    /** The read's own type, or an integer column read as a wider integer. */
    private def comparable(leaf: DataType, read: DataType): Boolean = {
      def width(t: DataType): Int = t match {
        case ByteType => 1
        case ShortType => 2
        case IntegerType => 3
        case LongType => 4
        case _ => 0
      }
      leaf == read || (width(leaf) > 0 && width(read) > width(leaf))
    }

    /** Parquet filters reach struct fields, not array elements. */
    private def isStructChain(e: Expression): Boolean = e match {
      case StructFieldOf(c, _) => isStructChain(c)
      case _: Attribute => true
      case _ => false
    }
  }

  private def skip(e: Expression): Option[Expression] = e match {
    case And(a, b) => (skip(a), skip(b)) match {
      case (Some(x), Some(y)) => Some(And(x, y))
      case (x, y) => x.orElse(y)
    }
    case Or(a, b) => for (x <- skip(a); y <- skip(b)) yield Or(x, y)
    case c: BinaryComparison => (c.left, c.right) match {
      case (PathRead(p), l: Literal) if l.value != null =>
        p.narrow(l).map(n => p.orUntyped(c.withNewChildren(Seq(p.typed, n))))
      case (l: Literal, PathRead(p)) if l.value != null =>
        p.narrow(l).map(n => p.orUntyped(c.withNewChildren(Seq(n, p.typed))))
      case _ => None
    }
    case In(PathRead(p), list) if list.forall(l => l.isInstanceOf[Literal] && l.asInstanceOf[Literal].value != null) =>
      val narrowed = list.map(l => p.narrow(l.asInstanceOf[Literal]))
      if (narrowed.forall(_.isDefined)) Some(p.orUntyped(In(p.typed, narrowed.map(_.get)))) else None
    case InSet(PathRead(p), set) if !set.contains(null) && p.exact =>
      Some(p.orUntyped(InSet(p.typed, set)))
    case StartsWith(PathRead(p), l: Literal) if l.value != null && p.exact =>
      Some(p.orUntyped(StartsWith(p.typed, l)))
    // The read is null only if typed_value is null (a non-null typed_value is the answer).
    case IsNull(PathRead(p)) => Some(IsNull(p.typed))
    case IsNotNull(PathRead(p)) => Some(p.orUntyped(IsNotNull(p.typed)))
    case _ => None
  }
}
