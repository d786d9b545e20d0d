package pysparkext.variant.write.columnar

import org.apache.parquet.column.{ColumnWriter, ColumnWriteStore}
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import org.apache.spark.types.variant.{VariantBuilder, VariantSchema, VariantUtil}

import pysparkext.variant.write.codec.{FieldsById, ObjectHeader, SpecShredder}
import pysparkext.variant.write.columnar.ParquetLeaves.writeNulls

/**
 * Writes one spec-layout shredded VARIANT column straight into Parquet's column writers, shredding
 * each value as it goes by the rules of Spark's `VariantShreddingWriter.castShredded` with Spark's
 * writer's numeric rule ([[SpecShredder.typed]]): a field or element goes to `typed_value` exactly
 * when Spark's shredder puts it there, and a residual object holds the fields Spark's would, with
 * the bytes of Spark's `VariantBuilder`. The tests compare its files with those of Spark's row-by-row
 * shredding writer, leaf by leaf.
 *
 * Spark's path builds an `InternalRow` per level and hands it, field by field, to Parquet's
 * `RecordConsumer`, which tracks the fields written at every level to fill in nulls. Here each
 * leaf's levels follow from the file's schema once, when the writer is built ([[ParquetLeaves]]): a
 * part that is absent writes null at its parent's level. Object fields are found by dictionary id,
 * with one key lookup per distinct metadata ([[FieldsById]]); strings go to Parquet as their UTF-8
 * bytes and residual values as slices of the row's bytes, without copies in between. A schema this
 * writer cannot fill throws [[ShreddedLeafWriters.Unsupported]] when built (with
 * [[ParquetLeaves.Dry]] as the store, to check).
 */
