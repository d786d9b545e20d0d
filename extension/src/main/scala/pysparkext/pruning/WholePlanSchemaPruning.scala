package pysparkext.pruning

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.pysparkext.SparkInternals

import pysparkext.{ExtConf, GuardedRule}

/**
 * Whole-plan nested schema pruning (ScORe-style) for Parquet and ORC scans, DSv1 and DSv2.
 *
 * [[PlanNeeds]] computes what the whole plan, subqueries included, needs of every scanned column.
 * Each struct, array or map column whose need is narrower than its type is read as the pruned
 * type. The Filters directly above the scan and the first Project are rewritten onto the pruned
 * columns by [[PrunedAttributes]], keeping nested predicates pushable; everything above keeps its
 * original types because pruned values are padded back to them.
 *
 * Safe because a field is dropped only when no expression in the plan reads it: the analysis
 * treats every expression it does not know, and every ordering, grouping, comparison, hash,
 * serialisation or UDF of a struct, as needing the value whole. Scans inside subquery
 * expressions are pruned here too, with what the enclosing query needs of the subquery's output
 * and of its correlated conditions: when Spark optimises a subquery on its own, the columns those
 * pulled-up conditions read are part of its output and so look needed whole. Cached data
 * (InMemoryRelation) is a leaf and is never pruned. Streaming plans are left alone.
 *
 * Before (the join reads only `u.geo.city`, the filter only `u.geo.lat`):
 * {{{
 *   Join Inner, (u#2.geo.city = name#9)
 *   :- Filter (u#2.geo.lat > 0.0)
 *   :  +- Relation parquet [id#1, u#2: struct<name, geo: struct<city, lat, lon>>]
 *   +- ...
 * }}}
 * After (the scan's column keeps its id; the projection pads it back to the original type, and
 * Spark's own rules then simplify `named_struct(...).geo.city` to the field read):
 * {{{
 *   Join Inner, (u#2.geo.city = name#9)
 *   :- Project [id#1, named_struct(name, null, geo, named_struct(city, u#2.geo.city, lat,
 *   :  :         u#2.geo.lat, lon, null)) AS u#2]
 *   :  +- Filter (u#2.geo.lat > 0.0)
 *   :     +- Relation parquet [id#1, u#2: struct<geo: struct<city, lat>>]
 *   +- ...
 * }}}
 */
object WholePlanSchemaPruning extends GuardedRule {
  override protected def featureConf = ExtConf.NestedSchemaPruning

  override protected def rewrite(plan: LogicalPlan): LogicalPlan = {
    if (plan.isStreaming) return plan
    val scans = plan.collectWithSubqueries { case PrunableScan(scan) => scan }
    if (scans.isEmpty) return plan
    val needs = new PlanNeeds().analyse(plan)
    // A column a subquery reads through an outer reference keeps its id and type: the reference
    // lives in the subquery's own plan, which cannot see a replacement column.
    val outerReferenced = plan.collectWithSubqueries { case p =>
      p.expressions.flatMap(_.collect { case o: OuterReference => o.e.exprId })
    }.flatten.toSet
    val replacements: Map[Seq[ExprId], PrunedScan] = scans
      .flatMap(PrunedScan.of(_, needs, outerReferenced))
      .map(p => p.original.output.map(_.exprId) -> p).toMap
    if (replacements.isEmpty) plan else replaceScans(plan, replacements)
  }

  private def replaceScans(
      plan: LogicalPlan,
      scans: Map[Seq[ExprId], PrunedScan]): LogicalPlan = {
    def lookup(p: LogicalPlan): Option[(Seq[Filter], PrunedScan)] = p match {
      case f: Filter => lookup(f.child).map { case (fs, s) => (f +: fs, s) }
      case l: LeafNode => scans.get(l.output.map(_.exprId)).map(s => (Nil, s))
      case _ => None
    }
    def rebuildFilters(filters: Seq[Filter], scan: PrunedScan): LogicalPlan =
      filters.foldRight(scan.relation) { (f, child) => Filter(scan.rewrite(f.condition), child) }
    object ScanChain { def unapply(p: LogicalPlan): Option[(Seq[Filter], PrunedScan)] = lookup(p) }
    def go(p: LogicalPlan): LogicalPlan = p match {
      case Project(list, ScanChain(filters, scan)) =>
        Project(list.map(scan.rewriteNamed), rebuildFilters(filters, scan))
      case ScanChain(filters, scan) =>
        Project(scan.original.output.map(scan.rewriteNamed), rebuildFilters(filters, scan))
      case other => other.mapChildren(go)
    }
    def withSubqueries(p: LogicalPlan): LogicalPlan = go(p).transform { case node =>
      node.transformExpressions { case s: SubqueryExpression => s.withNewPlan(withSubqueries(s.plan)) }
    }
    withSubqueries(plan)
  }
}

/** One scan read with pruned column types, and how to rewrite expressions onto it. */
final case class PrunedScan(original: PrunableScan, relation: LogicalPlan,
    rewriter: PrunedAttributes) {

  def rewrite(e: Expression): Expression = rewriter(e)

  /**
   * Keeps the output name, id and exact type, so the operators above see the column they expect.
   * A struct padded back with `named_struct` has the original fields and types but not their
   * metadata (the draft layout marks nested fields), and the id's other uses keep the original
   * type, which Spark's plan validation requires to be the same everywhere: such a value is
   * widened into the original type instead.
   */
  def rewriteNamed(ne: NamedExpression): NamedExpression = ne match {
    case a: Alias =>
      SparkInternals.withAliasChild(a, WidenPrunedValue.to(rewriter(a.child), a.child.dataType))
    case a: AttributeReference =>
      val r = rewriter(a)
      if (r eq a) a else SparkInternals.alias(WidenPrunedValue.to(r, a.dataType), a.name, a.exprId, a.qualifier,
        Some(a.metadata))
    case other => other
  }
}

object PrunedScan {
  def of(scan: PrunableScan, needs: PlanNeeds, keep: Set[ExprId]): Option[PrunedScan] = {
    val resolver = org.apache.spark.sql.internal.SQLConf.get.resolver
    val prunedTypes = scan.output.flatMap { a =>
      val inData = scan.dataSchema.exists(f => resolver(f.name, a.name))
      val isMetadata = a.metadata.contains("__metadata_col") ||
        a.metadata.contains("__file_source_metadata_col")
      needs.needOf(a).filter(_ => inData && !isMetadata && !keep.contains(a.exprId)).flatMap { need =>
        val t = Need.prune(a.dataType, need)
        if (t != a.dataType && Need.leafCount(t) < Need.leafCount(a.dataType)) Some(a.exprId -> t)
        else None
      }
    }.toMap
    if (prunedTypes.isEmpty) return None

    val newOutput = scan.output.map { a =>
      prunedTypes.get(a.exprId).fold(a) { t =>
        SparkInternals.attribute(a.name, t, a.nullable, a.metadata, qualifier = a.qualifier)
      }
    }
    val replaced = scan.output.zip(newOutput).collect {
      case (old, nu) if prunedTypes.contains(old.exprId) => old.exprId -> nu
    }.toMap
    Some(PrunedScan(scan, scan.rebuild(newOutput), new PrunedAttributes(replaced)))
  }
}
