package pysparkext.pruning

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.ExprId

/** The accumulated need on every attribute and lambda variable of a plan, keyed by expression id. */
final class NeedMap {
  private val needs = mutable.HashMap.empty[ExprId, Need]

  def add(id: ExprId, need: Need): Unit =
    needs.update(id, needs.get(id).fold(need)(Need.merge(_, need)))

  def get(id: ExprId): Option[Need] = needs.get(id)
}
