package org.apache.spark.sql.pysparkext

import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import org.apache.parquet.VersionParser.ParsedVersion
import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.column.page.PageReadStore

import org.apache.spark.SPARK_VERSION
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, Expression, ExprId}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, AggregateMode}
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.{FileFormat, FileIndex, FileStatusCache, HadoopFsRelation, InMemoryFileIndex, LogicalRelation}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFilters, VectorizedColumnReader}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.{DataType, Metadata, StructType}

import pysparkext.{ConfEntry, ExtConf}

/**
 * Checks, once per JVM when the extension is first applied to a session, that the running Spark
 * has each internal in [[SparkInternals]] as this jar was compiled against it. A missing one is
 * logged once, naming it and the switches it turns off, and those features stay off: their
 * queries run as stock Spark plans them, instead of failing in a task with `NoSuchMethodError`.
 */
object SparkInternalsProbe extends Logging {
  /** One internal: the name the warning shows, the features that need it, and its check. */
  final case class Internal(name: String, features: Seq[ConfEntry[Boolean]], check: () => Unit)

  private def constructor(c: Class[_], params: Class[_]*): () => Unit =
    () => c.getConstructor(params: _*)

  private def method(c: Class[_], name: String, params: Class[_]*): () => Unit =
    () => c.getMethod(name, params: _*)

  val internals: Seq[Internal] = Seq(
    Internal("VectorizedColumnReader.readBatch", Seq(ExtConf.LeafColumnsReader),
      () => SparkInternals.readBatch),
    Internal("VectorizedColumnReader(ColumnDescriptor, boolean, PageReadStore, ZoneId, String, " +
      "String, String, String, ParsedVersion)", Seq(ExtConf.LeafColumnsReader),
      constructor(classOf[VectorizedColumnReader], classOf[ColumnDescriptor], java.lang.Boolean.TYPE,
        classOf[PageReadStore], classOf[java.time.ZoneId], classOf[String], classOf[String],
        classOf[String], classOf[String], classOf[ParsedVersion])),
    Internal(shims.ParquetFiltersShim.signature, Seq(ExtConf.RowGroupMetrics),
      constructor(classOf[ParquetFilters], shims.ParquetFiltersShim.parameterTypes: _*)),
    Internal("InMemoryFileIndex(SparkSession, Seq, Map, Option, FileStatusCache, Option, Option)",
      Seq(ExtConf.ShreddedVariant),
      constructor(classOf[InMemoryFileIndex], classOf[SparkSession], classOf[Seq[_]],
        classOf[Map[_, _]], classOf[Option[_]], classOf[FileStatusCache], classOf[Option[_]],
        classOf[Option[_]])),
    Internal(shims.LogicalRelationCopyShim.signature,
      Seq(ExtConf.NestedSchemaPruning, ExtConf.ShreddedVariant),
      method(classOf[LogicalRelation], "copy", shims.LogicalRelationCopyShim.parameterTypes: _*)),
    Internal("HadoopFsRelation.copy(FileIndex, StructType, StructType, Option, FileFormat, Map, " +
      "SparkSession)", Seq(ExtConf.NestedSchemaPruning, ExtConf.ShreddedVariant),
      method(classOf[HadoopFsRelation], "copy", classOf[FileIndex], classOf[StructType],
        classOf[StructType], classOf[Option[_]], classOf[FileFormat], classOf[Map[_, _]],
        classOf[SparkSession])),
    Internal(shims.FileScanCopyShim.signature,
      Seq(ExtConf.NestedLeavesAsColumns, ExtConf.RowGroupMetrics),
      method(classOf[FileSourceScanExec], "copy", shims.FileScanCopyShim.parameterTypes: _*)),
    Internal("FileSourceScanExec.relation, requiredSchema, dataFilters, bucketedScan, " +
      "tableIdentifier", Seq(ExtConf.NestedLeavesAsColumns, ExtConf.RowGroupMetrics), () =>
        Seq("relation", "requiredSchema", "dataFilters", "bucketedScan", "tableIdentifier")
          .foreach(m => classOf[FileSourceScanExec].getMethod(m))),
    Internal(shims.V2RelationCopyShim.signature, Seq(ExtConf.NestedSchemaPruning),
      method(classOf[DataSourceV2Relation], "copy", shims.V2RelationCopyShim.parameterTypes: _*)),
    Internal("Alias(Expression, String, ExprId, Seq, Option, Seq)",
      Seq(ExtConf.ShreddedVariant, ExtConf.NestedSchemaPruning, ExtConf.NarrowPrunedGenerators,
        ExtConf.PathReadsBeforeAggregates),
      constructor(classOf[Alias], classOf[Expression], classOf[String], classOf[ExprId],
        classOf[Seq[_]], classOf[Option[_]], classOf[Seq[_]])),
    Internal("AttributeReference(String, DataType, boolean, Metadata, ExprId, Seq)",
      Seq(ExtConf.ShreddedVariant, ExtConf.NestedSchemaPruning, ExtConf.NarrowPrunedGenerators,
        ExtConf.NestedLeavesAsColumns),
      constructor(classOf[AttributeReference], classOf[String], classOf[DataType],
        java.lang.Boolean.TYPE, classOf[Metadata], classOf[ExprId], classOf[Seq[_]])),
    Internal("AggregateExpression.copy(AggregateFunction, AggregateMode, boolean, Option, ExprId)",
      Seq(ExtConf.PathReadsBeforeAggregates),
      method(classOf[AggregateExpression], "copy", classOf[AggregateFunction],
        classOf[AggregateMode], java.lang.Boolean.TYPE, classOf[Option[_]], classOf[ExprId]))
  ) ++ shims.ParquetFooterShim.signatures.map { case (name, check) =>
    Internal(name, Seq(ExtConf.ShreddedVariant, ExtConf.PackNarrowReads, ExtConf.LeafColumnsReader,
      ExtConf.RowGroupMetrics), check)
  } ++ Seq(
    Internal("row-aligned struct vectors (WritableColumnVector without putStruct)",
      Seq(ExtConf.NestedLeavesAsColumns),
      () => require(SparkInternals.structVectorsRowAligned, "WritableColumnVector has putStruct")),
    // No switch to turn off: without it a data error loses its message to Spark's internal error.
    Internal("error class _LEGACY_ERROR_TEMP_2273", Nil,
      () => require(new DataError("probe").getMessage.contains("probe")))
  ) ++ shims.VariantHalfShim.internals

