package pysparkext.pruning

import scala.util.control.NoStackTrace

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.aggregate.Count
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.trees.TreeNodeTag
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

import pysparkext.{ExtConf, GuardedRule}

/**
 * Explodes pruned arrays as they are read, and widens each generated element instead of the
 * whole array, after [[WholePlanSchemaPruning]].
 *
 * Whole-plan pruning reads a column with only the leaves the plan needs and, at the projection
 * over the scan, widens it back to its original type with `widen_pruned` ([[WidenPrunedValue]]),
 * so the plan above keeps its types. Before a generator that widening rebuilds every array (of
 * arrays) of structs of every row as generic values, which the generator then copies again. This
 * rule moves the widening above the `Generate`, onto each element, where reads of its fields no
 * longer need it:
 *
 *  - a `Generate` of `explode`, `posexplode` or `inline` (outer or not) whose array input is
 *    `widen_pruned(x)`, possibly under field reads (`widen_pruned(x).items`) or through an alias
 *    of the projection below, generates from `x` itself. A projection over it gives each output
 *    column its original id and type: `widen_pruned(element)`, or, for a field `inline` no longer
 *    produces (it was pruned, so nothing reads it), a null;
 *  - a Filter, Project or Aggregate right above such a projection (one this rule made) reads
 *    through it: a field
 *    of a widened value, `widen_pruned(e).f`, reads `e.f` (by name; widened again only if that
 *    field's own type was pruned), and `size`, `isnull`, `isnotnull` and `count` of a widened
 *    value look at `e`. The Filter moves below the projection when its condition needs no widening; a Project
 *    or an Aggregate takes the projection in when that adds no widening. Spark's own batches
 *    that would do this have run before pre-CBO.
 *
 * Each step runs bottom-up once, so a chain of generators narrows generator after generator.
 *
 * Safe because `widen_pruned` only copies values and fills fields the pruning dropped, which the
 * analysis proved unread: a widened array has the same nulls, length and element order, so a
 * generator over the narrow array produces the same rows, and the widened element holds the same
 * values in every field that is read. Every operator above sees the same ids and types. A read of
 * a dropped field, a nondeterministic expression, a subquery, or a plan shape not named above is
 * left as it is.
 *
 * Before (the scan reads `items` with only `cpc` and `clicked`):
 * {{{
 *   Aggregate [sum(_extract_cpc#6)]
 *   +- Project [item#5.cpc AS _extract_cpc#6]
 *      +- Filter item#5.clicked
 *         +- Generate explode(_extract_items#4), [0], false, [item#5]
 *            +- Project [view#3 AS _extract_items#4]
 *               +- Filter (size(view#3) > 0)
 *                  +- Generate explode(_extract_items#2), [0], false, [view#3]
 *                     +- Project [widen_pruned(page#1.views.items) AS _extract_items#2]
 *                        +- Relation [page#1: struct<views: array<struct<items: array<struct<cpc,
 *                                      clicked>>>>>]
 * }}}
 * After (no widening left: only `cpc` and `clicked` of each item are read; `view#7` and `item#8`
 * are the narrow elements):
 * {{{
 *   Aggregate [sum(item#8.cpc)]
 *   +- Filter item#8.clicked
 *      +- Generate explode(_extract_items#9), [0], false, [item#8]
 *         +- Project [view#7 AS _extract_items#9]
 *            +- Filter (size(view#7) > 0)
 *               +- Generate explode(_extract_items#10), [0], false, [view#7]
 *                  +- Project [page#1.views.items AS _extract_items#10]
 *                     +- Relation [page#1: ...]
 * }}}
 */
