package pysparkext.testing

import org.scalatest.Outcome
import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.expressions.{Expression, GetStructField}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

import pysparkext.ExtConf

/** A suite of one rule: plan comparison, settings for a block, small expression builders. */
abstract class RuleSuite extends AnyFunSuite with PlanComparison {

  /**
   * Strict mode throughout: a guarded rule that fails inside would otherwise return its input,
   * and a test expecting the plan unchanged would pass for the wrong reason.
   */
  override protected def withFixture(test: NoArgTest): Outcome =
    withConf(ExtConf.Strict.key -> "true")(super.withFixture(test))

  /** Runs `body` with the given settings in the current `SQLConf`, restoring them after. */
  def withConf[T](pairs: (String, String)*)(body: => T): T = {
    val conf = SQLConf.get
    val before = pairs.map { case (k, _) => k -> Option(conf.getConfString(k, null)) }
    pairs.foreach { case (k, v) => conf.setConfString(k, v) }
    try body finally before.foreach {
      case (k, Some(v)) => conf.setConfString(k, v)
      case (k, None) => conf.unsetConf(k)
    }
  }

  /** `e.name`, resolved (the DSL's `getField` builds an unresolved extraction). */
  def getField(e: Expression, name: String): GetStructField = {
    val s = e.dataType.asInstanceOf[StructType]
    GetStructField(e, s.fieldIndex(name), Some(name))
  }

  /** `e.a.b.c` for the path `a.b.c`. */
  def path(e: Expression, dotted: String): Expression = dotted.split('.').foldLeft(e)(getField)
}
