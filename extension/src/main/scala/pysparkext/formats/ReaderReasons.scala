package pysparkext.formats

import java.lang.ref.WeakReference

/**
 * Why a table format's own reader, not the extension, reads a relation's variant columns, kept per
 * table object for `explain_read_schema` to report on the scan that reads it.
 *
 * Keyed by identity: the scan Spark plans for a relation carries the relation's own table object,
 * whereas two table objects of one Iceberg table are `equals` by name even when they read
 * different snapshots (and so for different reasons). Weakly held, so a table no plan refers to
 * any more is forgotten.
 */
object ReaderReasons {
  private val byHash = new java.util.HashMap[Int, List[(WeakReference[AnyRef], String)]]()

  /** Records `reason` (a sentence naming the table) for scans of `table`. */
  def note(table: AnyRef, reason: String): Unit = synchronized {
    val key = System.identityHashCode(table)
    val others = Option(byHash.get(key)).getOrElse(Nil).filter { case (ref, _) =>
      val t = ref.get
      t != null && (t ne table)
    }
    byHash.put(key, (new WeakReference[AnyRef](table), reason) :: others)
    val dead = byHash.entrySet().iterator()
    while (dead.hasNext) if (dead.next().getValue.forall(_._1.get == null)) dead.remove()
  }

  /** The reason recorded for `table`, if any. */
  def of(table: AnyRef): Option[String] = synchronized {
    Option(byHash.get(System.identityHashCode(table))).getOrElse(Nil).collectFirst {
      case (ref, reason) if ref.get eq table => reason
    }
  }
}
