package pysparkext.variant.rules

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.Count
import org.apache.spark.sql.catalyst.expressions.variant.VariantGet
import org.apache.spark.sql.catalyst.optimizer.{CollapseProject, ColumnPruning, RemoveNoopOperators}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, Generate, GlobalLimit, Join, LocalLimit,
  LogicalPlan, Offset, Project, RebalancePartitions, Repartition, RepartitionByExpression, Sample, Sort,
  SubqueryAlias, Union, Window}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{BooleanType, VariantType}
import org.apache.spark.unsafe.types.UTF8String

import pysparkext.{ExtConf, GuardedRule}
import pysparkext.variant.expressions.ReconstructShreddedVariant

/**
 * Turns path reads of a shredded variant (draft or spec layout) into reads of its shredded columns.
 *
 * A shredded column reaches the plan as `reconstruct_shredded_variant(s) AS v` over the struct `s`
 * ([[ResolveShreddedVariantRelations]]). Every `variant_get`, `try_variant_get`, `v:path` and cast of
 * `v` with a constant path becomes a [[ShreddedVariantGet]] over `s`, and `v IS [NOT] NULL` (which
 * Spark also infers above filters on paths) and `count(v)` a null test of the parts of `s`
 * ([[ShreddedPaths.isPresent]]):
 *  - where the reconstruction is inline (filters pushed under the Project), in place;
 *  - where an operator above reads `v` by attribute, `s` is carried up next to `v` through every
 *    operator that passes its child's columns on, and the operator reads the path from `s`.
 * Column pruning then drops `v` wherever nothing needs it whole, and nested schema pruning reads
 * only the leaves on the paths.
 *
 * Safe because [[ShreddedVariantGet]] returns exactly what the expression it replaces returns (it
 * casts with the same Spark code, error mode and time zone), and carrying an extra column up
 * changes no operator's result.
 *
 * {{{
 *   Before: Project [variant_get(reconstruct_shredded_variant(s), $.user.id, int) AS id]
 *           +- Relation [s: struct<untyped_value, object: struct<user: struct<...>>>]
 *   After:  Project [shredded_variant_get(s.object.user.object.id.typed_value,
 *                                         s.object.user.untyped_value, ..., $.user.id, int) AS id]
 *           +- Relation [s]     (nested schema pruning then reads just those leaves)
 * }}}
 */
object RewriteShreddedVariantPaths extends GuardedRule {
  override protected def featureConf = ExtConf.ShreddedVariant

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = {
    if (!plan.exists(_.expressions.exists(_.exists(_.isInstanceOf[ReconstructShreddedVariant])))) {
      return plan
    }
    val inlined = plan.transformAllExpressions(inline)
    val intoUnions = readPathsInUnions(inlined)
    val carried = restoreOutputs(intoUnions, carry(intoUnions))
    if (carried eq inlined) return inlined
    val narrowed = if (carried.output == plan.output) carried else Project(plan.output, carried)
    cleanUp(narrowed, rounds = 4).transformAllExpressions(inline)
  }

  /** Drops what no longer needs reading; one pass can leave a column a later pass removes. */
  @scala.annotation.tailrec
  private def cleanUp(plan: LogicalPlan, rounds: Int): LogicalPlan = {
    val next = RemoveNoopOperators(CollapseProject(ColumnPruning(plan)))
    if (rounds <= 1 || next.fastEquals(plan)) next else cleanUp(next, rounds - 1)
  }

  private def zone(tz: Option[String]): Option[String] =
    tz.orElse(Some(SQLConf.get.sessionLocalTimeZone))

  /**
   * Path reads of a variant whose shredded struct `source` can name: `(struct, column)` for a
   * reconstruction inline, or for an attribute rebuilt from a struct carried beside it.
   */
  private def pathReads(source: Expression => Option[(Expression, String)])
      : PartialFunction[Expression, Expression] = {
    object ShreddedSource { def unapply(e: Expression): Option[(Expression, String)] = source(e) }
    {
      case IsNotNull(ShreddedSource(s, _)) => ShreddedPaths.isPresent(s)
      case IsNull(ShreddedSource(s, _)) => Not(ShreddedPaths.isPresent(s))
      // count(v) counts the rows whose v is not NULL: it needs no more of v than a null test.
      case c: Count if c.children.exists(ShreddedSource.unapply(_).isDefined) =>
        c.copy(children = c.children.map {
          case ShreddedSource(s, _) => If(ShreddedPaths.isPresent(s), Literal.TrueLiteral, Literal(null, BooleanType))
          case other => other
        })
      case c @ Cast(VariantGet(ShreddedSource(s, col), Literal(p: UTF8String, _), VariantType, _, _),
          to, _, mode) if to != VariantType =>
        ShreddedPaths.get(s, col, p.toString, to, mode != EvalMode.TRY, zone(c.timeZoneId))
      case c @ Cast(ShreddedSource(s, col), to, _, mode) if to != VariantType =>
        ShreddedPaths.get(s, col, "$", to, mode != EvalMode.TRY, zone(c.timeZoneId))
      case VariantGet(ShreddedSource(s, col), Literal(p: UTF8String, _), to, fail, tz) =>
        ShreddedPaths.get(s, col, p.toString, to, fail, zone(tz))
    }
  }

  private val inline = pathReads {
    case ReconstructShreddedVariant(s, col) => Some(s -> col)
    case _ => None
  }

