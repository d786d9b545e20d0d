package pysparkext.pruning

import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeMap}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.pysparkext.SparkInternals.DataSourceRelation
import org.apache.spark.sql.types.{ArrayType, MapType, StructType}

import pysparkext.{ExtConf, GuardedRule}

/**
 * Gives every further copy of a file scan that appears more than once in a plan with the same
 * column ids its own ids, before nested schema pruning.
 *
 * Why: Spark's decorrelation of a subquery with a non-equality correlation (`x.id >= e.id`) joins
 * the subquery with the distinct outer values, and builds those from a copy of the outer query's
 * plan that keeps its ids. Each copy needs different nested fields: the outer query may read a
 * column whole while the copy reads one field in a filter. Nested schema pruning (this
 * extension's, by id, and Spark's `SchemaPruning`, per scan) then reads the copies with different
 * types under one id, and Spark's plan validation fails the query ("Multiple attributes have the
 * same expression ID but different data types"). With ids of its own, each copy is pruned to
 * what it needs.
 *
 * Safe because a copy's new ids replace the old ones only in the operators above it that still
 * see its columns, up to the operator that stops passing them on (in decorrelation, the aggregate
 * that takes the distinct outer values): above that the copy's columns are not referenced. Where
 * an operator's children would present both the old and the new id for one column the rule
 * gives up, leaving the plan as it was.
 *
 * Before:
 * {{{
 *   Join LeftOuter, (id#20 <=> id#2)
 *   :- Filter (v#4.a < 10)              Relation [id#2, v#4]   (reads v whole above)
 *   +- Aggregate [...] +- Join Inner, (id#10 >= id#20)
 *      :- Aggregate [id#2], [id#2 AS id#20]
 *      :  +- Filter (v#4.a < 10)        Relation [id#2, v#4]   (the copy)
 *      +- ...
 * }}}
 * After: the copy reads `Relation [id#30, v#31]`, its filter `v#31.a < 10` and its aggregate
 * `[id#30], [id#30 AS id#20]`.
 */
object DistinctRelationCopies extends GuardedRule {
  override protected def featureConf = ExtConf.NestedSchemaPruning

  private final class Ambiguous extends RuntimeException

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = {
    val copied = plan.collect { case DataSourceRelation(r) if nested(r) => r.output.map(_.exprId) }
      .groupBy(identity).collect { case (ids, seen) if seen.length > 1 => ids }.toSet
    if (copied.isEmpty) return plan
    val first = scala.collection.mutable.Set.empty[Seq[org.apache.spark.sql.catalyst.expressions.ExprId]]

    def go(p: LogicalPlan): (LogicalPlan, AttributeMap[Attribute]) = p match {
      case DataSourceRelation(r) if copied.contains(r.output.map(_.exprId)) =>
        if (first.add(r.output.map(_.exprId))) (r, AttributeMap.empty[Attribute])
        else {
          val fresh = r.newInstance()
          (fresh, AttributeMap(r.output.zip(fresh.output)))
        }
      case other if other.children.isEmpty => (other, AttributeMap.empty[Attribute])
      case other =>
        val done = other.children.map(go)
        val mapping = AttributeMap(done.flatMap(_._2.toSeq))
        val node = other.withNewChildren(done.map(_._1))
        if (mapping.isEmpty) (node, mapping)
        else {
          // A child that still presents an old id beside a sibling's renamed one would make the
          // node's references to it ambiguous.
          done.foreach { case (child, m) =>
            if (child.output.exists(a => mapping.contains(a) && !m.contains(a))) throw new Ambiguous
          }
          val rewritten = node.transformExpressions { case a: Attribute => mapping.getOrElse(a, a) }
          val out = rewritten.outputSet
          (rewritten, AttributeMap(mapping.toSeq.filter { case (_, nu) => out.contains(nu) }))
        }
    }
    try go(plan)._1 catch { case _: Ambiguous => plan }
  }

  private def nested(r: LogicalRelation): Boolean = r.output.exists(_.dataType match {
    case _: StructType | _: ArrayType | _: MapType => true
    case _ => false
  })
}
