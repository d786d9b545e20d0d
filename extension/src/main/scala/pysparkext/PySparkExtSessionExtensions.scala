package pysparkext

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.pysparkext.{SparkInternals, SparkInternalsProbe}
import org.apache.spark.sql.pysparkext.shims.VariantHalfShim

import pysparkext.exec.PreColumnarRewrites
import pysparkext.pruning.{DistinctRelationCopies, NarrowPrunedGenerators, WholePlanSchemaPruning}

/**
 * Entry point named in `spark.sql.extensions`. It only wires the rules; each rule documents what it
 * rewrites and reads its own switches. First it checks the extension's settings the session starts
 * with, failing the session's creation on a bad value ([[ExtConf.checkAtStart]]). Then it probes
 * the Spark internals the rules rely on ([[SparkInternalsProbe]]): a feature whose internal is
 * missing stays off, with a warning. It also warns where Delta Lake's extension is listed ahead of
 * it ([[ExtensionOrder]]). `docs/architecture.md` follows a query through these rules.
 *
 * - Analysis: shredded variant columns (draft or spec layout) are presented as VARIANT.
 * - Pre operator optimization: a projection holding a correlated subquery over a Union (the
 *   per-file scans of a table) is pushed into the Union's children, where Spark's own rule fails.
 *   Spark before 4.3 has no such batch; there the same push is made at the end of analysis.
 * - Pre-CBO, in order: variant path reads become shredded-column reads, filters on them gain
 *   row-group skipping predicates, copies of a scan that share column ids (from decorrelation)
 *   get ids of their own, then whole-plan nested schema pruning, then generators of pruned
 *   arrays explode the narrow arrays ([[NarrowPrunedGenerators]]). Pre-CBO runs after
 *   operator optimisation (column pruning, predicate push-down and subquery optimisation have
 *   shaped the plan) and right before Spark's own "Early Filter and
 *   Projection Push-Down" batch, whose SchemaPruning then sees scans already pruned.
 * - Physical planning: nested fields of vectorized Parquet scans are read as top-level columns;
 *   scans of shredded variants that push filters count the row groups they read and skip.
 * - Post-hoc resolution: `shred_variant(v, 'schema', 'spec')` marks a column, and a Parquet
 *   write of marked columns shreds them with their schemas ([[ResolveSpecLayoutWrites]]).
 * - Functions: `shred_variant(v, 'schema')` writes the draft layout, with `'spec'` the spec layout.
 *
 * Everything about VARIANT is registered through `shims.VariantHalfShim`, which only the lines
 * that have VARIANT (4.0 and later) provide in full; on Spark 3.5 it registers nothing. The
 * physical rewrites run in the order of [[PreColumnarRewrites.rewrites]].
 * [[org.apache.spark.sql.pysparkext.WiredRules]] reads this wiring back, stage by stage, for the
 * table in `docs/architecture.md`.
 */
class PySparkExtSessionExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    // Registers the settings with Spark before the new session copies the SparkConf into its
    // own settings, so that Spark checks their values there.
    require(ExtConf.all.nonEmpty)
    SparkInternals.activeSparkConf.foreach(ExtConf.checkAtStart)
    SparkInternalsProbe.run()
    ExtensionOrder.checkOnce()
    // The variant half's rules and function, on lines that have VARIANT; none on Spark 3.5.
    VariantHalfShim.inject(extensions)
    extensions.injectPreCBORule(_ => DistinctRelationCopies)
    extensions.injectPreCBORule(_ => WholePlanSchemaPruning)
    extensions.injectPreCBORule(_ => NarrowPrunedGenerators)
    extensions.injectColumnar(session => new PreColumnarRewrites(session))
  }
}
