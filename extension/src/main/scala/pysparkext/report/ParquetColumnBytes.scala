package pysparkext.report

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.schema.{GroupType, MessageType, Type}

import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

import pysparkext.formats.DeltaScans

/**
 * Bytes of the Parquet column chunks a Spark read schema selects, from file footers. The walk
 * follows the Spark schema down the Parquet schema, so it sees through LIST and MAP wrappers in
 * both the standard three-level and the legacy two-level forms.
 */
object ParquetColumnBytes {
  /** (bytes of the columns `read` selects, bytes of the columns `full` selects), summed over files. */
  def measure(footers: Seq[ParquetMetadata], full: StructType, read: StructType): (Long, Long) = {
    footers.foldLeft((0L, 0L)) { case ((r, f), footer) =>
      val schema = footer.getFileMetaData.getSchema
      val sizes = footer.getBlocks.asScala.flatMap(_.getColumns.asScala)
        .groupBy(_.getPath.toDotString).map { case (path, chunks) => path -> chunks.map(_.getTotalSize).sum }
      def bytes(t: StructType): Long = selected(schema, t).iterator.map(p => sizes.getOrElse(p, 0L)).sum
      (r + bytes(read), f + bytes(full))
    }
  }

  /** The dotted paths of the column chunks `read` selects in a file of `footer`'s schema. */
  def columns(footer: ParquetMetadata, read: StructType): Set[String] =
    selected(footer.getFileMetaData.getSchema, read).toSet

  private def selected(message: MessageType, schema: StructType): Seq[String] =
    struct(message, schema, Nil)

  /**
   * A column's name in the files: its own, or, under Delta's column mapping (modes `name` and
   * `id` both write physical names), the physical name its metadata holds.
   */
  private def fileName(f: StructField): String =
    if (f.metadata.contains(DeltaScans.PhysicalNameKey)) f.metadata.getString(DeltaScans.PhysicalNameKey)
    else f.name

  private def struct(g: GroupType, s: StructType, path: List[String]): Seq[String] =
    s.fields.toSeq.flatMap { f =>
      val name = fileName(f)
      g.getFields.asScala.find(_.getName.equalsIgnoreCase(name)).toSeq
        .flatMap(t => column(t, f.dataType, t.getName :: path))
    }

  private def column(t: Type, dt: DataType, path: List[String]): Seq[String] = (t, dt) match {
    case (p, _) if p.isPrimitive => Seq(path.reverse.mkString("."))
    case (g: GroupType, s: StructType) if !SparkInternals.isVariantStruct(s) => struct(g, s, path)
    case (g: GroupType, ArrayType(e, _)) if g.getFieldCount == 1 =>
      val repeated = g.getType(0)
      val isWrapper = !repeated.isPrimitive && repeated.asGroupType.getFieldCount == 1 &&
        repeated.getName != "array" && repeated.getName != g.getName + "_tuple"
      if (isWrapper) {
        val element = repeated.asGroupType.getType(0)
        column(element, e, element.getName :: repeated.getName :: path)
      } else column(repeated, e, repeated.getName :: path)
    case (g: GroupType, MapType(k, v, _)) if g.getFieldCount == 1 && !g.getType(0).isPrimitive =>
      val kv = g.getType(0).asGroupType
      val p = kv.getName :: path
      column(kv.getType(0), k, kv.getType(0).getName :: p) ++
        (if (kv.getFieldCount > 1) column(kv.getType(1), v, kv.getType(1).getName :: p) else Nil)
    // A shape the walk does not know, or values Spark's variant push-down extracts from the
    // group's binaries: count the whole group.
    case (g: GroupType, _) =>
      g.getFields.asScala.toSeq.flatMap(c => column(c, NullType, c.getName :: path))
  }
}
