package pysparkext.variant.rules

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.Count
import org.apache.spark.sql.catalyst.expressions.variant.VariantGet
import org.apache.spark.sql.catalyst.plans.{Cross, ExistenceJoin, Inner, LeftAnti, LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, Generate, Join, LogicalPlan, Project, Sort,
  SubqueryAlias, Union}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.pysparkext.SparkInternals.{AggregateExpressionOf, CastOf, VariantGetOf}
import org.apache.spark.sql.types.{BooleanType, VariantType}

import pysparkext.variant.expressions.ReconstructShreddedVariant

/**
 * Pushes path reads of a variant that children of a Union rebuild from their own structs (a table
 * whose files shred differently), in an operator above the Union, into the Union's children. One
 * step of [[RewriteShreddedVariantPaths]].
 *
 * Each read becomes a new column of every Union child, computed there from that child's struct,
 * passed up to the operator through the operators between (projections, filters, sorts, joins on
 * a side whose rows they keep), and the operator reads the column. Spark pushes projections into a Union's
 * children, where the inline rewrite applies, but never an aggregate, a join condition or a
 * generator: `sum(variant_get(v, '$.id', 'bigint'))`, `GROUP BY v:kind`, `JOIN ... ON v:id = k`
 * or `variant_explode(v:items)` over the Union would otherwise rebuild `v` whole from every
 * column of every file. Likewise `count(v)` becomes `count(if(v IS NOT NULL, true, null))`,
 * whose null test needs only the group's nullness. A child that reads the column as a VARIANT
 * of its own, not rebuilt (Iceberg's reader of the files of an Iceberg relation it keeps),
 * computes the same read of its own column.
 *
 * Safe because every child gains the same columns in the same order, so the Union's columns stay
 * aligned, each column is the very expression it replaces (computed from the struct that child
 * rebuilt `v` from, or from the child's own `v`), and the operator's own output is restored. A read
 * is computed in the children for every row of the Union, so a read that can raise an error (a
 * strict cast) moves only where the operator evaluates it for every row of the Union too: no filter
 * or join between, not inside a conditional branch (`CASE`, `IF`, `COALESCE`, the right of
 * `AND`/`OR`, an aggregate's `FILTER`, a lambda). Elsewhere only reads that cannot fail move: the
 * variant at a path (`v:user.id`, whose cast then stays in the operator; `variant_get(v, '$.a',
 * 'int')` becomes `variant_get(c, '$', 'int')` of the column `c` of `v`'s variant at `$.a`: the
 * same value, cast the same way), `try_` reads, null tests. A join's null-supplying side passes
 * nothing up (its null rows would turn a null test's false into NULL).
 *
 * {{{
 *   Before: Aggregate [k], [k, sum(try_variant_get(v, $.price, decimal))]
 *           +- Union
 *              :- Project [reconstruct_shredded_variant(s1) AS v, cast(v:kind as string) AS k] ...
 *              +- Project [reconstruct_shredded_variant(s2) AS v2, ...] ...
 *   After:  Aggregate [k], [k, sum(_variant_path)]
 *           +- Union
 *              :- Project [v, k, shredded_variant_get(s1.typed_value.price..., $.price) AS _variant_path]
 *              +- Project [v2, k2, shredded_variant_get(s2.typed_value.price..., $.price) AS _variant_path]
 *   (column pruning then drops v; the next pass rewrites k from s1 and s2 in each child)
 * }}}
 */
