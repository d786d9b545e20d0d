package org.apache.spark.sql.pysparkext.shims

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.schema.{MessageType, PrimitiveType}

import org.apache.spark.sql.{SaveMode, SparkSessionExtensions}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.expressions.variant.VariantGet
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.{FileFormat, InsertIntoHadoopFsRelationCommand}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetOutputWriter, ParquetToSparkSchemaConverter, ParquetWriteSupport}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.pysparkext.SparkInternalsProbe.Internal
import org.apache.spark.sql.types.{DataType, StructField, StructType, VariantType}

import pysparkext.ExtConf
import pysparkext.exec.{PathReadsBeforeAggregates, SkipPredicatesOnlyInScans}
import pysparkext.variant.codec.RawTypedValue
import pysparkext.variant.expressions.{ShredDraftVariant, ShredVariantFunction}
import pysparkext.variant.format.{RawTypedLeaves, VariantGroupsAsStructsParquetFormat}
import pysparkext.variant.layout.{DraftLayout, LayoutMarks, SpecLayout}
import pysparkext.variant.rules.{PushCorrelatedProjectionIntoUnionAtAnalysis,
  PushCorrelatedProjectionThroughUnion, ReadIcebergVariantFiles, ResolveShreddedVariantRelations,
  ResolveSpecLayoutWrites, RewriteShreddedVariantPaths, ShreddedSkipPredicates}

/**
 * The variant half as the shared code sees it, on the lines that have VARIANT (4.0 and later):
 * its rules and function, and the few questions shared code asks about variant columns. Spark
 * 3.5's version of this object registers nothing and answers "no variant" to each question, so
 * the shared code (pruning, leaves as columns, footers) compiles and runs the same on both.
 */
object VariantHalfShim {
  /**
   * Registers the variant rules and the `shred_variant` function. Called before the pruning rules
   * are injected: in the pre-CBO batch, variant path reads become shredded-column reads (and gain
   * skip predicates) before whole-plan pruning sees the plan.
   */
  def inject(extensions: SparkSessionExtensions): Unit = {
    extensions.injectResolutionRule(session => new ResolveShreddedVariantRelations(session))
    extensions.injectPostHocResolutionRule(_ => ResolveSpecLayoutWrites)
    extensions.injectOptimizerRule(session => new ReadIcebergVariantFiles(session))
    OptimizerHooksShim.injectBeforeOperatorOptimization(extensions, PushCorrelatedProjectionThroughUnion,
      PushCorrelatedProjectionIntoUnionAtAnalysis)
    extensions.injectPreCBORule(_ => RewriteShreddedVariantPaths)
    extensions.injectPreCBORule(_ => ShreddedSkipPredicates)
    extensions.injectFunction((
      FunctionIdentifier("shred_variant"),
      new ExpressionInfo(classOf[ShredDraftVariant].getName, "shred_variant"),
      ShredVariantFunction.build _))
  }

  /** The physical variant rewrites that run before nested leaves become columns. */
  val beforeLeavesAsColumns: Seq[Rule[SparkPlan]] = Seq(SkipPredicatesOnlyInScans, PathReadsBeforeAggregates)

  /** Whether `f` is a column the variant half marked as a shredded variant's struct. */
  def isMarked(f: StructField): Boolean = LayoutMarks.isMarked(f)

  /** Whether `f` holds a variant: VARIANT, or a shredded variant's marked struct. */
  def isVariantColumn(f: StructField): Boolean = f.dataType == VariantType || LayoutMarks.isMarked(f)

  def isVariantType(t: DataType): Boolean = t == VariantType

  /** Whether `format` is the extension's reader of shredded variant groups as structs. */
  def isVariantGroupsFormat(format: FileFormat): Boolean =
    format.isInstanceOf[VariantGroupsAsStructsParquetFormat]

  /** Whether a scan's Hadoop conf tells Spark's reader to read VARIANT groups as structs. */
  def readsVariantGroupsAsStructs(hadoopConf: Configuration): Boolean =
    hadoopConf.getBoolean(VariantGroupsAsStructsParquetFormat.IgnoreAnnotation, false)

  /** A file's Spark schema from its footer, variant groups shown as their physical structs. */
  def footerSchema(message: MessageType, sqlConf: SQLConf): StructType = {
    sqlConf.setConfString(VariantGroupsAsStructsParquetFormat.IgnoreAnnotation, "true")
    RawTypedLeaves.convert(message, new ParquetToSparkSchemaConverter(sqlConf))
  }

