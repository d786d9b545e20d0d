package pysparkext.testing

import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

import pysparkext.variant.layout.LayoutMarks

/** Shredded structs of the draft layout (docs/draft-layout.md), as analysis presents them. */
object DraftTypes {
  def level(typed: Option[DataType] = None, obj: Seq[(String, StructType)] = Nil): StructType =
    StructType(StructField("untyped_value", BinaryType) +:
      (typed.map(StructField("typed_value", _)).toSeq ++
        (if (obj.isEmpty) Nil
         else Seq(StructField("object", StructType(obj.map { case (n, t) => StructField(n, t) }))))))

  /** `{"id": <long>, "user": {"id": <long>, "name": <string>}}`, every key shredded. */
  val events: StructType = level(obj = Seq(
    "id" -> level(Some(LongType)),
    "user" -> level(obj = Seq("id" -> level(Some(LongType)), "name" -> level(Some(StringType))))))

  /** The relation column holding a shredded struct, marked as analysis marks it. */
  def column(name: String, t: StructType): AttributeReference =
    SparkInternals.attribute(name, t, nullable = true,
      metadata = LayoutMarks.mark(StructField(name, t)).metadata)
}
