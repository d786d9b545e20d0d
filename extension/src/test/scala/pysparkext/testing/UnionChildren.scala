package pysparkext.testing

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation

/**
 * The children of a Union as a rule pushing projections into them sees them: two relations with
 * the same columns (`id`, `v`) under their own expression ids, and the columns of a relation a
 * correlated subquery reads (`xid`, `xvalue`).
 */
trait UnionChildren {
  protected val id1: AttributeReference = $"id".long
  protected val v1: AttributeReference = $"v".int
  protected val id2: AttributeReference = $"id".long
  protected val v2: AttributeReference = $"v".int
  protected val xId: AttributeReference = $"xid".long
  protected val xValue: AttributeReference = $"xvalue".int
  protected val first: LocalRelation = LocalRelation(id1, v1)
  protected val second: LocalRelation = LocalRelation(id2, v2)
}