  /** Whether a Parquet leaf name is a variant's residual binary (`untyped_value`, `value`). */
  def isResidualLeaf(name: String): Boolean = name == DraftLayout.Untyped || name == SpecLayout.Value

  /** Whether a Parquet leaf is a shredded variant's `typed_value`. */
  def isTypedLeaf(p: PrimitiveType): Boolean = p.getName == DraftLayout.Typed

  /** Whether the variant half reads `p` as a raw typed value of its own. */
  def isRawTypedValue(p: PrimitiveType): Boolean = RawTypedValue.of(p).isDefined

  /** The Spark internals only the variant half needs, for [[SparkInternalsProbe]]. */
  val internals: Seq[Internal] = Seq(
    Internal("VariantBuilder.writeBuffer", Seq(ExtConf.ShreddedVariant),
      () => SparkInternals.variantBuffer),
    Internal("VariantGet(Expression, Expression, DataType, boolean, Option) and its copy",
      Seq(ExtConf.ShreddedVariant), () => {
        val params = Seq(classOf[Expression], classOf[Expression], classOf[DataType],
          java.lang.Boolean.TYPE, classOf[Option[_]])
        classOf[VariantGet].getConstructor(params: _*)
        classOf[VariantGet].getMethod("copy", params: _*)
      }),
    Internal("VariantGet.getParsedPath(String, String)", Seq(ExtConf.ShreddedVariant),
      method(classOf[VariantGet], "getParsedPath", classOf[String], classOf[String])),
    Internal("VariantMetadata.isVariantStruct(StructType)",
      Seq(ExtConf.PackNarrowReads, ExtConf.LeafColumnsReader),
      () => SparkInternals.isVariantStruct(new StructType())),
    Internal("SparkShreddingUtils.variantShreddingSchema(DataType, boolean, boolean) and " +
      "addWriteShreddingMetadata(StructType)", Seq(ExtConf.SpecLayoutWriter),
      () => SparkInternals.variantShreddingWriteStruct(org.apache.spark.sql.types.LongType)),
    Internal("ParquetWriteSupport.setShreddingSchema(StructType, Configuration)",
      Seq(ExtConf.SpecLayoutWriter),
      method(classOf[ParquetWriteSupport], "setShreddingSchema", classOf[StructType],
        classOf[Configuration])),
    Internal("InsertIntoHadoopFsRelationCommand.copy(Path, Map, boolean, Seq, Option, FileFormat, " +
      "Map, LogicalPlan, SaveMode, Option, Option, Seq)", Seq(ExtConf.SpecLayoutWriter),
      method(classOf[InsertIntoHadoopFsRelationCommand], "copy", classOf[Path], classOf[Map[_, _]],
        java.lang.Boolean.TYPE, classOf[Seq[_]], classOf[Option[_]], classOf[FileFormat],
        classOf[Map[_, _]], classOf[LogicalPlan], classOf[SaveMode], classOf[Option[_]],
        classOf[Option[_]], classOf[Seq[_]])),
    Internal("ParquetOutputWriter(String, TaskAttemptContext)", Seq(ExtConf.SpecLayoutWriter),
      constructor(classOf[ParquetOutputWriter], classOf[String],
        classOf[org.apache.hadoop.mapreduce.TaskAttemptContext])),
    Internal("ParquetWriteSupport() with SPARK_ROW_SCHEMA and SPARK_VARIANT_SHREDDING_SCHEMA",
      Seq(ExtConf.ColumnarSpecWriter), () => {
        SparkInternals.parquetWriteSupport()
        require(SparkInternals.parquetRowSchemaKey != null && SparkInternals.parquetShreddingSchemaKey != null)
      }),
    Internal("SparkShreddingUtils.isVariantShreddingStruct(StructType) and buildVariantSchema(DataType)",
      Seq(ExtConf.ColumnarSpecWriter), () => SparkInternals.buildVariantSchema(
        SparkInternals.variantShreddingWriteStruct(org.apache.spark.sql.types.LongType))),
    Internal("ProjectingInternalRow(StructType, IndexedSeq)", Seq(ExtConf.ColumnarSpecWriter),
      () => SparkInternals.projectedRow(new StructType(), Nil)),
    Internal("Parquet MessageColumnIORecordConsumer.columns", Seq(ExtConf.ColumnarSpecWriter),
      () => require(SparkInternals.parquetColumnStoreReachable, "no such field")))

  private def method(c: Class[_], name: String, params: Class[_]*): () => Unit =
    () => c.getMethod(name, params: _*)

  private def constructor(c: Class[_], params: Class[_]*): () => Unit =
    () => c.getConstructor(params: _*)
}
