package pysparkext.variant.write.columnar

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.parquet.column.ColumnWriteStore
import org.apache.parquet.hadoop.api.WriteSupport
import org.apache.parquet.hadoop.api.WriteSupport.{FinalizedWriteContext, WriteContext}
import org.apache.parquet.io.ColumnIOFactory
import org.apache.parquet.io.api.RecordConsumer
import org.apache.parquet.schema.MessageType

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.{DataType, StructType, VariantType}
import org.apache.spark.types.variant.VariantSchema

import pysparkext.variant.expressions.ShredDraftVariant
import pysparkext.variant.layout.{ShreddingSchema, SpecShreddingSchema}

/**
 * The spec-layout writer's Parquet write support: Spark's own `ParquetWriteSupport` decides the
 * file (its schema, its footer metadata, and every column but the top-level shredded ones), and
 * each top-level VARIANT column with a shredding schema is written column by column
 * ([[SpecColumnWriter]]; in the draft layout, [[DraftColumnWriter]]).
 *
 * Why: Spark's path shreds a value into an `InternalRow` per level and writes it field by field
 * through Parquet's `RecordConsumer`, which tracks at every level which fields were written; for
 * a schema of some twenty leaves that is about a fifth of a write. The values are shredded by
 * Spark's rules ([[SpecShredder.typed]]), so the files hold what Spark's shredding writer writes with
 * that schema, value for value.
 *
 * How it shares the file with Spark's support: Parquet builds one set of column writers for the
 * file (a `ColumnWriteStore`) and hands the write support a record consumer over it. The shredded
 * columns are written into those column writers directly. A second `ParquetWriteSupport`, set up
 * for the other columns only (a VARIANT shredded inside a struct among them: Spark's support
 * shreds it), writes them through a record consumer over the same store, whose end of message ends
 * the row. Where this cannot apply (no top-level shredded column, a typed leaf the column writer
 * does not handle, a record consumer that is not Parquet's own, a write that rebases old dates and
 * timestamps: `LEGACY` or `EXCEPTION` rebase modes), Spark's support writes the whole file, as
 * before, and that is logged. A file written column by column says so in its footer
 * ([[FooterKey]]).
 */
class ColumnarSpecWriteSupport extends WriteSupport[InternalRow] with Logging {
  import ColumnarSpecWriteSupport._

  private val spark = SparkInternals.parquetWriteSupport()
  private var plan: Plan = _
  private var columns: Array[Column] = _
  private var rest: WriteSupport[InternalRow] = _
  private var restConsumer: RecordConsumer = _
  private var restRow: SparkInternals.ProjectedRow = _
  private var store: ColumnWriteStore = _
  private var conf: Configuration = _
  // Where the file is written row by row but has draft columns: they are shredded into rows first.
  private var draftRows: InternalRow => InternalRow = _

  override def getName: String = spark.getName

  override def init(conf: Configuration): WriteContext = {
    val context = spark.init(conf)
    this.conf = conf
    plan = ColumnarSpecWriteSupport.plan(conf, context.getSchema).orNull
    if (plan != null && plan.rest.nonEmpty) {
      val restConf = new Configuration(conf)
      restConf.set(SparkInternals.parquetRowSchemaKey, StructType(plan.rest.map(_.row)).json)
      restConf.set(SparkInternals.parquetShreddingSchemaKey, StructType(plan.rest.map(_.written)).json)
      rest = SparkInternals.parquetWriteSupport()
      plan = plan.copy(restSchema = rest.init(restConf).getSchema)
    }
    context
  }

  override def prepareForWrite(consumer: RecordConsumer): Unit = {
    store = if (plan == null) null else SparkInternals.parquetColumnStore(consumer).orNull
    if (store == null) {
      if (plan != null) logWarning("pyspark-ext spec-layout writer: Parquet's record consumer " +
        s"(${consumer.getClass.getName}) does not expose its column writers; Spark's write support " +
        "writes this file row by row")
      plan = null
      draftRows = ColumnarSpecWriteSupport.draftRows(conf).orNull
      spark.prepareForWrite(consumer)
      return
    }
    columns = (plan.drafts.map(d => Column(d.ordinal,
      new DraftColumnWriter(plan.message, d.name, d.shredding, store))) ++
      plan.shredded.map(c => Column(c.ordinal, new SpecColumnWriter(plan.message, c.name, c.schema, store)))).toArray
    if (rest != null) {
      restConsumer = new ColumnIOFactory(false).getColumnIO(plan.restSchema).getRecordWriter(store)
      rest.prepareForWrite(restConsumer)
      restRow = SparkInternals.projectedRow(StructType(plan.rest.map(_.row)), plan.rest.map(_.ordinal))
    }
  }

  override def write(row: InternalRow): Unit = {
    if (plan == null) return spark.write(if (draftRows == null) row else draftRows(row))
    var i = 0
    while (i < columns.length) {
      val c = columns(i)
      if (row.isNullAt(c.ordinal)) c.writer.writeNull() else c.writer.write(row.getVariant(c.ordinal))
      i += 1
    }
    if (rest != null) {
      restRow.project(row)
      rest.write(restRow) // its end of message ends the row in the shared store
      // Parquet's consumer may hold back the nulls of whole groups until a later value; written
      // now, none is left over when Parquet closes a row group after this row.
      restConsumer.flush()
    } else store.endRecord()
  }