object NarrowPrunedGenerators extends GuardedRule {
  override protected def featureConf = ExtConf.NarrowPrunedGenerators

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = {
    if (!ExtConf.NestedSchemaPruning.get) return plan
    val widening = plan.collectWithSubqueries {
      case p if p.expressions.exists(_.exists(_.isInstanceOf[WidenPrunedValue])) => p
    }
    if (widening.isEmpty) return plan
    plan.transformUpWithSubqueries {
      case g: Generate => narrow(g).getOrElse(g)
      case f @ Filter(condition, p: Project) if ours(p) => pushFilter(condition, p).getOrElse(f)
      case u @ Project(list, p: Project) if ours(p) => mergeProjects(list, p).getOrElse(u)
      case a: Aggregate => a.child match {
        case p: Project if ours(p) => mergeAggregate(a, p).getOrElse(a)
        case _ => a
      }
    }
  }

  /** Marks the projections this rule makes: only those are read through. */
  private val WideningTag = TreeNodeTag[Unit]("pysparkext.NarrowPrunedGenerators.widening")

  private def ours(p: Project): Boolean = p.getTagValue(WideningTag).isDefined

  private def marked(p: Project): Project = {
    p.setTagValue(WideningTag, ())
    p
  }

  /**
   * A field read of a widened value whose field the pruning dropped, or whose name is not unique
   * in its struct: the step is not taken.
   */
  private final class DroppedField extends RuntimeException with NoStackTrace

  /**
   * `e` with reads of widened values reading the narrow value, every type unchanged; None where
   * a read needs a field the pruning dropped.
   */
  private[pruning] def simplify(e: Expression): Option[Expression] = try Some(e.transformUp {
    case WidenPrunedValue(c, t) if c.dataType == t => c
    case WidenPrunedValue(WidenPrunedValue(c, _), t) => WidenPrunedValue.to(c, t)
    case g @ GetStructField(WidenPrunedValue(x, full: StructType), ordinal, _) => x.dataType match {
      case narrow: StructType =>
        val name = full(ordinal).name
        val i = fieldIndex(full, narrow, name)
        WidenPrunedValue.to(GetStructField(x, i, Some(name)), g.dataType)
      case _ => g
    }
    case g @ GetArrayStructFields(WidenPrunedValue(x, ArrayType(full: StructType, _)), field, _, _, _) =>
      x.dataType match {
        case ArrayType(narrow: StructType, containsNull) =>
          val i = fieldIndex(full, narrow, field.name)
          val read = GetArrayStructFields(x, narrow(i), i, narrow.length, containsNull || narrow(i).nullable)
          WidenPrunedValue.to(read, g.dataType)
        case _ => g
      }
    case g: GetArrayItem if g.child.isInstanceOf[WidenPrunedValue] =>
      WidenPrunedValue.to(g.copy(child = g.child.asInstanceOf[WidenPrunedValue].child), g.dataType)
    // Nulls and lengths are those of the narrow value, so are counts of values.
    case IsNull(WidenPrunedValue(x, _)) => IsNull(x)
    case IsNotNull(WidenPrunedValue(x, _)) => IsNotNull(x)
    case Size(WidenPrunedValue(x, _), legacy) => Size(x, legacy)
    case c: Count if c.children.exists(_.isInstanceOf[WidenPrunedValue]) =>
      c.withNewChildren(c.children.map {
        case WidenPrunedValue(x, _) => x
        case other => other
      })
  }) catch {
    case _: DroppedField => None
  }

  /** The narrow struct's field named `name`, which must name one field of the full struct. */
  private def fieldIndex(full: StructType, narrow: StructType, name: String): Int =
    if (full.fieldNames.count(_ == name) != 1) throw new DroppedField
    else Padding.fieldIndex(narrow, name).getOrElse(throw new DroppedField)

  private def widenings(e: Expression): Int = e.collect { case w: WidenPrunedValue => w }.size

  /**
   * Cheap to read through, as Spark's `CollapseProject` judges it: columns, literals and field
   * reads of them, and widened values (which the callers count, so none is computed twice).
   */
  private def cheap(e: Expression): Boolean = e match {
    case _: Attribute | _: Literal => true
    case _: ExtractValue | _: WidenPrunedValue => e.children.forall(cheap)
    case _ => false
  }

