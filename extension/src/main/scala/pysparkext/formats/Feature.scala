package pysparkext.formats

import pysparkext.{ConfEntry, ExtConf}

/**
 * A feature of the extension whose safety depends on how a table's files are read: which format
 * reads them, and what that format adds to a plain Parquet read (deletes, column mapping, a native
 * reader). [[TableFormats]] answers, per feature and scan, whether it may apply.
 *
 * `setting` is the feature's own switch, if it has one; `physical` features rewrite the physical
 * scan (its file format or the node above it), the others the logical plan or the report.
 */
sealed abstract class Feature(val name: String, val setting: Option[ConfEntry[Boolean]], val physical: Boolean)

object Feature {
  case object NestedPruning extends Feature("whole-plan nested pruning", Some(ExtConf.NestedSchemaPruning), false)
  case object VariantPathReads extends Feature("shredded VARIANT path reads and skip predicates",
    Some(ExtConf.ShreddedVariant), false)
  case object LeavesAsColumns extends Feature("nested leaves as columns", Some(ExtConf.NestedLeavesAsColumns), true)
  case object LeafReader extends Feature("leaf-columns reader", Some(ExtConf.LeafColumnsReader), true)
  case object NarrowReadPacking extends Feature("narrow-read packing", Some(ExtConf.PackNarrowReads), true)
  case object RowGroupMetrics extends Feature("row-group metrics", Some(ExtConf.RowGroupMetrics), true)
  case object ReportBytes extends Feature("`explain_read_schema`: bytes from footers", None, false)
  case object ReportRowGroups extends Feature("`explain_read_schema`: row groups counted", None, false)

  /** In the order the docs table lists them. */
  val all: Seq[Feature] = Seq(NestedPruning, VariantPathReads, LeavesAsColumns, LeafReader,
    NarrowReadPacking, RowGroupMetrics, ReportBytes, ReportRowGroups)
}

/**
 * Whether a feature may apply to one scan. A rule asks [[TableFormats]] and applies only on
 * [[Applies]]: what a rule cannot show to be safe for a format, it leaves to that format's reader.
 */
sealed trait Decision {
  def applies: Boolean
}

/**
 * The feature may apply. `keepsFormat`: the scan must keep its file format and file index (a table
 * format's, which carries deletes and column mapping), so the feature may change only the data
 * schema asked for and the scan's Hadoop options: no other format, no split by files.
 */
final case class Applies(keepsFormat: Boolean = false) extends Decision {
  def applies: Boolean = true
}

/** The feature does not apply, for `reason`, said in the user's terms (table, format, setting). */
final case class NotApplied(reason: String) extends Decision {
  def applies: Boolean = false
}

/** What a feature does on a format, as the docs table says it: its status and the detail. */
sealed abstract class Support(val status: String) {
  def detail: String
}

object Support {
  final case class Yes(detail: String = "") extends Support("yes")
  final case class Partly(detail: String) extends Support("partly")
  final case class No(detail: String) extends Support("no")
}

/**
 * One way a table's files are read. `support` is the static answer per feature, listed in
 * `docs/table-formats.md`; the runtime decisions ([[TableFormats]]) give a `No` feature's detail as
 * their reason, so the docs and the warnings say the same thing.
 */
trait TableFormat {
  def name: String
  def support(feature: Feature): Support

  /** The runtime answer for a feature this format never takes. */
  protected def no(feature: Feature): NotApplied = support(feature) match {
    case Support.No(reason) => NotApplied(reason)
    case s => throw new IllegalStateException(s"$name: ${feature.name} is ${s.status}, not no")
  }
}
