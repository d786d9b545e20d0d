package pysparkext.variant.rules

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, Generate, GlobalLimit, Join, LocalLimit,
  LogicalPlan, Offset, Project, RebalancePartitions, Repartition, RepartitionByExpression, Sample, Sort,
  SubqueryAlias, Union, Window}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.pysparkext.SparkInternals.StructFieldOf

import pysparkext.variant.expressions.{RebuildShreddedStruct, ReconstructShreddedVariant}

/**
 * Where an operator above reads a reconstructed variant `v` by attribute, carries the shredded
 * struct `s` it is reconstructed from up next to `v`, through every operator that passes its
 * child's columns on, and turns the operator's path reads of `v` into reads of `s`'s shredded
 * columns (as [[InlineShreddedPathReads]] does inline). Likewise for a struct rebuilt around
 * shredded VARIANT fields, whose fields are then read from the struct as read. One step of
 * [[RewriteShreddedVariantPaths]]; column pruning then drops `v` wherever nothing needs it whole.
 *
 * Safe because the reads become the same [[InlineShreddedPathReads]] replacements, and carrying
 * an extra column up changes no operator's result: the struct is added only to Project lists,
 * and any operator that does not read its child by reference (a write command, a set operation)
 * sees its child's original columns again. Nothing is carried out of a Union's child, whose
 * columns must stay aligned with its siblings'.
 *
 * {{{
 *   Before: Project [variant_get(v, $.user.id, int) AS id]
 *           +- Filter isnotnull(v)
 *              +- Project [reconstruct_shredded_variant(s) AS v]
 *                 +- Relation [s]
 *   After:  Project [shredded_variant_get(s.object.user.object.id.typed_value, ..., $.user.id, int) AS id]
 *           +- Filter (isnotnull(s.untyped_value) OR isnotnull(s.object) OR ...)
 *              +- Project [reconstruct_shredded_variant(s) AS v, s]
 *                 +- Relation [s]     (column pruning then drops v and the Project)
 * }}}
 */
object CarryShreddedStructsUp extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = restoreOutputs(plan, carry(plan))

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

  /** The attribute a chain of struct field reads starts from (the attribute itself included). */
  private object FieldsOf {
    def unapply(e: Expression): Option[Attribute] = e match {
      case a: Attribute => Some(a)
      case StructFieldOf(c, _) => unapply(c)
      case _ => None
    }
  }

  private def carry(plan: LogicalPlan): LogicalPlan = {
    // v's expression id -> (the struct attribute it was rebuilt from, its rebuild: a variant's
    // reconstruction, or a struct's around its shredded VARIANT fields)
    val defined = mutable.Map.empty[ExprId, (Attribute, Expression)]
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
      // A carried variant, or a VARIANT field (at any depth) of a carried struct.
      def rebuild(e: Expression): Option[Expression] = e match {
        case a: Attribute => visible.get(a.exprId).map(_._2)
        case StructFieldOf(c, ordinal) =>
          rebuild(c).collect { case r: RebuildShreddedStruct => r.field(ordinal) }
        case _ => None
      }
      // Any other field of a carried struct is read from the struct as read, so only that field
      // of it is read (a VARIANT field then through its reconstruction).
      val fields: PartialFunction[Expression, Expression] = {
        case e @ StructFieldOf(_, _) if rebuild(e).isDefined => rebuild(e).get
      }
      val rewritten =
        if (visible.isEmpty) node else node.transformExpressionsDown(InlineShreddedPathReads.pathReads { e =>
          rebuild(e).collect { case ReconstructShreddedVariant(s, col) => s -> col }
        }.orElse(fields))
      rewritten match {
        case p @ Project(list, child) =>
          val defs = list.collect {
            // A VARIANT field of a struct too (`s.w`, which Spark's nested column aliasing
            // may have given a column of its own): the struct is carried.
            case a @ Alias(r @ ReconstructShreddedVariant(FieldsOf(s), _), _)
                if child.outputSet.contains(s) && !unionInputs.contains(a.exprId) =>
              a.exprId -> (s, r: Expression)
            case a @ Alias(r @ RebuildShreddedStruct(s: Attribute, _, _), _)
                if child.outputSet.contains(s) && !unionInputs.contains(a.exprId) =>
              a.exprId -> (s, r: Expression)
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