object PushShreddedPathReadsIntoUnion extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case n @ (_: Aggregate | _: Project | _: Join | _: Generate | _: Filter | _: Sort) =>
      val rewritten = n.children.indices.foldLeft(n)((node, i) => overUnionsBelow(node, i))
      if ((rewritten eq n) || rewritten.output == n.output) rewritten else Project(n.output, rewritten)
  }

  /**
   * The Unions below `plan` through operators that pass their columns on, each with whether
   * every row of the Union reaches `plan`.
   */
  private def unionsBelow(plan: LogicalPlan, everyRow: Boolean): Seq[(Union, Boolean)] = plan match {
    case u: Union => Seq(u -> everyRow)
    case p: Project => unionsBelow(p.child, everyRow)
    case s: Sort => unionsBelow(s.child, everyRow)
    case s: SubqueryAlias => unionsBelow(s.child, everyRow)
    case f: Filter => unionsBelow(f.child, everyRow = false)
    case j: Join =>
      val left = j.joinType match {
        case Inner | Cross | LeftOuter | LeftSemi | LeftAnti | _: ExistenceJoin => true
        case _ => false
      }
      val right = j.joinType match {
        case Inner | Cross | RightOuter => true
        case _ => false
      }
      (if (left) unionsBelow(j.left, everyRow = false) else Nil) ++
        (if (right) unionsBelow(j.right, everyRow = false) else Nil)
    case _ => Nil
  }

  private def overUnionsBelow(node: LogicalPlan, i: Int): LogicalPlan = {
    // A join evaluates its condition on pairs, not on every row of each side.
    val everyRow = !node.isInstanceOf[Join]
    unionsBelow(node.children(i), everyRow).foldLeft(node) { case (current, (u, all)) =>
      overUnion(current, i, u, all).getOrElse(current)
    }
  }

  /**
   * Where `plan` (a Union child) rebuilds its column `a` from a struct: the struct, the column's
   * name, and `plan` changed to output the struct too (passed up from the projection that
   * rebuilds it).
   */
  private def rebuiltIn(plan: LogicalPlan, a: Attribute): Option[(LogicalPlan, Attribute, String)] = {
    def withStruct(list: Seq[NamedExpression], s: Attribute) =
      if (list.exists(_.exprId == s.exprId)) list else list :+ s
    plan match {
      case p @ Project(list, child) => list.find(_.exprId == a.exprId) match {
        case Some(Alias(ReconstructShreddedVariant(s: Attribute, col), _)) if child.outputSet.contains(s) =>
          Some((p.copy(projectList = withStruct(list, s)), s, col))
        case Some(_: Attribute) => rebuiltIn(child, a).map { case (c, s, col) =>
          (Project(withStruct(list, s), c), s, col)
        }
        case _ => None
      }
      case f: Filter => rebuiltIn(f.child, a).map { case (c, s, col) => (f.copy(child = c), s, col) }
      case _ => None
    }
  }

  private def overUnion(node: LogicalPlan, i: Int, u: Union, everyRow: Boolean): Option[LogicalPlan] = {
    // Union column -> per child: Some((struct, column name)) where the child rebuilds it from a
    // struct, None where the child reads it as a VARIANT of its own (the files of an Iceberg
    // relation that Iceberg's reader keeps); some child rebuilds it.
    val rebuilt: Map[ExprId, Seq[Option[(Attribute, String)]]] = u.output.zipWithIndex.flatMap { case (out, k) =>
      val perChild = u.children.map(c => rebuiltIn(c, c.output(k)).map { case (_, s, col) => (s, col) })
      val readable = u.children.zip(perChild).forall { case (c, p) =>
          p.isDefined || c.output(k).dataType == VariantType
        }
      if (readable && perChild.exists(_.isDefined)) Some(out.exprId -> perChild) else None
    }.toMap
    if (rebuilt.isEmpty || !node.references.exists(a => rebuilt.contains(a.exprId))) return None
    def isRebuilt(e: Expression) = e match {
      case a: Attribute => rebuilt.contains(a.exprId)
      case _ => false
    }
    // count(v) counts the rows whose v is not NULL: a null test of v, which needs no leaf.
    val counted = node.transformExpressions {
      case c: Count if c.children.exists(isRebuilt) => c.copy(children = c.children.map {
        case a if isRebuilt(a) => If(IsNotNull(a), Literal.TrueLiteral, Literal(null, BooleanType))
        case other => other
      })
    }
    // Which reads move: those a child that rebuilds the column reads from its struct.
    val first = valuePathReads(InlineShreddedPathReads.pathReads {
      case a: Attribute => rebuilt.get(a.exprId).flatMap(_.flatten.headOption)
      case _ => None
    })
    // A read as child `j` computes it: from its struct, or, where the child reads the VARIANT
    // whole, the same read of the child's own column, as the operator above computes it.
    def readsIn(j: Int): PartialFunction[Expression, Expression] = {
      val own: Map[ExprId, Attribute] = rebuilt.collect {
        case (id, perChild) if perChild(j).isEmpty => id -> u.children(j).output(u.output.indexWhere(_.exprId == id))
      }
      valuePathReads(InlineShreddedPathReads.pathReads {
        case a: Attribute => rebuilt.get(a.exprId).flatMap(_(j))
        case _ => None
      }).orElse {
        case e if first.isDefinedAt(e) => e.transform { case a: Attribute if own.contains(a.exprId) => own(a.exprId) }
      }
    }
    val found = mutable.LinkedHashMap.empty[Expression, Expression]
    // A strict read that may not move: its variant at the path moves, its cast stays (read at `$`).
    val deferred = mutable.Map.empty[Expression, (Expression, VariantGet)]
    def collect(e: Expression, always: Boolean): Unit = {
      if (first.isDefinedAt(e) && e.deterministic) {
        if ((everyRow && always) || cannotFail(e)) found.getOrElseUpdate(e.canonicalized, e)
        else e match {
          case g @ VariantGetOf(a: Attribute, p, to, _, tz) if isRebuilt(a) && to != VariantType =>
            val variant = SparkInternals.variantGet(a, p, VariantType, failOnError = true, tz)
            found.getOrElseUpdate(variant.canonicalized, variant)
            deferred(e.canonicalized) = (variant.canonicalized, g)
          case _ =>
        }
      }
      val evaluated: Seq[Expression] = e match {
        case c: ConditionalExpression => c.alwaysEvaluatedInputs
        case a: And => Seq(a.left)
        case o: Or => Seq(o.left)
        case AggregateExpressionOf(_, _, _, filter @ Some(_)) => filter.toSeq
        case h: HigherOrderFunction => h.arguments
        case _ => e.children
      }
      e.children.foreach(c => collect(c, always && evaluated.exists(_ eq c)))
    }
    counted.expressions.foreach(collect(_, always = true))
    if (found.isEmpty) return None
    val reads = found.values.toSeq
    val newChildren = u.children.zipWithIndex.map { case (c, j) =>
      val withStructs = rebuilt.keys.toSeq.sortBy(id => u.output.indexWhere(_.exprId == id))
        .foldLeft(c) { (plan, id) =>
          rebuiltIn(plan, c.output(u.output.indexWhere(_.exprId == id))).map(_._1).getOrElse(plan)
        }
      val rule = readsIn(j)
      Project(c.output ++ reads.map(e => SparkInternals.newAlias(rule(e), "_variant_path")), withStructs)
    }
    val union = u.withNewChildren(newChildren).asInstanceOf[Union]
    val added = union.output.drop(u.output.length)
    val child = withColumnsFrom(node.children(i), u, union, added.map(_.exprId).toSet)
    val columns = reads.map(_.canonicalized).zip(added.map(a => child.output.find(_.exprId == a.exprId).get)).toMap
    val newNode = counted.withNewChildren(node.children.updated(i, child))
    Some(newNode.transformExpressionsDown {
      case e if columns.contains(e.canonicalized) => columns(e.canonicalized)
      case e if deferred.contains(e.canonicalized) =>
        val (variant, g) = deferred(e.canonicalized)
        SparkInternals.withVariantGetInput(g, columns(variant), Literal("$"))
    })
  }

  /** A read that raises no error whatever the row holds. */
  private def cannotFail(e: Expression): Boolean = e match {
    case _: IsNull | _: IsNotNull | _: Attribute => true
    case VariantGetOf(_, _, to, failOnError, _) => to == VariantType || !failOnError
    case CastOf(child, _, _, EvalMode.TRY) => cannotFail(child)
    case _ => false
  }

  /** `plan` with the Union `from` replaced by `to`, its columns `added` passed up to the top. */
  private def withColumnsFrom(plan: LogicalPlan, from: Union, to: Union, added: Set[ExprId]): LogicalPlan =
    if (plan eq from) to else {
      val children = plan.children.map(withColumnsFrom(_, from, to, added))
      if (children.zip(plan.children).forall { case (a, b) => a eq b }) plan else plan match {
        case p: Project => Project(p.projectList ++ children.head.output.filter(a => added.contains(a.exprId)),
          children.head)
        case other => other.withNewChildren(children)
      }
    }

  /** The path reads that are values of the row (not aggregate functions such as `count(v)`). */
  private def valuePathReads(reads: PartialFunction[Expression, Expression])
      : PartialFunction[Expression, Expression] = {
    case e if !e.isInstanceOf[Count] && reads.isDefinedAt(e) => reads(e)
  }
}
