package pysparkext.pruning

import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.datasources.v2.{DataSourceV2Relation, FileTable}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.pysparkext.SparkInternals.FileRelation
import org.apache.spark.sql.types.{StructField, StructType}

import pysparkext.formats.{Feature, TableFormats}

/**
 * A scan whose columns can be read with a pruned nested type: what it outputs, which of its
 * columns come from the data files, and how to rebuild it with pruned output attributes.
 *
 * DSv1 Parquet and ORC file relations are rebuilt with a pruned data schema, as Spark's own
 * SchemaPruning does. DSv2 relations are rebuilt with pruned output types only for Spark's own
 * Parquet and ORC tables, whose scan builders honour nested pruning: V2 push-down then asks the
 * builder for exactly the pruned schema. A source that ignored the request would return wider
 * values than the rewritten plan expects, so other DSv2 sources are not touched, except Iceberg's
 * tables ([[pysparkext.formats.IcebergTables]]), whose scan builder projects nested column requests by name. Which
 * scans qualify is [[TableFormats]]' decision ([[Feature.NestedPruning]]).
 *
 * No scan is prunable while Spark's own `spark.sql.optimizer.nestedSchemaPruning.enabled` is off,
 * as Spark itself then prunes none. Spark's readers depend on that setting, not only its optimizer:
 * with it off, Parquet's row-by-row (parquet-mr) reader asks each file for the requested schema
 * without first intersecting it with the file's own, so a pruned struct that a file lacks fails the
 * read; and Spark's DSv2 push-down then asks the scan builders for whole top-level columns, which
 * would not match pruned output types.
 */
final case class PrunableScan(
    plan: LogicalPlan,
    output: Seq[AttributeReference],
    dataSchema: StructType,
    rebuild: Seq[AttributeReference] => LogicalPlan)

object PrunableScan {
  def unapply(plan: LogicalPlan): Option[PrunableScan] = plan match {
    case _ if !SQLConf.get.nestedSchemaPruningEnabled => None
    case FileRelation(r, fs, output, _)
        if TableFormats.decide(Feature.NestedPruning, fs).applies =>
      Some(PrunableScan(r, output, fs.dataSchema, newOutput => {
        val dataSchema = StructType(fs.dataSchema.fields.map { f =>
          newOutput.find(a => SQLConf.get.resolver(a.name, f.name))
            .fold(f)(a => f.copy(dataType = a.dataType))
        })
        SparkInternals.withRelation(r, SparkInternals.withDataSchema(fs, dataSchema), newOutput)
      }))
    case r: DataSourceV2Relation if !r.isStreaming && TableFormats.nestedPruning(r).applies =>
      val dataSchema = r.table match {
        case t: FileTable => t.dataSchema
        case t => StructType(t.columns().map(c => StructField(c.name, c.dataType, c.nullable)))
      }
      Some(PrunableScan(r, r.output, dataSchema, newOutput => SparkInternals.withOutput(r, newOutput)))
    case _ => None
  }
}
