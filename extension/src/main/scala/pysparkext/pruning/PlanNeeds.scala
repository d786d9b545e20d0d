package pysparkext.pruning

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.pysparkext.SparkInternals.AggregateOf

import pysparkext.pruning.Need._

/**
 * Computes, top-down over a whole logical plan, what is needed of every attribute. The plan's
 * output is needed whole. Each operator turns the needs on its output into needs on its child's
 * output: operators that pass attributes through unchanged (filters, joins, sorts, limits,
 * repartitions, generators and windows for their child's columns) keep the attribute's id, so
 * their needs flow down for free; operators that define attributes (projections, aggregates,
 * windows, generators, expands, unions, CTE references) map them through their expressions.
 * Operators this walk does not know need every column of their children whole.
 *
 * Parents are visited before children, so an attribute's need is complete when its defining
 * operator is reached. Subquery plans are walked from their enclosing expression, which records
 * what they need of the outer query through outer references.
 */
final class PlanNeeds extends ExpressionNeeds {
  protected val needs = new NeedMap
  private val cteOutputNeeds = mutable.HashMap.empty[Long, Array[Option[Need]]]

  def needOf(a: Attribute): Option[Need] = needs.get(a.exprId)

  def analyse(plan: LogicalPlan): this.type = {
    plan.output.foreach(a => needs.add(a.exprId, Whole))
    walk(plan)
    this
  }

  override protected def visitSubqueryPlan(
      plan: LogicalPlan, outputNeed: Option[Need], valueColumns: Int): Unit = {
    outputNeed.foreach(n => plan.output.take(valueColumns).foreach(a => needs.add(a.exprId, n)))
    walk(plan)
  }

  private def needAll(plan: LogicalPlan): Unit = plan.output.foreach(a => needs.add(a.exprId, Whole))

  private def visitNamed(list: Seq[NamedExpression]): Unit = list.foreach {
    case a: Alias => visit(a.child, needs.get(a.exprId))
    case _ => ()
  }

  private def walk(plan: LogicalPlan): Unit = {
    plan match {
      case Project(list, _) => visitNamed(list)
      case AggregateOf(groups, aggs, _) =>
        groups.foreach(visitWhole)
        visitNamed(aggs)
      case w: Window =>
        (w.partitionSpec ++ w.orderSpec).foreach(visitWhole)
        visitNamed(w.windowExpressions)
      case g: Generate => visitGenerator(g)
      case e: Expand =>
        e.output.zipWithIndex.foreach { case (a, i) =>
          val n = needs.get(a.exprId)
          e.projections.foreach(p => visit(p(i), n))
        }
      case u: Union =>
        u.children.tail.foreach { c =>
          u.output.zip(c.output).foreach { case (out, in) =>
            needs.get(out.exprId).foreach(needs.add(in.exprId, _))
          }
        }
      case WithCTE(main, defs) =>
        walk(main)
        defs.reverse.foreach { d =>
          cteOutputNeeds.get(d.id).foreach { outNeeds =>
            d.child.output.zip(outNeeds).foreach { case (a, n) => n.foreach(needs.add(a.exprId, _)) }
          }
          walk(d.child)
        }
        return
      case r: CTERelationRef =>
        val acc = cteOutputNeeds.getOrElseUpdate(r.cteId, Array.fill(r.output.length)(None))
        r.output.zipWithIndex.foreach { case (a, i) =>
          needs.get(a.exprId).foreach(n => acc(i) = Some(acc(i).fold(n)(merge(_, n))))
        }
      case _: Filter | _: Join | _: Sort | _: GlobalLimit | _: LocalLimit | _: Offset | _: Tail |
           _: Sample | _: Repartition | _: RepartitionByExpression | _: RebalancePartitions |
           _: SubqueryAlias | _: Subquery | _: ResolvedHint =>
        plan.expressions.foreach(visitWhole)
      case _: LeafNode => ()
      case other =>
        other.expressions.foreach(visitWhole)
        other.children.foreach(needAll)
    }
    plan.children.foreach(walk)
  }

  /**
   * explode / posexplode / inline and their outer forms need of the collection exactly what is
   * needed of the generated columns, plus its length: the number of generated rows depends on it.
   */
  private def visitGenerator(g: Generate): Unit = {
    val outNeeds = g.generatorOutput.map(a => needs.get(a.exprId))
    val collection: Option[(Expression, Need)] = g.generator match {
      case e: Explode => Some(e.child -> collectionNeed(e.child, outNeeds))
      case e: PosExplode => Some(e.child -> collectionNeed(e.child, outNeeds.drop(1)))
      case i: Inline =>
        val fields = i.child.dataType match {
          case org.apache.spark.sql.types.ArrayType(s: org.apache.spark.sql.types.StructType, _) =>
            s.fieldNames.toSeq.zip(outNeeds).collect { case (n, Some(need)) => n -> need }
          case _ => Nil
        }
        Some(i.child -> Elements(if (fields.isEmpty) Presence else Fields(fields.toMap)))
      case _ => None
    }
    collection match {
      case Some((child, need)) => visit(child, Some(need))
      case None => g.generator.children.foreach(visitWhole)
    }
  }

  private def collectionNeed(child: Expression, out: Seq[Option[Need]]): Need =
    child.dataType match {
      case _: org.apache.spark.sql.types.ArrayType => Elements(out.headOption.flatten.getOrElse(Presence))
      case _: org.apache.spark.sql.types.MapType => Values(out.lift(1).flatten.getOrElse(Presence))
      case _ => Whole
    }
}
