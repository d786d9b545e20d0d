package pysparkext.connect

import java.util.Optional

import org.sparkproject.connect.protobuf.{Any => ProtoAny, ByteString, CodedInputStream}

import org.apache.spark.connect.proto.Relation
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.apache.spark.sql.connect.plugin.RelationPlugin
import org.apache.spark.sql.pysparkext.{QueryRuns, SparkInternals}
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.UTF8String

import pysparkext.report.ReadSchemaReport

/**
 * `pyspark_ext.explain_read_schema` for Spark Connect clients, which hold no JVM handle on their
 * DataFrame. Registered on the server with `spark.connect.extensions.relation.classes`.
 *
 * The client sends a relation whose `extension` is an `Any` of type [[TypeUrl]] wrapping the
 * DataFrame's own plan, SQL or DataFrame API alike:
 * {{{
 *   message ExplainReadSchema {
 *     spark.connect.Relation query = 1;  // the plan of the DataFrame to explain
 *     bool run = 2;                      // run the query first (rows discarded), for run-time counts
 *   }
 * }}}
 * The plugin plans `query` in the client's server-side session (its settings, temp views and the
 * extension's rules), builds the same report as for a classic DataFrame and answers with one row,
 * one column `scans`: the report as a JSON array, one object per scan.
 *
 * A Connect DataFrame is planned afresh on every action, so its earlier runs leave no metrics to
 * report; `run` executes this plan once before the report is read, which gives `rows_output` and
 * the row-group metrics as a classic DataFrame has them after it has run.
 */
class ExplainReadSchemaPlugin extends RelationPlugin {
  override def transform(relation: Array[Byte], planner: SparkConnectPlanner): Optional[LogicalPlan] = {
    val extension = ProtoAny.parseFrom(relation)
    if (extension.getTypeUrl != ExplainReadSchemaPlugin.TypeUrl) return Optional.empty()
    val (query, run) = ExplainReadSchemaPlugin.parse(extension.getValue)
    val df = QueryRuns.dataFrame(planner.session, planner.transformRelation(query))
    if (run) QueryRuns.runDiscardingRows(df, "explain_read_schema")
    val report = ReadSchemaReport.json(df)
    Optional.of(LocalRelation(Seq(SparkInternals.attribute("scans", StringType, nullable = false)),
      Seq(InternalRow(UTF8String.fromString(report)))))
  }
}

object ExplainReadSchemaPlugin {
  val TypeUrl = "type.googleapis.com/pysparkext.ExplainReadSchema"

  private val QueryField = 1
  private val RunField = 2

  /** The request's fields; unknown fields are skipped, as protobuf readers do. */
  def parse(bytes: ByteString): (Relation, Boolean) = {
    val in = CodedInputStream.newInstance(bytes.toByteArray)
    var query: Option[Relation] = None
    var run = false
    var tag = in.readTag()
    while (tag != 0) {
      tag >>> 3 match {
        case QueryField => query = Some(Relation.parseFrom(in.readBytes()))
        case RunField => run = in.readBool()
        case _ => in.skipField(tag)
      }
      tag = in.readTag()
    }
    (query.getOrElse(throw new IllegalArgumentException(
      s"pyspark-ext: an ExplainReadSchema request without a query (field $QueryField)")), run)
  }
}