final class SpecColumnWriter(message: MessageType, column: String, schema: VariantSchema,
                             store: ColumnWriteStore) extends VariantColumnWriter(message, column, store) {
  import file.{definition, under => leavesUnder, writer}

  private val top = new Level(Array(column), schema)
  private val metadataLeaf = child(Array(column), schema.topLevelMetadataIdx, "metadata")
    .map(p => new Leaf(writer(p), definition(p), topDefinition))
    .getOrElse(throw new ShreddedLeafWriters.Unsupported(s"$column has no metadata field"))

  protected def writeValue(): Unit = {
    metadataLeaf.bytes(metadata, 0)
    top.write(0, 0)
  }

  protected def nulls(r: Int, d: Int): Unit = top.nulls(r, d)

  private def child(path: Array[String], at: Int, expected: String): Option[Array[String]] =
    if (at < 0) None
    else {
      val name = message.getType(path: _*).asGroupType().getType(at).getName
      if (name != expected) throw new ShreddedLeafWriters.Unsupported(
        s"field $at of ${path.mkString(".")} is '$name', not '$expected'")
      Some(path :+ name)
    }

  /** The bytes of the value at `pos`, as a slice of the row's (Parquet copies what it keeps). */
  private def slice(pos: Int): Binary = Binary.fromReusedByteArray(value, pos, VariantUtil.valueSize(value, pos))

  /** One level (`value`, `typed_value`) of the schema, at `path`. */
  private final class Level(path: Array[String], schema: VariantSchema) {
    private val present = definition(path)
    private val valueLeaf: ColumnWriter = child(path, schema.variantIdx, "value").map(writer).orNull
    private val valuePresent = if (valueLeaf == null) 0 else definition(path :+ "value")
    private val typedPath = child(path, schema.typedIdx, "typed_value")
    private val typedLeaves: Array[ColumnWriter] = typedPath.map(leavesUnder).getOrElse(Array.empty)
    private val leaves = leavesUnder(path)
    private val typed: Typed = typedPath match {
      case None => null
      case Some(p) if schema.objectSchema != null => new ObjectTyped(p, schema)
      case Some(p) if schema.arraySchema != null => new ArrayTyped(p, schema.arraySchema)
      case Some(p) => new ScalarTyped(p, schema.scalarSchema)
    }

    def write(pos: Int, r: Int): Unit =
      if (typed == null || !typed.write(pos, r)) {
        if (valueLeaf != null) valueLeaf.write(slice(pos), r, valuePresent)
        typedNulls(r)
      }

    /** The typed part absent. */
    def typedNulls(r: Int): Unit = {
      writeNulls(typedLeaves, r, present)
    }

    /** The residual: `bytes`, or null (absent) when null. */
    def residual(bytes: Array[Byte], r: Int): Unit =
      if (valueLeaf != null) {
        if (bytes == null) valueLeaf.writeNull(r, present)
        else valueLeaf.write(Binary.fromConstantByteArray(bytes), r, valuePresent)
      }

    /** Every leaf below: null at definition level `d`. A field the object lacks is null at `present`. */
    def nulls(r: Int, d: Int): Unit = {
      writeNulls(leaves, r, d)
    }

    def missing(r: Int): Unit = nulls(r, present)

    /** A typed part: `write` is false where the value does not fit it (it goes to `value`). */
    private abstract class Typed {
      def write(pos: Int, r: Int): Boolean
    }

    private final class ScalarTyped(p: Array[String], t: VariantSchema.ScalarType) extends Typed {
      private val leaf = writer(p)
      private val d = definition(p)
      private val primitive = message.getType(p: _*).asPrimitiveType()
      private val put = ShreddedLeafWriters.put(primitive, t, p.mkString("."))
      // The common cases are written without boxing, by the same rules as SpecShredder.typed.
      private val direct = (t, primitive.getPrimitiveTypeName) match {
        case (i: VariantSchema.IntegralType, PrimitiveTypeName.INT64)
          if i.size == VariantSchema.IntegralSize.LONG => 1
        case (i: VariantSchema.IntegralType, PrimitiveTypeName.INT32)
          if i.size == VariantSchema.IntegralSize.INT => 2
        case (_: VariantSchema.StringType, PrimitiveTypeName.BINARY) => 3
        case _ => 0
      }

      def write(pos: Int, r: Int): Boolean = {
        val vt = VariantUtil.getType(value, pos)
        direct match {
          case 1 if vt == VariantUtil.Type.LONG => leaf.write(VariantUtil.getLong(value, pos), r, d)
          case 2 if vt == VariantUtil.Type.LONG =>
            val x = VariantUtil.getLong(value, pos)
            if (x != x.toInt) return false
            leaf.write(x.toInt, r, d)
          case 3 if vt == VariantUtil.Type.STRING => leaf.write(SpecShredder.utf8(value, pos), r, d)
          case _ =>
            val x = SpecShredder.typed(value, pos, vt, t)
            if (x == null) return false
            put(leaf, x, r, d)
        }
        if (valueLeaf != null) valueLeaf.writeNull(r, present)
        true
      }
    }

    private final class ArrayTyped(p: Array[String], element: VariantSchema) extends Typed {
      private val empty = definition(p)
      private val (elementLevel, elementRepetition) = {
        val (elementPath, repetition) = file.listElement(p)
        (new Level(elementPath, element), repetition)
      }
      private val writeElement: (Int, Int) => Unit = (at, r) => elementLevel.write(at, r)

      def write(pos: Int, r: Int): Boolean = VariantUtil.getType(value, pos) == VariantUtil.Type.ARRAY && {
        if (valueLeaf != null) valueLeaf.writeNull(r, present)
        foreachElement(pos, r, elementRepetition, typedLeaves, empty, writeElement)
        true
      }
    }

    private final class ObjectTyped(p: Array[String], schema: VariantSchema) extends Typed {
      private val fields = schema.objectSchema.map(f => new Level(p :+ f.fieldName, f.schema))
      private val ids = new FieldsById(schema.objectSchema.map(_.fieldName))
      import ids.outside

      def write(pos: Int, r: Int): Boolean = VariantUtil.getType(value, pos) == VariantUtil.Type.OBJECT && {
        ids.foreachField(value, pos, metadata, generation)((field, at) => fields(field).write(at, r),
          field => fields(field).missing(r))
        residual(if (outside.count == 0) null else rest(), r)
        true
      }

      /**
       * The object of the fields outside the schema, as Spark's shredder builds it: each value as
       * it is (its nested objects keep their ids in the row's metadata), under the row's ids.
       * Built by hand where the keys are in Spark's order; otherwise by `VariantBuilder`, which
       * sorts them, or reports a key twice.
       */
      private def rest(): Array[Byte] = {
        val n = outside.count
        val offsets = new Array[Int](n)
        var ordered = true
        var maxId = 0
        var dataSize = 0L
        var i = 0
        while (i < n) {
          if (i > 0 && ids.key(outside.ids(i - 1)).compareTo(ids.key(outside.ids(i))) >= 0) ordered = false
          maxId = math.max(maxId, outside.ids(i))
          val size = VariantUtil.valueSize(value, outside.at(i))
          if (outside.at(i) + size > value.length) ordered = false // malformed: Spark's builder reports it
          offsets(i) = dataSize.toInt
          dataSize += size
          i += 1
        }
        if (!ordered || dataSize > VariantUtil.SIZE_LIMIT) return viaBuilder()
        val header = ObjectHeader.size(n, maxId, dataSize.toInt)
        val out = new Array[Byte](header + dataSize.toInt)
        i = 0
        while (i < n) {
          val end = if (i + 1 < n) offsets(i + 1) else dataSize.toInt
          System.arraycopy(value, outside.at(i), out, header + offsets(i), end - offsets(i))
          i += 1
        }
        ObjectHeader.write(out, 0, outside.ids, offsets, n, maxId, dataSize.toInt)
        out
      }

      private def viaBuilder(): Array[Byte] = objectByBuilder(outside) { (b, i) =>
        val entry = new VariantBuilder.FieldEntry(ids.key(outside.ids(i)), outside.ids(i), b.getWritePos)
        b.shallowAppendVariant(variantAt(outside.at(i)))
        entry
      }.valueWithoutMetadata()
    }
  }
}
