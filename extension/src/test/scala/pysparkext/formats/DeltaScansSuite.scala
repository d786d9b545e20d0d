package pysparkext.formats

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project}
import org.apache.spark.sql.delta.{DeltaParquetFileFormat, StubColumnMappingMode, StubMetadata, StubProtocol, SubclassedDeltaParquetFileFormat}
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types._

import pysparkext.ExtConf
import pysparkext.pruning.WholePlanSchemaPruning
import pysparkext.testing.{SparkRuleSuite, TestFiles}

/**
 * How the extension recognises Delta scans and decides what it may change in them, on a stand-in
 * for Delta's format (`org.apache.spark.sql.delta.DeltaParquetFileFormat` in the test sources).
 */
class DeltaScansSuite extends SparkRuleSuite {
  private def delta(
      mode: String = "none",
      version: Int = 3,
      features: Set[String] = Set("deletionVectors"),
      cdc: Boolean = false,
      schema: StructType = new StructType()): DeltaParquetFileFormat =
    new DeltaParquetFileFormat(StubMetadata(StubColumnMappingMode(mode), schema),
      StubProtocol(version, features), isCDCRead = cdc)

  /** The users table read through `format`, as Delta's planner gives Spark a Delta table. */
  private def relationWith(format: ParquetFileFormat): LogicalRelation = {
    val r = spark.read.parquet(TestFiles.users).queryExecution.analyzed.collectFirst {
      case r: LogicalRelation => r
    }.get
    val fs = r.relation.asInstanceOf[HadoopFsRelation]
    SparkInternals.withRelation(r, fs.copy(fileFormat = format)(fs.sparkSession), r.output)
  }

  private def formatOf(plan: LogicalPlan): HadoopFsRelation =
    plan.collectFirst { case r: LogicalRelation => r.relation.asInstanceOf[HadoopFsRelation] }.get

  test("Delta's format and its subclasses are Delta; Spark's Parquet format is not") {
    assert(DeltaScans.isDelta(delta()))
    assert(DeltaScans.isDelta(new SubclassedDeltaParquetFileFormat))
    assert(!DeltaScans.isDelta(new ParquetFileFormat))
    assert(!DeltaScans.isDelta(null))
  }

  test("a plain Delta table composes; each thing the extension cannot resolve says why") {
    def why(format: ParquetFileFormat): Option[String] =
      DeltaScans.whyNotComposable(formatOf(relationWith(format)))
    assert(why(delta()) == None)
    assert(why(delta(features = Set("deletionVectors", "variantShredding", "timestampNtz"))) == None)
    assert(why(delta(mode = "name")).exists(_.contains("column mapping (mode name)")))
    assert(why(delta(mode = "id")).exists(_.contains("column mapping (mode id)")))
    assert(why(delta(cdc = true)).contains("it is a change data feed read"))
    assert(why(delta(version = 4)).exists(_.contains("reader version 4")))
    assert(why(delta(features = Set("deletionVectors", "typeWidening"))).exists(_.contains("typeWidening")))
    assert(why(new SubclassedDeltaParquetFileFormat).exists(_.contains("SubclassedDeltaParquetFileFormat")))
    // a Delta release whose members moved: left to Delta, never a failed query
    assert(why(new DeltaParquetFileFormat(metadata = null)).exists(_.contains("could not be inspected")))
  }

  test("physical names come from the table's schema, at every depth, matched case-insensitively") {
    def named(f: StructField, physical: String) =
      f.copy(metadata = new MetadataBuilder().putString(DeltaScans.PhysicalNameKey, physical).build())
    val item = StructType(Seq(named(StructField("cpc", DoubleType), "col-3"), StructField("tag", StringType)))
    val table = StructType(Seq(
      named(StructField("id", LongType), "col-1"),
      named(StructField("items", ArrayType(item)), "col-2"),
      named(StructField("m", MapType(StringType, item)), "col-4")))
    val logical = StructType(Seq(StructField("ID", LongType),
      StructField("items", ArrayType(StructType(Seq(StructField("cpc", DoubleType)))))))
    val Seq(annotated) = DeltaScans.withPhysicalNames(delta(mode = "name", schema = table), logical)
    assert(annotated("ID").metadata.getString(DeltaScans.PhysicalNameKey) == "col-1")
    val items = annotated("items")
    assert(items.metadata.getString(DeltaScans.PhysicalNameKey) == "col-2")
    val element = items.dataType.asInstanceOf[ArrayType].elementType.asInstanceOf[StructType]
    assert(element("cpc").metadata.getString(DeltaScans.PhysicalNameKey) == "col-3")
    assert(DeltaScans.isColumnMapped(annotated))
    assert(annotated.map(_.name) == logical.map(_.name), "logical names and types are kept")
    // not Delta's format, or Delta's format that cannot tell: the schemas unchanged
    assert(DeltaScans.withPhysicalNames(new ParquetFileFormat, logical, logical) == Seq(logical, logical))
    assert(DeltaScans.withPhysicalNames(new DeltaParquetFileFormat(metadata = null), logical) == Seq(logical))
    assert(!DeltaScans.isColumnMapped(logical))
  }

  test("column mapping and filter push-down are read from the format") {
    assert(!DeltaScans.isColumnMapped(delta()))
    assert(DeltaScans.isColumnMapped(delta(mode = "id")))
    assert(DeltaScans.isColumnMapped(new DeltaParquetFileFormat(metadata = null)), "cannot tell: mapped")
    assert(!DeltaScans.isColumnMapped(new ParquetFileFormat))
    assert(DeltaScans.pushesFilters(delta()))
    assert(!DeltaScans.pushesFilters(new DeltaParquetFileFormat(optimizationsEnabled = false)))
    assert(DeltaScans.pushesFilters(new ParquetFileFormat))
  }

  test("pruning a Delta scan changes its data schema and keeps Delta's format") {
    val format = delta()
    val relation = relationWith(format)
    val Seq(_, u) = relation.output
    val before = Project(Seq(path(u, "geo.city").as("city")), Filter(path(u, "geo.lat") > Literal(0.0), relation))
    val out = WholePlanSchemaPruning(before)
    val fs = formatOf(out)
    assert(fs.fileFormat eq format, "Delta's format (its deletion vectors, its column mapping) is kept")
    assert(fs.dataSchema("u").dataType.catalogString == "struct<geo:struct<city:string,lat:double>>")
    assert(out.schema == before.schema)
  }

  test("with spark.pyspark_ext.delta.enabled off, Delta scans are left as Delta plans them") {
    val relation = relationWith(delta())
    val Seq(_, u) = relation.output
    val before = Project(Seq(path(u, "geo.city").as("city")), Filter(path(u, "geo.lat") > Literal(0.0), relation))
    withConf(ExtConf.DeltaTables.key -> "false") {
      assert(DeltaScans.switchedOff(delta()))
      assert(!DeltaScans.switchedOff(new ParquetFileFormat))
      assertUnchanged(WholePlanSchemaPruning, before)
    }
    assert(!DeltaScans.switchedOff(delta()))
  }

  test("leaving a scan to Delta is logged once per table and reason") {
    DeltaScans.leaveToDelta("t_once", "the shredded variant reads", "a test reason")
    DeltaScans.leaveToDelta("t_once", "the shredded variant reads", "a test reason")
    val message = "pyspark-ext leaves the shredded variant reads of Delta table t_once to Delta's reader, " +
      "because a test reason"
    assert(DeltaScans.warnings.count(_ == message) == 1)
  }
}
