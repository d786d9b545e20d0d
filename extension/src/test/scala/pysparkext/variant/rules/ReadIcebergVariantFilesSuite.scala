package pysparkext.variant.rules

import org.apache.iceberg.spark.source.{SparkChangelogTable, SparkRewriteTable, SparkTable}

import org.apache.spark.sql.catalyst.plans.logical.Project
import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import pysparkext.ExtConf
import pysparkext.formats.ReaderReasons
import pysparkext.testing.SparkRuleSuite

/**
 * Which Iceberg relations [[ReadIcebergVariantFiles]] plans, and what it leaves to Iceberg, on
 * in-memory relations over the stand-ins of Iceberg's classes (`org.apache.iceberg.spark.source`
 * in the test sources). Reading a table's files by their shredded leaves needs Iceberg's planned
 * tasks, which only a real table has: that rewrite runs in pytest (`tests/tables/iceberg`). Here:
 * the relations it never plans, the reason it records for `explain_read_schema` when it leaves
 * one to Iceberg, and the tag that keeps it from planning a relation again under the same switch.
 */
class ReadIcebergVariantFilesSuite extends SparkRuleSuite {
  private lazy val rule = new ReadIcebergVariantFiles(spark)
  private val withVariant = StructType(Seq(StructField("id", LongType), StructField("v", VariantType)))
  private val withoutVariant = StructType(Seq(StructField("id", LongType),
    StructField("s", StructType(Seq(StructField("a", StringType))))))

  private def relation(table: Table): DataSourceV2Relation =
    DataSourceV2Relation.create(table, None, None, CaseInsensitiveStringMap.empty())

  private def tag(r: DataSourceV2Relation): Option[Boolean] = r.getTagValue(ReadIcebergVariantFiles.Left)

  /** Applies the rule to a projection over `r`, which it must leave as it is. */
  private def leftAlone(r: DataSourceV2Relation): Unit = assertUnchanged(rule, Project(r.output, r))

  test("a relation without a VARIANT column is left alone without planning its files, and tagged") {
    val r = relation(new SparkTable(withoutVariant))
    leftAlone(r)
    assert(ReaderReasons.of(r.table).isEmpty, "no reason: nothing was planned")
    assert(tag(r).contains(true))
  }

  test("a relation Iceberg's files cannot be taken from is left to Iceberg, with the reason, and tagged") {
    val cases = Seq(
      new SparkChangelogTable(withVariant) ->
        "it is read through org.apache.iceberg.spark.source.SparkChangelogTable, not Iceberg's plain table",
      new SparkTable(withVariant, Some("1")) -> "its format version is 1, not 2 or 3",
      // The stand-in has no Iceberg table behind it to plan files from.
      new SparkTable(withVariant, Some("2")) -> "its files could not be planned or inspected")
    for ((table, reason) <- cases) {
      val r = relation(table)
      leftAlone(r)
      val recorded = ReaderReasons.of(table)
      assert(recorded.exists(_.contains("Iceberg's reader reads the variant columns")), s"$recorded")
      assert(recorded.exists(_.contains(reason)), s"$recorded should name: $reason")
      assert(tag(r).contains(true), table.name())
    }
  }

  test("a tagged relation is not planned again under the same switch, and is once the switch changes") {
    val table = new SparkTable(withVariant, Some("1"))
    val r = relation(table)
    r.setTagValue(ReadIcebergVariantFiles.Left, true)
    leftAlone(r)
    assert(ReaderReasons.of(table).isEmpty, "planned again")
    withConf(ExtConf.IcebergVariantReads.key -> "false") {
      leftAlone(r)
      assert(ReaderReasons.of(table).exists(_.contains(s"${ExtConf.IcebergVariantReads.key} is false")))
      assert(tag(r).contains(false))
    }
  }

  test("the staged read of files the extension left to Iceberg is never planned") {
    val r = relation(new SparkRewriteTable(withVariant))
    leftAlone(r)
    assert(tag(r).isEmpty && ReaderReasons.of(r.table).isEmpty)
  }

  test("the variant switch turns the rule off") {
    withConf(ExtConf.ShreddedVariant.key -> "false") {
      val r = relation(new SparkTable(withVariant, Some("1")))
      leftAlone(r)
      assert(tag(r).isEmpty && ReaderReasons.of(r.table).isEmpty)
    }
  }
}
