package org.apache.spark.sql.pysparkext

import java.time.ZoneId

import org.apache.hadoop.fs.Path
import org.apache.parquet.VersionParser.ParsedVersion
import org.apache.parquet.column.ColumnDescriptor
import org.apache.parquet.column.page.PageReadStore
import org.apache.parquet.format.converter.ParquetMetadataConverter.MetadataFilter
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.MessageType

import org.apache.spark.sql.catalyst.ProjectingInternalRow
import org.apache.spark.sql.catalyst.catalog.{BucketSpec, CatalogTable}
import org.apache.spark.sql.catalyst.expressions.{Alias, AttributeReference, Cast, EvalMode, Expression, ExprId, GetStructField, If, NamedExpression}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction, AggregateMode}
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.util.RebaseDateTime.RebaseSpec
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.{DataSourceStrategy, FileFormat, FileIndex, FileStatusCache, HadoopFsRelation, InMemoryFileIndex, LogicalRelation, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.{ParquetFilters, VectorizedColumnReader}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.execution.vectorized.{OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.sources
import org.apache.spark.sql.types.{DataType, Metadata, StructType}

/**
 * The Spark APIs the extension needs that Spark keeps package-private, reaches only by
 * reflection, or changes between versions (constructor arities, case-class positions). Each is
 * used through here, and [[SparkInternalsProbe]] checks at session start that the running Spark
 * still has it. What is still used outside this layer is listed in `docs/architecture.md`.
 */
object SparkInternals extends shims.VariantInternals {
  /** A data filter as Spark hands it to a file format that reaches nested fields (Parquet). */
  def toSourceFilter(e: Expression): Option[sources.Filter] =
    DataSourceStrategy.translateFilter(e, supportNestedPredicatePushdown = true)

  /** Whether `t` or a type nested in it (fields, elements, map keys and values) satisfies `p`. */
  def existsRecursively(t: org.apache.spark.sql.types.DataType)(
      p: org.apache.spark.sql.types.DataType => Boolean): Boolean = t.existsRecursively(p)

  /**
   * The settings of the running Spark context (`--conf`, spark-defaults.conf, and the builder's
   * settings when it started the context), if one is running: a session's settings start as a
   * copy of them. `SparkContext.getActive` is package-private but has the same shape in every
   * supported line.
   */
  def activeSparkConf: Option[org.apache.spark.SparkConf] =
    org.apache.spark.SparkContext.getActive.map(_.conf)

  /** A copy of the session (its settings, catalog and extensions) with some settings changed. */
  def withSettings(session: org.apache.spark.sql.SparkSession, settings: Map[String, String])
      : org.apache.spark.sql.SparkSession = {
    val copy = shims.SessionShim.cloneSession(session)
    settings.foreach { case (k, v) => copy.sessionState.conf.setConfString(k, v) }
    copy
  }

  /**
   * A batch (not streaming) relation over files: (relation node, files, output, catalog table).
   * By field, not by position: `LogicalRelation`'s constructor gained a fifth parameter in 4.0.
   */
  object FileRelation {
    def unapply(plan: LogicalPlan)
        : Option[(LogicalRelation, HadoopFsRelation, Seq[AttributeReference], Option[CatalogTable])] =
      plan match {
        case r: LogicalRelation if !r.isStreaming => r.relation match {
          case fs: HadoopFsRelation => Some((r, fs, r.output, r.catalogTable))
          case _ => None
        }
        case _ => None
      }
  }

  /**
   * Any relation node of Spark's data sources (file, JDBC, streaming ...), by type: the rules use
   * only its output and `newInstance`.
   */
  object DataSourceRelation {
    def unapply(plan: LogicalPlan): Option[LogicalRelation] = plan match {
      case r: LogicalRelation => Some(r)
      case _ => None
    }
  }

  /**
   * An aggregate: (grouping expressions, aggregate expressions, child). By field, not by
   * position: `Aggregate` gained a fourth field (its hint) in 4.0.
   */
  object AggregateOf {
    def unapply(plan: LogicalPlan): Option[(Seq[Expression], Seq[NamedExpression], LogicalPlan)] =
      plan match {
        case a: Aggregate => Some((a.groupingExpressions, a.aggregateExpressions, a.child))
        case _ => None
      }
  }

  /** A projection: (project list, child). By field, not by position. */
  object ProjectOf {
    def unapply(plan: LogicalPlan): Option[(Seq[NamedExpression], LogicalPlan)] = plan match {
      case p: Project => Some((p.projectList, p.child))
      case _ => None
    }
  }

  /**
   * An alias of `child` as `name`. `Alias`'s second parameter list (id, qualifier, metadata) is
   * given here, by name and with `Alias`'s own defaults, so a change to that list meets the
   * probe, not a task.
   */
  def alias(
      child: Expression,
      name: String,
      exprId: ExprId = NamedExpression.newExprId,
      qualifier: Seq[String] = Seq.empty,
      explicitMetadata: Option[Metadata] = None,
      nonInheritableMetadataKeys: Seq[String] = Seq.empty): Alias =
    Alias(child, name)(exprId, qualifier, explicitMetadata, nonInheritableMetadataKeys)

  /** A new alias of `child` as `name`, with a fresh id and nothing else carried over. */
  def newAlias(child: Expression, name: String): Alias = alias(child, name)

  /** `a` over another child: its name, id, qualifier and metadata kept. */
  def withAliasChild(a: Alias, child: Expression): Alias =
    alias(child, a.name, a.exprId, a.qualifier, a.explicitMetadata, a.nonInheritableMetadataKeys)

  /**
   * A column reference. `AttributeReference`'s second parameter list (id, qualifier) is given
   * here, by name and with its own defaults, as for [[alias]].
   */
  def attribute(
      name: String,
      dataType: DataType,
      nullable: Boolean = true,
      metadata: Metadata = Metadata.empty,
      exprId: ExprId = NamedExpression.newExprId,
      qualifier: Seq[String] = Seq.empty): AttributeReference =
    AttributeReference(name, dataType, nullable, metadata)(exprId, qualifier)

  /** A struct field read: (struct, ordinal). By field, not by position. */
  object StructFieldOf {
    def unapply(e: Expression): Option[(Expression, Int)] = e match {
      case g: GetStructField => Some((g.child, g.ordinal))
      case _ => None
    }
  }

  /** A conditional: (predicate, value where it holds, value elsewhere). By field. */
  object IfOf {
    def unapply(e: Expression): Option[(Expression, Expression, Expression)] = e match {
      case i: If => Some((i.predicate, i.trueValue, i.falseValue))
      case _ => None
    }
  }

  /**
   * A cast: (child, target type, time zone, evaluation mode). By field, not by position: the
   * fourth field (`evalMode`) replaced `ansiEnabled` in 3.4.
   */
  object CastOf {
    def unapply(c: Cast): Option[(Expression, DataType, Option[String], EvalMode.Value)] =
      Some((c.child, c.dataType, c.timeZoneId, c.evalMode))
  }

  /**
   * An aggregate function call: (function, mode, whether distinct, its FILTER clause). By field,
   * not by position.
   */
  object AggregateExpressionOf {
    def unapply(ae: AggregateExpression)
        : Option[(AggregateFunction, AggregateMode, Boolean, Option[Expression])] =
      Some((ae.aggregateFunction, ae.mode, ae.isDistinct, ae.filter))
  }

  /** `ae` calling `function` instead (its mode, distinctness, filter and result id kept). */
  def withAggregateFunction(ae: AggregateExpression, function: AggregateFunction): AggregateExpression =
    ae.copy(aggregateFunction = function)

  /** `fs` with another data schema (its other fields kept). */
  def withDataSchema(fs: HadoopFsRelation, dataSchema: StructType): HadoopFsRelation =
    fs.copy(dataSchema = dataSchema)(fs.sparkSession)

  /**
   * A relation over the files of `location`, unpartitioned, read by `fileFormat` as `dataSchema`,
   * with `output` as its attributes (in the schema's order).
   */
  def fileRelation(
      location: FileIndex,
      dataSchema: StructType,
      fileFormat: FileFormat,
      options: Map[String, String],
      session: org.apache.spark.sql.SparkSession,
      output: Seq[AttributeReference]): LogicalRelation = {
    val fs = HadoopFsRelation(location, new StructType(), dataSchema, None, fileFormat, options)(session)
    LogicalRelation(fs, isStreaming = false).copy(output = output)
  }

  /** `fs` over other files, schema, format and buckets, in `session`. */
  def withFiles(
      fs: HadoopFsRelation,
      location: FileIndex,
      dataSchema: StructType,
      fileFormat: FileFormat,
      bucketSpec: Option[BucketSpec],
      session: org.apache.spark.sql.SparkSession,
      options: Map[String, String]): HadoopFsRelation =
    fs.copy(location = location, dataSchema = dataSchema, fileFormat = fileFormat,
      bucketSpec = bucketSpec, options = options)(session)

  /**
   * A file scan: (scan node, relation, the schema it reads from the files, data filters). By
   * field: the extension reads no other field of `FileSourceScanExec` but through here.
   */
  object FileScan {
    def unapply(plan: org.apache.spark.sql.execution.SparkPlan)
        : Option[(FileSourceScanExec, HadoopFsRelation, StructType, Seq[Expression])] = plan match {
      case s: FileSourceScanExec => Some((s, s.relation, s.requiredSchema, s.dataFilters))
      case _ => None
    }
  }

  /** Whether `scan` reads by buckets (its partitioning then follows the bucket columns). */
  def isBucketedScan(scan: FileSourceScanExec): Boolean = scan.bucketedScan

  /** The catalog table `scan` reads, if any, as its unquoted name. */
  def scanTableName(scan: FileSourceScanExec): Option[String] =
    scan.tableIdentifier.map(_.unquotedString)

  /** `scan` reading through `format` (its relation's and its own other fields kept). */
  def withFileFormat(scan: FileSourceScanExec, format: FileFormat): FileSourceScanExec =
    scan.copy(relation = scan.relation.copy(fileFormat = format)(scan.relation.sparkSession))

  /** `r` with `output` (its other fields kept). */
  def withOutput(r: DataSourceV2Relation, output: Seq[AttributeReference]): DataSourceV2Relation =
    r.copy(output = output)

  /** `r` reading `relation` with `output` (its other fields kept). */
  def withRelation(r: LogicalRelation, relation: HadoopFsRelation, output: Seq[AttributeReference])
      : LogicalRelation = r.copy(relation = relation, output = output)

  /** An index of exactly `paths`, as Spark lists a path read. */
  def fileIndex(
      session: org.apache.spark.sql.SparkSession,
      paths: Seq[Path],
      options: Map[String, String],
      partitionSchema: Option[StructType]): InMemoryFileIndex =
    new InMemoryFileIndex(session, paths, options, partitionSchema,
      FileStatusCache.getOrCreate(session), None, None)

  /** The converter of data filters to Parquet predicates that Spark's Parquet reader uses. */
  def parquetFilters(
      schema: MessageType, date: Boolean, timestamp: Boolean, decimal: Boolean,
      stringPredicate: Boolean, inThreshold: Int, caseSensitive: Boolean,
      rebase: RebaseSpec): ParquetFilters =
    shims.ParquetFiltersShim(schema, date, timestamp, decimal, stringPredicate, inThreshold,
      caseSensitive, rebase)

  /** Spark's decoder of one Parquet column chunk into column vectors. */
  def columnReader(
      column: ColumnDescriptor, isRequired: Boolean, pages: PageReadStore,
      convertTz: ZoneId, datetimeRebaseMode: String, datetimeRebaseTz: String,
      int96RebaseMode: String, int96RebaseTz: String,
      writerVersion: ParsedVersion): VectorizedColumnReader =
    new VectorizedColumnReader(column, isRequired, pages, convertTz, datetimeRebaseMode,
      datetimeRebaseTz, int96RebaseMode, int96RebaseTz, writerVersion)

  /**
   * `reader.readBatch(rows, values, null, null)`: with no level vectors Spark's column reader
   * fills `values` as a top-level column (a value where the definition level is the column's
   * maximum, a null anywhere else). The method is package-private and the extension's jar has
   * its own class loader, so it is reached by reflection.
   */
  def readTopLevel(reader: VectorizedColumnReader, rows: Int, values: WritableColumnVector): Unit =
    readBatch.invoke(reader, Int.box(rows), values, null, null)

  private[pysparkext] lazy val readBatch: java.lang.reflect.Method = {
    val vector = classOf[WritableColumnVector]
    val m = classOf[VectorizedColumnReader].getDeclaredMethod("readBatch", Integer.TYPE, vector, vector, vector)
    m.setAccessible(true)
    m
  }

  /**
   * Whether struct vectors hold a child value at every row of the struct, as in Spark 4.3. Builds
   * whose vectors store children only for non-null structs have `putStruct`; there a field
   * vector's row numbers differ from the batch's.
   */
  lazy val structVectorsRowAligned: Boolean =
    !classOf[WritableColumnVector].getMethods.exists(_.getName == "putStruct")

  /** A row that shows some fields of another, by ordinal, without copying them. */
  type ProjectedRow = ProjectingInternalRow

  def projectedRow(schema: StructType, ordinals: Seq[Int]): ProjectedRow =
    ProjectingInternalRow(schema, ordinals.toIndexedSeq)

  private lazy val consumerColumns: Option[java.lang.reflect.Field] = scala.util.Try {
    val f = Class.forName("org.apache.parquet.io.MessageColumnIO$MessageColumnIORecordConsumer")
      .getDeclaredField("columns")
    f.setAccessible(true)
    f
  }.toOption

  def parquetColumnStoreReachable: Boolean = consumerColumns.isDefined

  /**
   * The column writers under Parquet's record consumer (a Parquet, not Spark, internal: the
   * consumer keeps its `ColumnWriteStore` private). None for any other consumer.
   */
  def parquetColumnStore(consumer: org.apache.parquet.io.api.RecordConsumer)
      : Option[org.apache.parquet.column.ColumnWriteStore] =
    consumerColumns.filter(_.getDeclaringClass.isInstance(consumer))
      .map(_.get(consumer).asInstanceOf[org.apache.parquet.column.ColumnWriteStore])

  /** A Parquet file's footer, as Spark's reader reads it, cut by `filter`. */
  def readFooter(file: HadoopInputFile, filter: MetadataFilter): ParquetMetadata =
    shims.ParquetFooterShim.readFooter(file, filter)

  /**
   * The footer filter of one file split, as Spark's Parquet reader builds it: only the row
   * groups that start inside the split.
   */
  def splitFooterFilter(conf: org.apache.hadoop.conf.Configuration, file: PartitionedFile)
      : MetadataFilter = shims.ParquetFooterShim.splitFilter(conf, file)

  /** A reader of the split's file that uses the footer already read instead of reading it again. */
  def openParquetFile(
      input: HadoopInputFile, footer: ParquetMetadata, options: org.apache.parquet.ParquetReadOptions)
      : org.apache.parquet.hadoop.ParquetFileReader =
    shims.ParquetFooterShim.open(input, footer, options)

  /** Whether a scan's vector type (`FileSourceScanExec.vectorTypes`) is Spark's on-heap vector. */
  def isOnHeapVector(vectorType: String): Boolean = vectorType == classOf[OnHeapColumnVector].getName
}
