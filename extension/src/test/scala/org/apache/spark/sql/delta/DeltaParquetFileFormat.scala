package org.apache.spark.sql.delta

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.types.StructType

/**
 * A stand-in for Delta Lake's `DeltaParquetFileFormat`, with the class name and the members
 * [[pysparkext.formats.DeltaScans]] reads by reflection (the table's metadata and protocol, whether
 * the scan is a change data feed read, whether Delta's optimisations are on). The extension
 * recognises Delta without a compile-time dependency on it, so the rule suites test that recognition
 * and the rules' Delta paths on in-memory plans with this class; pytest's `tests/tables/delta`
 * runs the same paths on real Delta tables. The suites' classpath never holds Delta's jar.
 */
class DeltaParquetFileFormat(
    val metadata: StubMetadata = StubMetadata(),
    val protocol: StubProtocol = StubProtocol(),
    val isCDCRead: Boolean = false,
    val optimizationsEnabled: Boolean = true) extends ParquetFileFormat {
  override def shortName(): String = "parquet"
  override def toString: String = "DeltaParquetFileFormat(stand-in)"
}

/** A Delta format subclass, which may read differently: the extension leaves it to Delta. */
class SubclassedDeltaParquetFileFormat extends DeltaParquetFileFormat()

final case class StubColumnMappingMode(name: String)

final case class StubMetadata(
    columnMappingMode: StubColumnMappingMode = StubColumnMappingMode("none"),
    schema: StructType = new StructType())

final case class StubProtocol(minReaderVersion: Int = 3, readerFeatures: Set[String] = Set("deletionVectors")) {
  def getReaderFeatures: java.util.Set[String] = readerFeatures.asJava
}
