package pysparkext.variant.layout

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.types._

/**
 * Merging two files' layouts of one column. The spec writes an object's shredded fields as
 * required groups (Spark's writer and DuckDB's do), so one file's field is non-nullable while
 * another file may not hold the field at all: the merged read schema must let that file read it
 * as null.
 */
class PerFileTypesSuite extends AnyFunSuite {
  private def level(t: DataType) = StructType(Seq(
    StructField("value", BinaryType), StructField("typed_value", t)))
  private def obj(fields: (String, DataType)*) = StructType(Seq(
    StructField("metadata", BinaryType, nullable = false), StructField("value", BinaryType),
    StructField("typed_value", StructType(fields.map { case (n, t) => StructField(n, level(t), nullable = false) }))))

  private def field(t: DataType, path: String*): StructField = {
    val f = t.asInstanceOf[StructType](path.head)
    if (path.tail.isEmpty) f else field(f.dataType, path.tail: _*)
  }

  test("a required field one file lacks is nullable in the merged schema, whichever file comes first") {
    val withA = obj("a" -> LongType, "b" -> StringType)
    val withoutA = obj("b" -> StringType)
    Seq(PerFileTypes.merge(withA, withoutA), PerFileTypes.merge(withoutA, withA)).foreach { merged =>
      assert(field(merged.get, "typed_value", "a").nullable)
      assert(!field(merged.get, "typed_value", "b").nullable, "both files hold b as a required group")
      assert(!field(merged.get, "metadata").nullable)
    }
  }

  test("a field nullable in either file is nullable in the merged schema") {
    val required = obj("a" -> LongType)
    val optional = StructType(required.fields.map {
      case f if f.name == "typed_value" => f.copy(dataType = StructType(
        f.dataType.asInstanceOf[StructType].fields.map(_.copy(nullable = true))))
      case f => f
    })
    Seq(PerFileTypes.merge(required, optional), PerFileTypes.merge(optional, required)).foreach { merged =>
      assert(field(merged.get, "typed_value", "a").nullable)
    }
  }

  test("leaves of different types, or levels of different layouts, do not merge") {
    assert(PerFileTypes.merge(obj("a" -> LongType), obj("a" -> StringType)).isEmpty)
    val draft = StructType(Seq(StructField("untyped_value", BinaryType), StructField("typed_value", LongType)))
    assert(PerFileTypes.merge(level(LongType), draft).isEmpty)
  }
}
