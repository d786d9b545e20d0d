package pysparkext.variant.write.columnar

import org.apache.parquet.column.{ColumnDescriptor, ColumnWriter, ColumnWriteStore}
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.{LogicalTypeAnnotation, MessageType}
import org.apache.parquet.schema.Type.Repetition

/**
 * A file's leaves as the column-by-column writers see them: each path's levels are the file
 * schema's own (`MessageType.getMaxDefinitionLevel` of the path when present, of its parent when
 * absent), and each leaf's column writer comes from the file's store. With [[ParquetLeaves.Dry]]
 * as the store, a writer can be built (and a schema it cannot fill found) before a file exists.
 */
private[write] final class ParquetLeaves(val message: MessageType, store: ColumnWriteStore) {
  def definition(path: Array[String]): Int = message.getMaxDefinitionLevel(path: _*)
  def repetition(path: Array[String]): Int = message.getMaxRepetitionLevel(path: _*)

  def writer(path: Array[String]): ColumnWriter = store.getColumnWriter(message.getColumnDescription(path))

  /** Every leaf's writer under `path`, to write the whole group null. */
  def under(path: Array[String]): Array[ColumnWriter] =
    message.getColumns.toArray(Array.empty[ColumnDescriptor])
      .filter(_.getPath.startsWith(path)).map(store.getColumnWriter)

  /** A three-level LIST group's element path and the `repeated` level's repetition level. */
  def listElement(path: Array[String]): (Array[String], Int) = {
    val group = message.getType(path: _*).asGroupType()
    val ok = group.getLogicalTypeAnnotation == LogicalTypeAnnotation.listType() &&
      group.getFieldCount == 1 && group.getType(0).isRepetition(Repetition.REPEATED) &&
      !group.getType(0).isPrimitive && group.getType(0).asGroupType().getFieldCount == 1
    if (!ok) throw new ShreddedLeafWriters.Unsupported(s"${path.mkString(".")} is not a three-level LIST")
    val list = path :+ group.getType(0).getName
    (list :+ group.getType(0).asGroupType().getType(0).getName, repetition(list))
  }
}

/** One leaf: its writer, its definition level when present, and its parent's (when absent). */
private[write] final class Leaf(val writer: ColumnWriter, val present: Int, val absent: Int) {
  def bytes(b: Array[Byte], r: Int): Unit =
    if (b != null) writer.write(Binary.fromConstantByteArray(b), r, present)
    else writer.writeNull(r, absent)
}

private[write] object ParquetLeaves {
  /** Every writer of `leaves` null, at repetition level `r` and definition level `d`. */
  def writeNulls(leaves: Array[ColumnWriter], r: Int, d: Int): Unit = {
    var i = 0
    while (i < leaves.length) { leaves(i).writeNull(r, d); i += 1 }
  }

  /** A column store without columns: to check a schema before a file exists. */
  object Dry extends ColumnWriteStore {
    override def getColumnWriter(path: ColumnDescriptor): ColumnWriter = null
    override def flush(): Unit = ()
    override def endRecord(): Unit = ()
    override def getAllocatedSize: Long = 0
    override def getBufferedSize: Long = 0
    override def memUsageString(): String = ""
    override def close(): Unit = ()
  }
}
