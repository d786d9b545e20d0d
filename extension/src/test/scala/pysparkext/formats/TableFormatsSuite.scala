package pysparkext.formats

import org.apache.iceberg.spark.source.SparkTable

import org.apache.spark.sql.delta.{DeltaParquetFileFormat, StubColumnMappingMode, StubMetadata, StubProtocol}
import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.execution.datasources.csv.CSVFileFormat
import org.apache.spark.sql.execution.datasources.orc.OrcFileFormat
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types._
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import pysparkext.ExtConf
import pysparkext.formats.Feature._
import pysparkext.parquet.{LeafColumnsParquetFormat, ListedFilesParquetFormat}
import pysparkext.testing.{SparkRuleSuite, TestFiles}

/** A Parquet format of another product: neither Spark's, nor Delta's, nor the extension's. */
class SomeoneElsesParquetFormat extends ParquetFileFormat

/**
 * [[TableFormats]], the one decision per feature and scan: on relations over the suites' users
 * file with each kind of format (Delta's and Iceberg's as the stand-ins in the test sources), it
 * answers as each format's declared support says (the table in `docs/table-formats.md`), gives a
 * reason whenever a feature does not apply, and logs the one-time warnings.
 */
class TableFormatsSuite extends SparkRuleSuite {
  private def relationWith(format: FileFormat): HadoopFsRelation = {
    val fs = spark.read.parquet(TestFiles.users).queryExecution.analyzed.collectFirst {
      case r: LogicalRelation => r.relation.asInstanceOf[HadoopFsRelation]
    }.get
    fs.copy(fileFormat = format)(fs.sparkSession)
  }

  private def delta(mode: String = "none", features: Set[String] = Set("deletionVectors")) =
    new DeltaParquetFileFormat(StubMetadata(StubColumnMappingMode(mode), new StructType()),
      StubProtocol(3, features))

  private val icebergSchema = StructType(Seq(StructField("id", LongType),
    StructField("u", StructType(Seq(StructField("name", StringType))))))

  private def iceberg(table: org.apache.spark.sql.connector.catalog.Table): DataSourceV2Relation =
    DataSourceV2Relation.create(table, None, None, CaseInsensitiveStringMap.empty())

  /** Every feature's runtime answer for `fs` agrees with what `format` declares: no means no. */
  private def agrees(format: TableFormat, fs: HadoopFsRelation, cometTakes: Boolean = false): Unit =
    Feature.all.foreach { feature =>
      val decision = TableFormats.decide(feature, fs, cometTakes)
      val declared = format.support(feature)
      assert(decision.applies == (declared.status != "no"),
        s"${format.name}, ${feature.name}: declared ${declared.status}, decided $decision")
      decision match {
        case NotApplied(reason) => assert(reason.nonEmpty)
        case _ =>
      }
    }

  test("every format declares every feature, and each no or partly says why") {
    for (format <- TableFormats.all; feature <- Feature.all) {
      val s = format.support(feature)
      assert(Set("yes", "partly", "no").contains(s.status))
      if (s.status != "yes") assert(s.detail.nonEmpty, s"${format.name}, ${feature.name}")
    }
    val lines = TableFormats.listing.split("\n")
    assert(lines.length == TableFormats.all.length * Feature.all.length)
    assert(lines.forall(_.split("\t", -1).length == 5))
  }

  test("Spark's own Parquet format, and the extension's: every feature applies") {
    agrees(SparkFiles, relationWith(new ParquetFileFormat))
    agrees(SparkFiles, relationWith(new ListedFilesParquetFormat))
    assert(TableFormats.decide(VariantPathReads, relationWith(new ParquetFileFormat)) == Applies())
  }

  test("a scan DataFusion Comet reads natively: the physical features step aside, and say why") {
    agrees(DataFusionComet, relationWith(new ParquetFileFormat), cometTakes = true)
    val NotApplied(reason) = TableFormats.decide(LeafReader, relationWith(new ParquetFileFormat), cometTakes = true)
    assert(reason.contains("Comet reads the scan natively"))
    // Comet reads only Spark's own format: the extension's formats keep to Spark's reader
    assert(TableFormats.decide(RowGroupMetrics, relationWith(new LeafColumnsParquetFormat(
      new ParquetFileFormat, Nil)), cometTakes = true).applies)
  }