  override def finalizeWrite(): FinalizedWriteContext = {
    val spark = this.spark.finalizeWrite()
    if (plan == null) spark
    else new FinalizedWriteContext((spark.getExtraMetaData.asScala ++
      Map(FooterKey -> (plan.shredded.map(_.name) ++ plan.drafts.map(_.name)).mkString(","))).asJava)
  }
}

object ColumnarSpecWriteSupport extends Logging {
  /** Footer key of a file written column by column: its value names the columns so written. */
  val FooterKey = "pyspark_ext.columnarShreddedColumns"

  /** The conf key of the top-level columns to write in the draft layout (a struct's JSON, marked). */
  val DraftColumnsKey = "pyspark_ext.writer.draftColumns"

  final case class Shredded(name: String, ordinal: Int, schema: VariantSchema)
  final case class Draft(name: String, ordinal: Int, shredding: DataType)
  /** A column Spark's support writes: as the row schema has it, and as it is written. */
  final case class Other(row: org.apache.spark.sql.types.StructField,
                         written: org.apache.spark.sql.types.StructField, ordinal: Int)
  final case class Column(ordinal: Int, writer: VariantColumnWriter)

  /** What one file's write does column by column, and the file's Parquet schema. */
  final case class Plan(message: MessageType, shredded: Seq[Shredded], drafts: Seq[Draft],
                        rest: Seq[Other], restSchema: MessageType = null)

  private def struct(json: String): StructType = DataType.fromJson(json).asInstanceOf[StructType]

  private def draftColumns(conf: Configuration): Seq[(String, String)] =
    Option(conf.get(DraftColumnsKey)).map(json => SpecShreddingSchema.draftColumns(struct(json)))
      .getOrElse(Nil)

  /** The plan for a task's conf, or None (logged) where Spark's support writes the file. */
  def plan(conf: Configuration, message: MessageType): Option[Plan] = {
    def no(reason: String): Option[Plan] = {
      logInfo(s"pyspark-ext spec-layout writer: $reason; the file is written row by row")
      None
    }
    (Option(conf.get(SparkInternals.parquetRowSchemaKey)),
      Option(conf.get(SparkInternals.parquetShreddingSchemaKey))) match {
      case (Some(rowJson), Some(writtenJson)) =>
        val (row, written) = (struct(rowJson), struct(writtenJson))
        if (row.length != written.length) return no("the row and shredding schemas differ in width")
        val draftDdl = draftColumns(conf).toMap
        val drafts = row.fields.indices.filter(i => draftDdl.contains(row(i).name))
          .map(i => Draft(row(i).name, i, ShreddingSchema.parse(draftDdl(row(i).name))))
        val shredded = written.fields.indices.filter(i => written(i).dataType match {
          case s: StructType => SparkInternals.isVariantShreddingStruct(s)
          case _ => false
        })
        if (shredded.isEmpty && drafts.isEmpty) return no("no top-level shredded column")
        // Spark's writer rebases old dates and timestamps (or refuses them) under these modes;
        // the column writers write values as they are, so those files go Spark's way.
        val rebased = Seq(SQLConf.PARQUET_REBASE_MODE_IN_WRITE, SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE)
          .map(c => s"${c.key}=${conf.get(c.key, c.defaultValueString)}")
          .filterNot(_.toUpperCase(java.util.Locale.ROOT).endsWith("=CORRECTED"))
        if (rebased.nonEmpty) return no(s"dates and timestamps are rebased on write (${rebased.mkString(", ")})")
        val columns = shredded.map(i =>
          Shredded(written(i).name, i, SparkInternals.buildVariantSchema(written(i).dataType)))
        val others = row.fields.indices.filterNot(i => shredded.contains(i) || drafts.exists(_.ordinal == i))
        try {
          // Every leaf is checked before the file is written.
          columns.foreach(c => new SpecColumnWriter(message, c.name, c.schema, ParquetLeaves.Dry))
          drafts.foreach(d => new DraftColumnWriter(message, d.name, d.shredding, ParquetLeaves.Dry))
          Some(Plan(message, columns, drafts, others.map(i => Other(row(i), written(i), i))))
        } catch {
          case u: ShreddedLeafWriters.Unsupported => no(u.getMessage)
        }
      case _ => no("no shredding schema in the task's conf")
    }
  }

  /**
   * For a file written row by row: each draft column (a VARIANT in the rows) shredded into its
   * draft struct by `shred_variant(v, 'schema')` itself, the row's other fields as they are.
   * None when the write has no draft column.
   */
  def draftRows(conf: Configuration): Option[InternalRow => InternalRow] = {
    val drafts = draftColumns(conf).toMap
    val rowJson = conf.get(SparkInternals.parquetRowSchemaKey)
    if (drafts.isEmpty || rowJson == null) return None
    val row = struct(rowJson)
    val fields = row.fields.zipWithIndex.map { case (f, i) =>
      drafts.get(f.name) match {
        case Some(ddl) =>
          val shred = ShredDraftVariant(
            org.apache.spark.sql.catalyst.expressions.BoundReference(i, VariantType, nullable = true), ddl)
          (r: InternalRow) => shred.eval(r)
        case None =>
          val t = f.dataType
          (r: InternalRow) => r.get(i, t)
      }
    }
    Some(r => new org.apache.spark.sql.catalyst.expressions.GenericInternalRow(fields.map(_(r))))
  }
}
