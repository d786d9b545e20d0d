package pysparkext.variant.format

import scala.jdk.CollectionConverters._

import org.apache.parquet.schema.{GroupType, LogicalTypeAnnotation, MessageType, PrimitiveType, Type}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter
import org.apache.spark.sql.types.{ArrayType, DataType, StructType}

import pysparkext.variant.codec.{RawTypedValue, UuidTypedValue}
import pysparkext.variant.layout.{DraftLayout, SpecLayout}

/**
 * Converts a file's Parquet schema to Spark's, with every `typed_value` leaf of a type Spark
 * cannot read ([[RawTypedValue]]) given its raw type. Spark's converter would reject the file, so
 * it converts a copy in which those leaves are plain INT64 or BINARY, and the raw types are then
 * put back at the same places. A leaf that cannot be placed (it sits where this walk does not go,
 * say in a map) fails the conversion: read as a plain number, it would be a wrong value. So does
 * a UUID inside an array: Spark's row-based reader converts an array's element type with the
 * same converter, which rejects it (nanosecond timestamps there are read as longs, see
 * [[VariantGroupsAsStructsParquetFormat]]).
 */
object RawTypedLeaves {
  def convert(message: MessageType, converter: ParquetToSparkSchemaConverter): StructType = {
    val raw = count(message)
    if (raw == 0) return converter.convert(message)
    val plain = new MessageType(message.getName, message.getFields.asScala.map(strip).asJava)
    var placed = 0
    def place(p: Type, s: DataType, inArray: Boolean): DataType = (p, s) match {
      case (leaf: PrimitiveType, _) => rawType(leaf) match {
        case Some(_: UuidTypedValue) if inArray => throw new UnsupportedOperationException(
          s"a UUID typed_value inside an array (`${leaf.getName}`), which Spark 4.3's Parquet " +
            "reader cannot read")
        case Some(t) => placed += 1; t
        case None => s
      }
      case (g: GroupType, a: ArrayType) if isList(g) =>
        a.copy(elementType = place(element(g), a.elementType, inArray = true))
      case (g: GroupType, st: StructType) =>
        StructType(st.fields.map(f => if (!g.containsField(f.name)) f
          else f.copy(dataType = place(g.getType(f.name), f.dataType, inArray))))
      case _ => s
    }
    val schema = place(message, converter.convert(plain), inArray = false).asInstanceOf[StructType]
    if (placed != raw) {
      throw new UnsupportedOperationException(s"$raw typed_value leaves of types Spark cannot read, " +
        s"$placed of them in places this reader understands")
    }
    schema
  }

  private def rawType(p: PrimitiveType): Option[RawTypedValue] =
    if (p.getName == DraftLayout.Typed) RawTypedValue.of(p) else None

  private def count(t: Type): Int = t match {
    case p: PrimitiveType => if (rawType(p).isDefined) 1 else 0
    case g: GroupType => g.getFields.asScala.map(count).sum
  }

  private def strip(t: Type): Type = t match {
    case p: PrimitiveType if rawType(p).isDefined =>
      val physical = if (p.getPrimitiveTypeName == PrimitiveTypeName.INT64) PrimitiveTypeName.INT64
        else PrimitiveTypeName.BINARY
      new PrimitiveType(p.getRepetition, physical, p.getName)
    case p: PrimitiveType => p
    case g: GroupType => g.withNewFields(g.getFields.asScala.map(strip).asJava)
  }

  private def isList(g: GroupType): Boolean =
    g.getLogicalTypeAnnotation == LogicalTypeAnnotation.listType() && g.getFieldCount == 1

  /** A LIST's element: the repeated group's one field (three levels), or the group itself. */
  private def element(list: GroupType): Type = list.getType(0) match {
    case r: GroupType if r.getFieldCount == 1 && !isLevelField(r.getType(0).getName) => r.getType(0)
    case r => r
  }

  private def isLevelField(name: String): Boolean =
    name == DraftLayout.Typed || name == SpecLayout.Value || name == DraftLayout.Untyped
}
