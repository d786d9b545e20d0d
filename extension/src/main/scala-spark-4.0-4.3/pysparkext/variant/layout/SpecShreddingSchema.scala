package pysparkext.variant.layout

import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

/**
 * The spec-layout writer's shredding schemas. A column to shred carries its schema in its field
 * metadata ([[MetadataKey]], the schema's JSON): `shred_variant(v, 'schema', 'spec')` puts it
 * there ([[ResolveSpecLayoutWrites]]), and a Parquet write of a column so marked writes the
 * Parquet spec layout (`metadata` / `value` / `typed_value`) with exactly that schema
 * ([[SpecShreddingParquetFormat]]). The mark is per column, so every VARIANT column, top-level or
 * in a struct, may have a schema of its own.
 */
object SpecShreddingSchema {
  val MetadataKey = "pyspark_ext.variantShreddingSchema"

  /**
   * A top-level VARIANT column to write in the draft layout, column by column: the draft
   * writer's schema DDL. Only [[ResolveSpecLayoutWrites]] puts it there, on the column of a
   * Parquet write that `shred_variant(v, 'schema')` made (see [[ColumnarSpecWriteSupport]]); the
   * file, its footer and every reader see the draft struct, as if the expression had run.
   */
  val DraftKey = "pyspark_ext.draftShreddingSchema"

  def draftMetadata(ddl: String): Metadata = new MetadataBuilder().putString(DraftKey, ddl).build()

  /** The top-level columns marked for the draft layout: name and schema DDL. */
  def draftColumns(schema: StructType): Seq[(String, String)] =
    schema.fields.toSeq.collect { case f if f.metadata.contains(DraftKey) => f.name -> f.metadata.getString(DraftKey) }

  private def draftStruct(f: StructField): StructField =
    // As `shred_variant(v, 'schema')` is nullable, whatever `v` is.
    f.copy(dataType = ShreddingSchema.draftType(ShreddingSchema.parse(f.metadata.getString(DraftKey))),
      nullable = true, metadata = new MetadataBuilder().withMetadata(f.metadata).remove(DraftKey).build())

  /**
   * Parses a shredding schema (the DDL of [[ShreddingSchema]]: `a bigint, b struct<c: string>`,
   * `struct<...>`, `array<...>`, a primitive, or `variant`) for `column`, checking that Parquet's
   * spec layout can hold it. Errors name the column and the path inside the schema.
   */
  def parse(column: String, ddl: String): DataType = {
    def fail(what: String) = throw new IllegalArgumentException(
      s"Cannot shred column $column in the Parquet spec layout: $what")
    val t = try ShreddingSchema.parse(ddl) catch {
      case e: IllegalArgumentException => fail(e.getMessage)
    }
    def check(t: DataType, at: String): Unit = t match {
      case s: StructType => s.fields.foreach(f => check(f.dataType, s"$at.${f.name}"))
      case ArrayType(e, _) => check(e, s"$at[*]")
      case VariantType | BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType |
           DoubleType | _: DecimalType | DateType | TimestampType | TimestampNTZType | BinaryType |
           _: StringType => ()
      case other => fail(s"type ${other.sql} at $at has no variant counterpart")
    }
    check(t, "$")
    t
  }

  def metadata(schema: DataType): Metadata =
    new MetadataBuilder().putString(MetadataKey, schema.json).build()

  private def schemaOf(f: StructField): Option[DataType] =
    if (f.metadata.contains(MetadataKey)) Some(DataType.fromJson(f.metadata.getString(MetadataKey)))
    else None

  /** True when a field of `schema` (at any depth of structs, arrays and maps) carries a schema. */
  def hasSchemas(schema: StructType): Boolean = schema.fields.exists { f =>
    f.metadata.contains(MetadataKey) || f.metadata.contains(DraftKey) || inside(f.dataType)
  }

  private def inside(t: DataType): Boolean = t match {
    case s: StructType => hasSchemas(s)
    case ArrayType(e, _) => inside(e)
    case MapType(k, v, _) => inside(k) || inside(v)
    case _ => false
  }

  /** `f`'s metadata without its mark. */
  private def unmarked(f: StructField): Metadata =
    if (f.metadata.contains(MetadataKey)) {
      new MetadataBuilder().withMetadata(f.metadata).remove(MetadataKey).build()
    } else f.metadata

  /** `schema` without the marks: the row schema Spark records in the footer. */
  def strip(schema: StructType): StructType = StructType(schema.fields.map { f =>
    if (f.metadata.contains(DraftKey)) draftStruct(f)
    else f.copy(dataType = stripType(f.dataType), metadata = unmarked(f))
  })

  private def stripType(t: DataType): DataType = t match {
    case s: StructType => strip(s)
    case ArrayType(e, n) => ArrayType(stripType(e), n)
    case MapType(k, v, n) => MapType(stripType(k), stripType(v), n)
    case other => other
  }

  /**
   * The schema Spark's Parquet write support writes (`ParquetWriteSupport`'s shredding schema):
   * every marked VARIANT field replaced by Spark's shredded struct for its schema, annotated so
   * that the write support shreds the variant values into it; every other field as it is (a
   * VARIANT not marked is written unshredded). A mark on anything but a VARIANT, or on a field
   * inside an array or a map, is an error naming the column.
   */
  def writeSchema(schema: StructType, prefix: String = ""): StructType = StructType(schema.fields.map { f =>
    val name = s"$prefix${f.name}"
    val md = unmarked(f)
    if (f.metadata.contains(DraftKey)) draftStruct(f) else schemaOf(f) match {
      case Some(shredding) =>
        if (f.dataType != VariantType) throw new IllegalArgumentException(
          s"Cannot shred column `$name` in the Parquet spec layout: it is ${f.dataType.sql}, not VARIANT")
        val struct = SparkInternals.variantShreddingWriteStruct(shredding)
        f.copy(dataType = struct, metadata = md)
      case None => f.dataType match {
        case s: StructType => f.copy(dataType = writeSchema(s, s"$name."), metadata = md)
        case t if inside(t) => throw new IllegalArgumentException(
          s"Cannot shred a VARIANT inside the array or map `$name` in the Parquet spec layout: " +
            "only top-level columns and fields of structs can carry a shredding schema")
        case _ => f
      }
    }
  })
}