  /** The internals this JVM's Spark lacks, with why; computed once. */
  private lazy val absent: Map[String, String] = internals.flatMap { i =>
    try { i.check(); None } catch {
      case e @ (NonFatal(_) | _: LinkageError) => Some(i.name -> e.toString)
    }
  }.toMap

  private val warned = ConcurrentHashMap.newKeySet[String]()
  private val warningsLogged = new java.util.concurrent.CopyOnWriteArrayList[String]()

  /** Runs the checks and warns about each missing internal and line gap; at session start. */
  def run(): Unit = {
    lineGaps.foreach(warnGap)
    absent.keys.foreach(warn)
  }

  /** Features this Spark line cannot carry at all (`shims.LineGapsShim`), off whatever is set. */
  private def lineGaps = shims.LineGapsShim.gaps

  private def warnGap(gap: (String, String, Seq[ConfEntry[Boolean]])): Unit = {
    val (what, why, features) = gap
    if (warned.add(what)) {
      val message = s"pyspark-ext: $what are off on Spark $SPARK_VERSION: $why; " +
        s"switching off ${features.map(_.key).mkString(", ")}: those queries run as stock " +
        "Spark plans them"
      warningsLogged.add(message)
      logWarning(message)
    }
  }

  /** Missing internals: those this Spark lacks, plus those the test conf names. */
  private def missing: Set[String] = {
    val fake = ExtConf.FakeMissingInternals.get
    absent.keySet ++ fake.split(",").map(_.trim).filter(n => internals.exists(_.name == n))
  }

  /**
   * What `feature` needs that this Spark lacks, if anything (warned about once): a gap of the
   * line, or a missing internal.
   */
  def missingFor(feature: ConfEntry[Boolean]): Option[String] =
    lineGaps.find(_._3.contains(feature)) match {
      case Some(gap) =>
        warnGap(gap)
        Some(gap._1)
      case None =>
        val gone = missing
        if (gone.isEmpty) None
        else internals.find(i => i.features.contains(feature) && gone(i.name)).map { i =>
          warn(i.name)
          i.name
        }
    }

  /** Whether `feature` is switched on and Spark has every internal it needs. */
  def on(feature: ConfEntry[Boolean]): Boolean = feature.get && missingFor(feature).isEmpty

  /** The warnings logged so far in this JVM (for tests and support). */
  def warnings: Seq[String] = {
    import scala.jdk.CollectionConverters._
    warningsLogged.asScala.toSeq
  }

  private def warn(name: String): Unit = if (warned.add(name)) {
    val features = internals.find(_.name == name).toSeq.flatMap(_.features)
    val off = if (features.isEmpty) "no switch covers it, so data errors may lose their message"
      else s"switching off ${features.map(_.key).mkString(", ")}: those queries run as stock Spark plans them"
    val cause = absent.get(name).map(c => s" ($c)").getOrElse(" (named by " +
      s"${ExtConf.FakeMissingInternals.key})")
    val message = s"pyspark-ext: Spark $SPARK_VERSION lacks $name, which this jar was built " +
      s"against; $off$cause"
    warningsLogged.add(message)
    logWarning(message)
  }
}
