package org.apache.spark.sql.pysparkext.shims

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.schema.{MessageType, PrimitiveType}

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.FileFormat
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.SparkInternalsProbe.Internal
import org.apache.spark.sql.types.{DataType, StructField, StructType}

/**
 * Spark 3.5 has no VARIANT type, so the extension's variant half (shredded reads, skipping and
 * writes, `shred_variant`) is not compiled for it: this object registers nothing, and answers
 * "not a variant" to each question the shared code asks. Its switches stay declared, and
 * `LineGapsShim` says once at session start that they are off.
 */
object VariantHalfShim {
  def inject(extensions: SparkSessionExtensions): Unit = ()

  val beforeLeavesAsColumns: Seq[Rule[SparkPlan]] = Nil

  def isMarked(f: StructField): Boolean = false

  def isVariantColumn(f: StructField): Boolean = false

  def isVariantType(t: DataType): Boolean = false

  def isVariantGroupsFormat(format: FileFormat): Boolean = false

  def readsVariantGroupsAsStructs(hadoopConf: Configuration): Boolean = false

  /** A file's Spark schema from its footer, as Spark 3.5's Parquet reader converts it. */
  def footerSchema(message: MessageType, sqlConf: SQLConf): StructType =
    new ParquetToSparkSchemaConverter(sqlConf).convert(message)

  def isResidualLeaf(name: String): Boolean = false

  def isTypedLeaf(p: PrimitiveType): Boolean = false

  def isRawTypedValue(p: PrimitiveType): Boolean = false

  val internals: Seq[Internal] = Nil
}