  private def cheapEntry(ne: NamedExpression): Boolean = ne match {
    case _: Attribute => true
    case a: Alias => cheap(a.child)
    case _ => false
  }

  /**
   * The aliases of `p` that `refs` reads, if `refs` reads nothing of `p` but its columns and
   * cheap aliases. Reading through other aliases could compute them twice.
   */
  private def aliasesRead(p: Project, refs: AttributeSet): Option[Seq[Alias]] = {
    if (!p.projectList.forall(_.deterministic)) return None
    val byId = p.projectList.map(ne => ne.exprId -> ne).toMap
    val read = refs.toSeq.flatMap(r => byId.get(r.exprId))
    if (read.size != refs.size || !read.forall(cheapEntry)) None
    else Some(read.collect { case a: Alias => a })
  }

  private def readable(e: Expression): Boolean =
    e.deterministic && !e.exists(_.isInstanceOf[SubqueryExpression])

  private def substitute(e: Expression, aliases: Seq[Alias]): Expression = {
    val byId = aliases.map(a => a.exprId -> a.child).toMap
    e.transformUp { case a: Attribute if byId.contains(a.exprId) => byId(a.exprId) }
  }

  /** `Filter(c, Project(l, child))` as `Project(l, Filter(c', child))` when `c'` widens nothing. */
  private def pushFilter(condition: Expression, p: Project): Option[LogicalPlan] =
    if (!readable(condition)) None
    else aliasesRead(p, condition.references).flatMap { aliases =>
      simplify(substitute(condition, aliases)).filter(widenings(_) == 0)
        .map(c => marked(Project(p.projectList, Filter(c, p.child))))
    }

  /** `Project(u, Project(l, child))` as one projection when that widens no more than `l`. */
  private def mergeProjects(upper: Seq[NamedExpression], p: Project): Option[LogicalPlan] =
    readThrough(upper, Nil, p).map { case (list, _) => marked(Project(list, p.child)) }

  /**
   * `Aggregate(g, a, Project(l, child))` as an aggregate over `child` when that widens no more
   * than `l`, as Spark's `CollapseProject` merges them: grouping and aggregate expressions are
   * rewritten the same way, so those that matched still match.
   */
  private def mergeAggregate(a: Aggregate, p: Project): Option[LogicalPlan] =
    readThrough(a.aggregateExpressions, a.groupingExpressions, p).map { case (list, grouping) =>
      a.copy(groupingExpressions = grouping, aggregateExpressions = list, child = p.child)
    }

  /**
   * `named` and `others`, which read `p`'s output, rewritten to read `p`'s child: names and ids
   * kept, reads of widened values simplified. None unless every read simplifies and the result
   * widens no more values than `p` did.
   */
  private def readThrough(named: Seq[NamedExpression], others: Seq[Expression], p: Project)
      : Option[(Seq[NamedExpression], Seq[Expression])] =
    if (!(named ++ others).forall(readable)) None
    else aliasesRead(p, AttributeSet((named ++ others).flatMap(_.references))).flatMap { aliases =>
      val byId = aliases.map(a => a.exprId -> a).toMap
      val rewritten = named.map {
        case a: Attribute if byId.contains(a.exprId) =>
          simplify(byId(a.exprId).child).map(c =>
            SparkInternals.alias(c, a.name, a.exprId, a.qualifier, Some(a.metadata)))
        case a: Attribute => Some(a)
        case a: Alias => simplify(substitute(a.child, aliases)).map(SparkInternals.withAliasChild(a, _))
        case _ => None
      }
      val rewrittenOthers = others.map(e => simplify(substitute(e, aliases)))
      if (rewritten.exists(_.isEmpty) || rewrittenOthers.exists(_.isEmpty)) None
      else {
        val (list, rest) = (rewritten.flatten, rewrittenOthers.flatten)
        val widened = (list ++ rest).map(widenings).sum
        if (widened <= aliases.map(widenings).sum) Some((list, rest)) else None
      }
    }

