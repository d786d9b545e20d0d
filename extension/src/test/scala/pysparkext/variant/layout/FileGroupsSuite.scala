package pysparkext.variant.layout

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.types.StructType

import pysparkext.variant.layout.FileGroups.{Shredded, Stored}

/**
 * The files of one table as the fuzzer's spec-layout table holds them (`devtools.data`):
 * one column shredded by a different schema in each file, two of them conflicting with a third,
 * one shredded by the schema Spark infers for values that change type (levels without a
 * `typed_value`), one unshredded. The file system lists them in an order of its own.
 */
class FileGroupsSuite extends AnyFunSuite {
  private def spec(typed: String): Seq[Stored] = {
    val typedValue = if (typed.isEmpty) "" else s", typed_value: struct<$typed>"
    val group = s"struct<metadata: binary, value: binary$typedValue>"
    Seq(Shredded(CatalystSqlParser.parseDataType(group).asInstanceOf[StructType]))
  }
  private def level(t: String) = s"struct<value: binary, typed_value: $t>"
  private val residual = "struct<value: binary>"

  private val files: Seq[(String, Seq[Stored])] = Seq(
    "numeric id" -> spec(s"id: ${level("bigint")}, kind: ${level("string")}, " +
      s"tags: ${level(s"array<${level("string")}>")}"),
    "string id" -> spec(s"id: ${level("string")}, when: ${level("date")}"),
    "numeric tags" -> spec(s"tags: ${level(s"array<${level("bigint")}>")}, big: ${level("int")}"),
    "inferred" -> spec(s"big: $residual, id: $residual, kind: $residual, tags: ${level(s"array<$residual>")}"),
    "unshredded" -> spec(""))

  /** The groups as sets of file names, each with its merged layouts. */
  private def grouped(files: Seq[(String, Seq[Stored])]): Set[(Set[String], Seq[Stored])] =
    FileGroups.group(files).map { case (merged, names) => names.toSet -> merged }.toSet

  test("the groups and their read schemas depend on the files' layouts, not on their listing order") {
    val first = grouped(files)
    files.permutations.foreach { order =>
      assert(grouped(order) == first, s"listed as ${order.map(_._1).mkString(", ")}")
    }
  }

  test("a file that shreds more and conflicts keeps a scan apart from the files that shred less") {
    // listed first, the numeric-id file would take in the inferred and unshredded files, whose
    // ids lie in residuals, and no row group of it could be skipped by its typed id
    assert(grouped(files).map(_._1) == Set(Set("numeric id"),
      Set("string id", "numeric tags", "inferred", "unshredded")))
  }
}
