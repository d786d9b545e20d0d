package pysparkext.variant.layout

import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType, VariantType}

/**
 * The VARIANT values a table holds inside a struct, an array or a map, named as a user reads
 * them: `s.w` for a struct field, `tags[*]` for the elements of an array or the values of a map,
 * `items[*].w` below those.
 *
 * Shredded reads take over top-level VARIANT columns and VARIANT fields reached through structs
 * alone (`s.w`, `s.t.w`: [[inStructs]]), whose values sit once per row as a top-level column's
 * do. A VARIANT inside an array or a map ([[leftToSpark]]) stays VARIANT in the scan and is
 * read by Spark's reader. That is safe beside columns read as their physical groups
 * (a scan that sets `spark.sql.parquet.ignoreVariantAnnotation`): Spark's Parquet schema
 * conversion reads a group requested as VARIANT, or as the struct of path reads Spark's
 * `PushVariantIntoScan` asks for, from the file's physical group whatever that setting says, so
 * such a value reads as in a stock scan. Each one is therefore left to Spark per column (with a
 * warning), never by turning off the shredded reads of the table's other columns.
 */
object NestedVariants {
  /** The VARIANTs nested in the columns of `schema` (top-level VARIANT columns excluded). */
  def paths(schema: StructType): Seq[String] =
    schema.fields.toSeq.flatMap(f => below(f.name, f.dataType))

  /** The nested VARIANTs that stay with Spark's reader: those inside an array or a map. */
  def leftToSpark(schema: StructType): Seq[String] = {
    val taken = inStructs(schema).map(_.mkString(".")).toSet
    paths(schema).filterNot(taken.contains)
  }

  /**
   * The VARIANT fields reached from a column through struct fields only, as field names from the
   * column down (`Seq("s", "t", "w")`); top-level VARIANT columns excluded.
   */
  def inStructs(schema: StructType): Seq[Seq[String]] = {
    def within(at: Seq[String], s: StructType): Seq[Seq[String]] = s.fields.toSeq.flatMap { f =>
      f.dataType match {
        case VariantType => Seq(at :+ f.name)
        case t: StructType => within(at :+ f.name, t)
        case _ => Nil
      }
    }
    within(Nil, schema).filter(_.length > 1)
  }

  private def below(at: String, t: DataType): Seq[String] = t match {
    case s: StructType => s.fields.toSeq.flatMap(f => found(s"$at.${f.name}", f.dataType))
    case a: ArrayType => found(s"$at[*]", a.elementType)
    case m: MapType => found(s"map_keys($at)[*]", m.keyType) ++ found(s"$at[*]", m.valueType)
    case _ => Nil
  }

  private def found(path: String, t: DataType): Seq[String] =
    if (t == VariantType) Seq(path) else below(path, t)
}
