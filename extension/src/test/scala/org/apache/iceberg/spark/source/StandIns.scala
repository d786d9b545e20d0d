package org.apache.iceberg.spark.source

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.connector.catalog.{SupportsRead, Table, TableCapability}
import org.apache.spark.sql.connector.read.{Scan, ScanBuilder, SupportsPushDownRequiredColumns}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/*
 * Stand-ins for Iceberg's Spark classes, under Iceberg's class names and with only what
 * [[pysparkext.formats.IcebergTables]] looks at: the table's class name, its `format-version`
 * property, and the class of the scan builder it hands out. The extension recognises Iceberg by
 * class name, without a compile-time dependency on it, so `IcebergTablesSuite` tests that
 * recognition on in-memory relations over these classes; pytest's `tests/tables/iceberg` runs the
 * same paths on real Iceberg tables. The suites' classpath never holds Iceberg's jar. None of
 * these scans is ever built or read.
 */

/** Capabilities and properties shared by the stand-in tables. */
abstract class StandInTable(tableSchema: StructType, formatVersion: Option[String], builder: () => ScanBuilder)
    extends Table with SupportsRead {
  override def name(): String = s"${getClass.getSimpleName}(stand-in)"
  override def schema(): StructType = tableSchema
  override def capabilities(): util.Set[TableCapability] = Set(TableCapability.BATCH_READ).asJava
  override def properties(): util.Map[String, String] = formatVersion.map("format-version" -> _).toMap.asJava
  override def newScanBuilder(options: CaseInsensitiveStringMap): ScanBuilder = builder()
}

/**
 * A stand-in for Iceberg's plain table. `formatVersion` is its `format-version` property (None, as
 * Iceberg's metadata tables have none); `builder` makes what `newScanBuilder` returns, or throws.
 */
class SparkTable(
    tableSchema: StructType,
    formatVersion: Option[String] = Some("2"),
    builder: () => ScanBuilder = () => new SparkScanBuilder)
  extends StandInTable(tableSchema, formatVersion, builder)

/** A stand-in for Iceberg's changelog view: an Iceberg table other than `SparkTable`. */
class SparkChangelogTable(tableSchema: StructType, formatVersion: Option[String] = Some("2"))
  extends StandInTable(tableSchema, formatVersion, () => new SparkScanBuilder)

/** A stand-in for Iceberg's scan builder, which takes nested column requests. */
class SparkScanBuilder extends ScanBuilder with SupportsPushDownRequiredColumns {
  override def pruneColumns(requiredSchema: StructType): Unit = ()
  override def build(): Scan = throw new UnsupportedOperationException("a stand-in builds no scan")
}

/**
 * A stand-in for Iceberg's staged-scan builder: it takes column requests too, but it is not
 * `SparkScanBuilder`, so a `SparkTable` handing it out is left to Iceberg.
 */
class SparkStagedScanBuilder extends SparkScanBuilder

/**
 * A stand-in for Iceberg's table over a staged set of tasks, which the extension makes for the
 * files of a relation it leaves to Iceberg's reader; it hands out `SparkStagedScanBuilder`.
 */
class SparkRewriteTable(tableSchema: StructType, builder: () => ScanBuilder = () => new SparkStagedScanBuilder)
  extends StandInTable(tableSchema, Some("3"), builder)