  /** A generator whose input array is widened, generating from the narrow array instead. */
  private def narrow(g: Generate): Option[LogicalPlan] = {
    val arity = g.generator match {
      case _: PosExplode => 2
      case _: Explode => 1
      case _: Inline => g.generatorOutput.length
      case _ => return None
    }
    val input = g.generator.children.head
    if (g.generatorOutput.length != arity || !readable(input)) return None
    // The input read through the projection below, or as it is.
    val through = g.child match {
      case p: Project => aliasesRead(p, input.references).filter(_.nonEmpty).map(a => (p, a))
      case _ => None
    }
    val resolved = simplify(through.fold(input) { case (_, aliases) => substitute(input, aliases) })
    resolved match {
      case Some(WidenPrunedValue(x, ArrayType(full, _))) if readable(x) => x.dataType match {
        case ArrayType(narrowElement, _) =>
          generatorOutput(g, full, narrowElement).map { case (output, columns) =>
            val (child, unrequired, generatorInput) = through match {
              case Some((p, _)) =>
                // The aliases the old generator read are not needed above: they go.
                val required = g.requiredChildOutput.map(_.exprId).toSet
                val kept = p.projectList.filter(ne => required.contains(ne.exprId))
                val n = SparkInternals.newAlias(x, input match {
                  case a: Attribute => a.name
                  case _ => "_pruned"
                })
                (Project(kept :+ n, p.child), Seq(kept.length), n.toAttribute)
              case None => (g.child, g.unrequiredChildIndex, x)
            }
            val generator = g.generator.withNewChildren(Seq(generatorInput)).asInstanceOf[Generator]
            val narrowed = g.copy(generator = generator, unrequiredChildIndex = unrequired,
              generatorOutput = output, child = child)
            val produced = narrowed.qualifiedGeneratorOutput.map(a => a.exprId -> a).toMap
            val old = g.qualifiedGeneratorOutput
            val widened = g.requiredChildOutput ++ old.zip(columns).map { case (o, column) =>
              column match {
                case Some(a) if a.exprId == o.exprId => produced(a.exprId)
                case Some(a) => SparkInternals.alias(WidenPrunedValue.to(produced(a.exprId), o.dataType), o.name,
                  o.exprId, o.qualifier, Some(o.metadata))
                case None => SparkInternals.alias(
                  if (o.nullable) Literal(null, o.dataType) else Literal.default(o.dataType),
                  o.name, o.exprId, o.qualifier, Some(o.metadata))
              }
            }
            marked(Project(widened, narrowed))
          }
        case _ => None
      }
      case _ => None
    }
  }

  /**
   * The narrowed generator's output attributes, and for each old output column the attribute
   * that now carries it (the same attribute where its type did not change), or None for a field
   * of `inline` that the pruning dropped.
   */
  private def generatorOutput(g: Generate, full: DataType, narrowElement: DataType)
      : Option[(Seq[Attribute], Seq[Option[Attribute]])] = {
    def carry(o: Attribute, t: DataType): Attribute =
      if (o.dataType == t) o
      else SparkInternals.attribute(o.name, t, o.nullable, o.metadata, qualifier = o.qualifier)
    g.generator match {
      case _: Inline => (full, narrowElement) match {
        case (fs: StructType, ns: StructType) if fs.fieldNames.distinct.length == fs.length =>
          val columns = g.generatorOutput.zip(fs.fields).map { case (o, f) =>
            Padding.fieldIndex(ns, f.name).map(i => carry(o, ns(i).dataType))
          }
          // Inline produces the narrow struct's fields in its order, a subset of the full order.
          val output = columns.flatten
          if (output.map(_.dataType) == ns.fields.toSeq.map(_.dataType)) Some((output, columns))
          else None
        case _ => None
      }
      case _ =>
        val element = carry(g.generatorOutput.last, narrowElement)
        Some((g.generatorOutput.init :+ element, g.generatorOutput.init.map(Some(_)) :+ Some(element)))
    }
  }
}
