package pysparkext

import org.apache.spark.sql.SparkSessionExtensions

import pysparkext.pruning.WholePlanSchemaPruning

/**
 * Entry point named in `spark.sql.extensions`. It only wires the rules; each rule documents what
 * it rewrites and reads its own switches.
 *
 * Whole-plan pruning runs as a pre-CBO rule: after operator optimisation (so column pruning,
 * predicate push-down and subquery optimisation have shaped the plan) and right before Spark's own
 * "Early Filter and Projection Push-Down" batch, whose SchemaPruning then sees scans already pruned.
 */
class PySparkExtSessionExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectPreCBORule(_ => WholePlanSchemaPruning)
  }
}