  test("Delta: features that keep Delta's format apply through it; the others never do") {
    val fs = relationWith(delta())
    agrees(DeltaLake, fs)
    assert(TableFormats.decide(NestedPruning, fs) == Applies(keepsFormat = true))
    assert(TableFormats.decide(LeafReader, fs) == NotApplied(
      DeltaLake.support(LeafReader).detail), "the reason is the docs table's")
    // Delta's format is never Comet's: the physical features are Delta's answers there too
    assert(TableFormats.decide(LeavesAsColumns, fs, cometTakes = true).applies)
  }

  test("Delta: the switch turns every feature off but the report; column mapping stops the count") {
    withConf(ExtConf.DeltaTables.key -> "false") {
      val fs = relationWith(delta())
      assert(TableFormats.decide(NestedPruning, fs) == NotApplied(s"${ExtConf.DeltaTables.key} is false"))
      assert(!TableFormats.decide(LeavesAsColumns, fs).applies)
      assert(TableFormats.decide(ReportRowGroups, fs).applies)
      val before = DeltaScans.warnings.size
      assert(!TableFormats.variantReads(fs, "t_switched_off", None).applies)
      assert(DeltaScans.warnings.size == before, "a setting the user chose is not warned about")
    }
    val mapped = relationWith(delta(mode = "name"))
    assert(TableFormats.decide(ReportBytes, mapped).applies)
    assert(TableFormats.decide(ReportRowGroups, mapped) == NotApplied(DeltaLake.ColumnMapped))
  }

  test("Delta: variant reads are left to Delta with one warning per table and reason") {
    val before = DeltaScans.warnings.size
    val mapped = relationWith(delta(mode = "id"))
    Seq(1, 2).foreach(_ => assert(!TableFormats.variantReads(mapped, "t_mapped", None).applies))
    val NotApplied(inCommand) = TableFormats.variantReads(relationWith(delta()), "t_merged", Some("MergeIntoCommand"))
    assert(inCommand.contains("MergeIntoCommand"))
    val issued = DeltaScans.warnings.drop(before)
    assert(issued.length == 2, issued)
    assert(issued.head.startsWith("pyspark-ext leaves the shredded variant reads of Delta table t_mapped"))
    assert(issued.head.contains("column mapping (mode id)"))
    assert(TableFormats.variantReads(relationWith(delta()), "t_plain", None) == Applies(keepsFormat = true))
    assert(TableFormats.variantReads(relationWith(delta(features = Set("typeWidening"))), "t_widened", None)
      .isInstanceOf[NotApplied])
  }

  test("another product's Parquet format keeps its reader; its variant columns are warned about") {
    val fs = relationWith(new SomeoneElsesParquetFormat)
    agrees(OtherParquetFormats, fs)
    val before = DeltaScans.warnings.size
    assert(!TableFormats.variantReads(fs, "t_other", None).applies)
    assert(DeltaScans.warnings.drop(before) == Seq("pyspark-ext leaves the variant columns of t_other " +
      "to its own reader: its file format pysparkext.formats.SomeoneElsesParquetFormat is neither " +
      "Spark's Parquet format nor Delta's"))
    assert(!TableFormats.readsVariantColumns(fs.fileFormat))
  }

  test("ORC is pruned only; other file formats are left alone") {
    val orc = relationWith(new OrcFileFormat)
    assert(TableFormats.decide(NestedPruning, orc).applies)
    assert(Feature.all.filterNot(_ == NestedPruning).forall(f => !TableFormats.decide(f, orc).applies))
    agrees(OtherSources, relationWith(new CSVFileFormat))
  }

  test("Iceberg: nested pruning for the tables it knows; variant reads decided per relation") {
    val known = iceberg(new SparkTable(icebergSchema))
    assert(TableFormats.nestedPruning(known) == Applies(keepsFormat = true))
    // a kind of table IcebergTablesSuite does not use: each kind is warned about once per JVM
    val NotApplied(reason) = TableFormats.nestedPruning(iceberg(new SparkTable(icebergSchema, Some("5"))))
    assert(reason.contains("format version 5"))
    // which relations and files: Iceberg.variantFiles, tested on real tables (tests/tables/iceberg)
    assert(Iceberg.decide(VariantPathReads, known).applies)
    Feature.all.filterNot(Set(NestedPruning, VariantPathReads)).foreach { f =>
      assert(Iceberg.decide(f, known) == NotApplied(Iceberg.support(f).detail), f.name)
    }
    withConf(ExtConf.IcebergPruning.key -> "false") {
      assert(!TableFormats.nestedPruning(known).applies)
    }
  }
}