  /**
   * Path reads in an aggregate or projection directly over a Union whose children each rebuild
   * the variant from their own struct (a table whose files shred differently): each read becomes
   * a new column of every Union child, computed there from that child's struct, and the operator
   * reads the column. Spark pushes projections into a Union's children, where the inline rewrite
   * applies, but never an aggregate: `sum(variant_get(v, '$.id', 'bigint'))` over the Union would
   * otherwise rebuild `v` whole from every column of every file. Every child gains the same
   * columns in the same order, so the Union's columns stay aligned; the operator's own output is
   * unchanged.
   */
  private def readPathsInUnions(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case a @ Aggregate(_, _, u: Union, _) => overUnion(a, u).getOrElse(a)
    case p @ Project(_, u: Union) => overUnion(p, u).getOrElse(p)
  }

  private def overUnion(node: LogicalPlan, u: Union): Option[LogicalPlan] = {
    val children = u.children.map {
      case p: Project => Some(p)
      case _ => None
    }
    if (children.exists(_.isEmpty)) return None
    val projects = children.flatten
    // Union column index -> per child (struct, column name), where every child rebuilds it.
    val rebuilt: Map[ExprId, Seq[(Expression, String)]] = u.output.zipWithIndex.flatMap { case (out, k) =>
      val perChild = projects.map(p => p.projectList.lift(k).collect {
        case Alias(ReconstructShreddedVariant(s: Attribute, col), _) if p.child.outputSet.contains(s) =>
          (s: Expression, col)
      })
      if (perChild.forall(_.isDefined)) Some(out.exprId -> perChild.flatten) else None
    }.toMap
    if (rebuilt.isEmpty) return None
    def readsIn(i: Int) = valuePathReads(pathReads {
      case a: Attribute => rebuilt.get(a.exprId).map(_(i))
      case _ => None
    })
    val first = readsIn(0)
    val found = mutable.LinkedHashMap.empty[Expression, Expression]
    node.expressions.foreach(_.foreach { e =>
      if (first.isDefinedAt(e) && e.deterministic) found.getOrElseUpdate(e.canonicalized, e)
    })
    if (found.isEmpty) return None
    val reads = found.values.toSeq
    val newChildren = projects.zipWithIndex.map { case (p, i) =>
      val rule = readsIn(i)
      p.copy(projectList = p.projectList ++ reads.map(e => Alias(rule(e), "_variant_path")()))
    }
    val union = u.withNewChildren(newChildren)
    val columns = reads.map(_.canonicalized).zip(union.output.drop(u.output.length)).toMap
    Some(node.withNewChildren(Seq(union)).transformExpressionsDown {
      case e if columns.contains(e.canonicalized) => columns(e.canonicalized)
    })
  }

  /** The path reads that are values of the row (not aggregate functions such as `count(v)`). */
  private def valuePathReads(reads: PartialFunction[Expression, Expression])
      : PartialFunction[Expression, Expression] = {
    case e if !e.isInstanceOf[Count] && reads.isDefinedAt(e) => reads(e)
  }

  /**
   * Operators that read their child's columns by reference, so an extra column from below is
   * harmless. Any other operator (a write command, a set operation) sees its child exactly as
   * before: carrying only adds columns to Project lists and never changes the tree's shape, so
   * the original child's output says what to restore.
   */
  private def readsByReference(p: LogicalPlan): Boolean = p match {
    case _: Project | _: Filter | _: Join | _: Window | _: Generate | _: Sort | _: GlobalLimit |
         _: LocalLimit | _: Offset | _: Sample | _: Aggregate | _: SubqueryAlias | _: Repartition |
         _: RepartitionByExpression | _: RebalancePartitions => true
    case _ => false
  }

  private def restoreOutputs(original: LogicalPlan, rewritten: LogicalPlan): LogicalPlan = {
    if (original.children.length != rewritten.children.length) return rewritten
    val children = original.children.zip(rewritten.children).map { case (o, r) =>
      val restored = restoreOutputs(o, r)
      if (readsByReference(rewritten) || restored.output.map(_.exprId) == o.output.map(_.exprId)) {
        restored
      } else {
        Project(o.output, restored)
      }
    }
    if (children.zip(rewritten.children).forall { case (a, b) => a eq b }) rewritten
    else rewritten.withNewChildren(children)
  }

  private def carry(plan: LogicalPlan): LogicalPlan = {
    // v's expression id -> (the struct attribute it was rebuilt from, the column name)
    val defined = mutable.Map.empty[ExprId, (Attribute, String)]
    // A Union's children must keep their column lists aligned, so nothing is carried out of one;
    // Spark pushes projections and filters into Union children, where the inline rewrite applies.
    val unionInputs = plan.collect { case u: Union => u.children.flatMap(_.output.map(_.exprId)) }
      .flatten.toSet
    plan.transformUp { case node =>
      // A carried struct reaches a node only through children that keep it: below any other
      // operator restoreOutputs narrows the child back to its original columns.
      val visible = node.children.filter(readsByReference).flatMap { c =>
        val out = c.outputSet
        defined.filter { case (v, (s, _)) => out.exists(_.exprId == v) && out.contains(s) }
      }.toMap
      val rewritten =
        if (visible.isEmpty) node else node.transformExpressionsDown(pathReads {
          case a: Attribute => visible.get(a.exprId)
          case _ => None
        })
      rewritten match {
        case p @ Project(list, child) =>
          val defs = list.collect {
            case a @ Alias(ReconstructShreddedVariant(s: Attribute, col), _)
                if child.outputSet.contains(s) && !unionInputs.contains(a.exprId) =>
              a.exprId -> (s, col)
          }
          defined ++= defs
          val passing = (visible ++ defs).collect {
            case (v, (s, _)) if list.exists(_.exprId == v) && !list.exists(_.exprId == s.exprId) => s
          }.toSeq.distinct
          if (passing.isEmpty) p else p.copy(projectList = list ++ passing)
        case other => other
      }
    }
  }
}
