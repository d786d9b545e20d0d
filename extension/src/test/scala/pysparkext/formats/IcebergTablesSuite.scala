package pysparkext.formats

import org.apache.iceberg.spark.source.{SparkChangelogTable, SparkRewriteTable, SparkScanBuilder,
  SparkStagedScanBuilder, SparkTable}

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.plans.logical.Project
import org.apache.spark.sql.connector.catalog.{Table, TableCapability}
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import pysparkext.ExtConf
import pysparkext.pruning.WholePlanSchemaPruning
import pysparkext.testing.RuleSuite

/**
 * Which Iceberg tables [[IcebergTables]] lets the whole-plan pruning read with pruned nested types:
 * Iceberg's plain `SparkTable` of format version 1 to 3 read through `SparkScanBuilder`, and no
 * other, each other kind left to Iceberg with one warning. Iceberg is not on the suites' classpath
 * and the extension matches it by class name, so the relations here are built over stand-ins under
 * Iceberg's class names (`org.apache.iceberg.spark.source` in the test sources); the real tables
 * run in pytest (`tests/tables/iceberg`).
 */
class IcebergTablesSuite extends RuleSuite {
  private val schema = StructType(Seq(
    StructField("id", LongType),
    StructField("u", StructType(Seq(
      StructField("name", StringType),
      StructField("geo", StructType(Seq(StructField("city", StringType), StructField("lat", DoubleType)))))))))

  private def relation(table: Table): DataSourceV2Relation =
    DataSourceV2Relation.create(table, None, None, CaseInsensitiveStringMap.empty())

  private def iceberg(version: Option[String] = Some("2"), builder: () => ScanBuilder = () => new SparkScanBuilder) =
    relation(new SparkTable(schema, version, builder))

  /**
   * Asserts none of `relations` is prunable and, together, they issued one warning naming `reason`.
   * Warnings are once per kind per JVM, so each kind is used by one test only.
   */
  private def leftToIceberg(reason: String)(relations: DataSourceV2Relation*): Unit = {
    val before = IcebergTables.warnings.size
    relations.foreach(r => assert(!IcebergTables.prunable(r), s"${r.table.name()} should be left to Iceberg"))
    val issued = IcebergTables.warnings.drop(before)
    assert(issued.size == 1, s"one warning per kind, got: $issued")
    assert(issued.head.contains(reason), s"the warning names the reason ($reason)")
  }

  test("tables of Iceberg's classes are Iceberg; others are not") {
    assert(IcebergTables.isIceberg(new SparkTable(schema)))
    assert(IcebergTables.isIceberg(new SparkChangelogTable(schema)))
    val other = new Table {
      override def name(): String = "other"
      override def schema(): StructType = IcebergTablesSuite.this.schema
      override def capabilities(): java.util.Set[TableCapability] = java.util.Collections.emptySet()
    }
    assert(!IcebergTables.isIceberg(other))
  }

  test("SparkTable of format versions 1, 2 and 3 read through SparkScanBuilder is prunable") {
    val before = IcebergTables.warnings.size
    for (v <- Seq("1", "2", "3")) assert(IcebergTables.prunable(iceberg(Some(v))), s"format version $v")
    assert(IcebergTables.warnings.size == before, "no warning for a table the extension prunes")
  }

  test("a newer format version is left to Iceberg, with one warning") {
    leftToIceberg("format version 4")(iceberg(Some("4")), iceberg(Some("4")))
  }

  test("a table without a format version (a metadata table) is left to Iceberg, with one warning") {
    leftToIceberg("no format version (a metadata table)")(iceberg(None), iceberg(None))
  }

  test("another Iceberg table class is left to Iceberg, with one warning") {
    leftToIceberg("table class org.apache.iceberg.spark.source.SparkChangelogTable")(
      relation(new SparkChangelogTable(schema)), relation(new SparkChangelogTable(schema, Some("3"))))
  }

  test("another scan builder class is left to Iceberg, with one warning") {
    val staged = () => new SparkStagedScanBuilder
    leftToIceberg("scan builder org.apache.iceberg.spark.source.SparkStagedScanBuilder")(
      iceberg(builder = staged), iceberg(Some("3"), staged))
  }

  test("the staged-set table the extension makes is prunable through its staged-scan builder only") {
    assert(IcebergTables.isStagedRead(new SparkRewriteTable(schema)))
    assert(IcebergTables.prunable(relation(new SparkRewriteTable(schema))))
    assert(!IcebergTables.prunable(relation(new SparkRewriteTable(schema, () => new SparkScanBuilder))))
  }

  test("a table whose newScanBuilder throws is left to Iceberg, with one warning") {
    val failing = () => throw new IllegalStateException("no snapshot")
    leftToIceberg("no scan builder")(iceberg(builder = failing), iceberg(Some("1"), failing))
  }

  test("with spark.pyspark_ext.nestedSchemaPruning.iceberg.enabled off, no Iceberg table is prunable") {
    withConf(ExtConf.IcebergPruning.key -> "false") {
      assert(!IcebergTables.prunable(iceberg()))
    }
    assert(IcebergTables.prunable(iceberg()))
  }

  test("whole-plan pruning reads one nested field of an Iceberg table's struct column") {
    val r = iceberg()
    val Seq(_, u) = r.output
    val before = Project(Seq(path(u, "geo.city").as("city")), r)
    val out = WholePlanSchemaPruning(before)
    val scan = out.collectFirst { case s: DataSourceV2Relation => s }.get
    assert(scan.table eq r.table, "Iceberg's table (and so its scan builder) is kept")
    assert(scan.output.map(_.name) == Seq("id", "u"))
    assert(scan.output(1).dataType.catalogString == "struct<geo:struct<city:string>>")
    assert(out.schema == before.schema)
    withConf(ExtConf.IcebergPruning.key -> "false") {
      assertUnchanged(WholePlanSchemaPruning, before)
    }
  }
}
