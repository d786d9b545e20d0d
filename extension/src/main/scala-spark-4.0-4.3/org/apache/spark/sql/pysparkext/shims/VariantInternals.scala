package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.variant.{VariantGet, VariantPathSegment}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.errors.QueryExecutionErrors
import org.apache.spark.sql.execution.datasources.{FileFormat, InsertIntoHadoopFsRelationCommand, OutputWriter, VariantMetadata}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetOutputWriter, ParquetWriteSupport, SparkShreddingUtils}
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.types.variant.{VariantBuilder, VariantSchema}

/**
 * The Spark internals of the variant half, on the lines that have VARIANT (4.0 and later).
 * `SparkInternals` extends this trait, so callers reach them as `SparkInternals.x`; Spark 3.5's
 * version of the trait holds only [[isVariantStruct]], which the shared code asks of any struct.
 */
trait VariantInternals {
  /** Spark's `MALFORMED_VARIANT` error, raised where a variant's bytes cannot be valid. */
  def malformedVariant(): Throwable = QueryExecutionErrors.malformedVariant()

  /**
   * A variant path read, `variant_get` and its kin: (variant, path, target type, whether a
   * failed cast raises, time zone). By field, not by position.
   */
  object VariantGetOf {
    def unapply(g: VariantGet): Option[(Expression, Expression, DataType, Boolean, Option[String])] =
      Some((g.child, g.path, g.targetType, g.failOnError, g.timeZoneId))
  }

  /** `variant_get(child, path)` cast to `targetType`, raising on a failed cast or not. */
  def variantGet(
      child: Expression,
      path: Expression,
      targetType: DataType,
      failOnError: Boolean,
      timeZoneId: Option[String]): VariantGet =
    VariantGet(child, path, targetType, failOnError, timeZoneId)

  /** `g` reading `path` of another variant (its type, error mode and time zone kept). */
  def withVariantGetInput(g: VariantGet, child: Expression, path: Expression): VariantGet =
    g.copy(child = child, path = path)

  /** A variant path (`$.a[1].b`) as Spark parses it; `function` names the caller in errors. */
  def variantPath(path: String, function: String): Seq[VariantPathSegment] =
    VariantGet.getParsedPath(path, function).toSeq

  /** The bytes a variant builder has written so far (its buffer, private in Spark). */
  def variantWriteBuffer(b: VariantBuilder): Array[Byte] =
    variantBuffer.get(b).asInstanceOf[Array[Byte]]

  private[pysparkext] lazy val variantBuffer: java.lang.reflect.Field = {
    val f = classOf[VariantBuilder].getDeclaredField("writeBuffer")
    f.setAccessible(true)
    f
  }

  /**
   * Whether `s` is a struct of values Spark's variant push-down extracts from one variant column
   * (its fields marked with `VariantMetadata`): it reads the variant's whole Parquet group.
   */
  def isVariantStruct(s: StructType): Boolean = VariantMetadata.isVariantStruct(s)

  /**
   * The struct Spark's Parquet writer writes a VARIANT as, shredded by `shredding` (a shredding
   * schema as Spark's confs spell it), marked so that `ParquetWriteSupport` shreds into it.
   */
  def variantShreddingWriteStruct(shredding: DataType): StructType =
    SparkShreddingUtils.addWriteShreddingMetadata(
      SparkShreddingUtils.variantShreddingSchema(shredding, true, false))

  /** Sets, in a write job's conf, the shredding schema `ParquetWriteSupport` reads in each task. */
  def setWriteShreddingSchema(schema: StructType, conf: org.apache.hadoop.conf.Configuration): Unit =
    ParquetWriteSupport.setShreddingSchema(schema, conf)

  /** `cmd` writing `query` through `format`, with `options` (its other fields kept). */
  def withWriteFormat(
      cmd: InsertIntoHadoopFsRelationCommand,
      format: FileFormat,
      options: Map[String, String],
      query: LogicalPlan): InsertIntoHadoopFsRelationCommand =
    cmd.copy(fileFormat = format, options = options, query = query)

  /** Spark's plain Parquet output writer: it shreds as the task's conf says and infers nothing. */
  def plainParquetOutputWriter(
      path: String,
      context: org.apache.hadoop.mapreduce.TaskAttemptContext): OutputWriter =
    new ParquetOutputWriter(path, context)

  /** Spark's Parquet write support, as Spark's output writer makes it for each file. */
  def parquetWriteSupport(): org.apache.parquet.hadoop.api.WriteSupport[InternalRow] =
    new ParquetWriteSupport()

  /** The task conf key of the row schema `ParquetWriteSupport` writes (StructType JSON). */
  def parquetRowSchemaKey: String = ParquetWriteSupport.SPARK_ROW_SCHEMA

  /** The task conf key of the shredding schema `ParquetWriteSupport` writes, when set. */
  def parquetShreddingSchemaKey: String = ParquetWriteSupport.SPARK_VARIANT_SHREDDING_SCHEMA

  /** Whether `s` is a struct Spark's Parquet writer shreds a VARIANT into. */
  def isVariantShreddingStruct(s: StructType): Boolean = SparkShreddingUtils.isVariantShreddingStruct(s)

  /** Spark's shredder's schema for a shredding struct (`variantShreddingWriteStruct`'s result). */
  def buildVariantSchema(shreddingStruct: DataType): VariantSchema =
    SparkShreddingUtils.buildVariantSchema(shreddingStruct)

  /** Whether a variant value is well formed against its metadata (Spark's check where it has one). */
  def isValidVariant(value: Array[Byte], metadata: Array[Byte]): Boolean =
    VariantValidationShim.isValid(value, metadata)
}
