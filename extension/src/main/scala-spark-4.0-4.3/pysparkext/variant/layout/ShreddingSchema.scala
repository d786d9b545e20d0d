package pysparkext.variant.layout

import scala.util.Try

import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.types._

import pysparkext.variant.codec.TypedValue

/**
 * A shredding schema says which paths to shred and as what, in Spark's DDL type syntax: a struct
 * shreds an object's fields (`a bigint, b struct<c: string>`), an array shreds elements
 * (`array<struct<a: bigint>>`), a primitive shreds a scalar, and `variant` keeps a subtree whole.
 * It maps to the draft layout's Spark type, which is what a writer stores.
 */
object ShreddingSchema {
  def parse(ddl: String): DataType = {
    val text = ddl.trim
    val parsed = Try(CatalystSqlParser.parseDataType(text))
      .orElse(Try(CatalystSqlParser.parseTableSchema(text)))
      .getOrElse(throw new IllegalArgumentException(
        s"Cannot parse shredding schema '$ddl': expected Spark DDL such as " +
          "'a bigint, b struct<c: string>' or 'array<struct<a: bigint>>'"))
    check(parsed, "$")
    parsed
  }

  /** Checks both layouts share: each struct names its fields once, and at least one. */
  private def check(t: DataType, at: String): Unit = t match {
    case s: StructType =>
      if (s.isEmpty) throw new IllegalArgumentException(
        s"the struct at $at names no field (use variant to keep a value whole)")
      s.fieldNames.groupBy(identity).collectFirst { case (n, ns) if ns.length > 1 => n }.foreach(n =>
        throw new IllegalArgumentException(s"field '$n' appears twice in the struct at $at"))
      s.fields.foreach(f => check(f.dataType, s"$at.${f.name}"))
    case ArrayType(e, _) => check(e, s"$at[*]")
    case VariantType => ()
    case p if TypedValue.isSupported(p) => ()
    case other => throw new IllegalArgumentException(
      s"Shredding schema type ${other.sql} at $at has no variant counterpart")
  }

  /** The draft-layout struct that stores values shredded by `t`. */
  def draftType(t: DataType): StructType = {
    val untyped = StructField(DraftLayout.Untyped, BinaryType)
    t match {
      case s: StructType => StructType(Seq(untyped, StructField(DraftLayout.Object,
        StructType(s.fields.map(f => StructField(f.name, draftType(f.dataType)))))))
      case ArrayType(e, _) =>
        StructType(Seq(untyped, StructField(DraftLayout.Array, ArrayType(draftType(e)))))
      case VariantType => StructType(Seq(untyped))
      case p => StructType(Seq(untyped, StructField(DraftLayout.Typed, p)))
    }
  }
}
