package pysparkext.parquet

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.hadoop.metadata.{ColumnPath, ParquetMetadata}
import org.apache.parquet.schema.{GroupType, LogicalTypeAnnotation, PrimitiveType, Type}
import org.apache.parquet.schema.LogicalTypeAnnotation.{DecimalLogicalTypeAnnotation, IntLogicalTypeAnnotation}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.pysparkext.shims.VariantHalfShim
import org.apache.spark.sql.types.StructType

/**
 * Each Parquet file's own Spark schema, read from its footer. Both variant layouts allow a
 * different shredding schema in every file, so analysis must look at all of them. Cached by
 * the file's [[FileVersion]] (path, length, modification time), so a file rewritten in place is
 * read again, and by the session settings Spark's schema conversion reads (binary as string,
 * INT96 as timestamp, ...), so sessions that convert differently never share an entry. The cache
 * is [[ParquetFooters]]' one cache, weighed in schema fields.
 *
 * `unsupported` lists, per top-level column, `typed_value` leaves whose Parquet type the variant
 * spec does not allow (unsigned integers, fixed-length binaries other than decimals). Spark's
 * type conversion would read them as some signed or binary type, silently changing the value, so
 * the caller rejects them instead.
 */
object FooterSchemas {
  /**
   * `nullResiduals`: per top-level column (lower case), the paths inside it (Parquet field names,
   * outside lists) of residual binaries (`untyped_value`, `value`) that hold no value in any row
   * of the file, by its row-group statistics.
   */
  final case class FileSchema(
      schema: StructType,
      unsupported: Map[String, String],
      nullResiduals: Map[String, Set[Seq[String]]] = Map.empty)

  private def weigh(s: FileSchema): Int =
    s.schema.map(f => countFields(f.dataType)).sum + s.nullResiduals.values.map(_.size).sum

  private def countFields(t: org.apache.spark.sql.types.DataType): Int = t match {
    case s: StructType => 1 + s.fields.map(f => countFields(f.dataType)).sum
    case a: org.apache.spark.sql.types.ArrayType => 1 + countFields(a.elementType)
    case m: org.apache.spark.sql.types.MapType => 1 + countFields(m.keyType) + countFields(m.valueType)
    case _ => 1
  }

  /**
   * What [[ParquetToSparkSchemaConverter]] reads of the session, besides the variant annotation.
   * Settings that only some Spark lines have are read by key (their value or default), and a
   * line without one reads "".
   */
  private def conversionSettings(sql: SQLConf): Seq[Any] = Seq(
    sql.isParquetBinaryAsString, sql.isParquetINT96AsTimestamp, sql.caseSensitiveAnalysis,
    sql.parquetInferTimestampNTZEnabled, sql.legacyParquetNanosAsLong,
    sql.parquetFieldIdReadEnabled) ++
    LineSpecificConversionSettings.map(k => Try(sql.getConfString(k)).getOrElse(""))

  private val LineSpecificConversionSettings = Seq(
    "spark.sql.timestampNanosTypes.enabled", // 4.3
    "spark.sql.parquet.reader.respectUnknownTypeAnnotation.enabled") // 4.1

  def of(status: FileStatus, conf: Configuration): FileSchema = {
    val file = FileVersion(status.getPath.toString, status.getLen, status.getModificationTime)
    ParquetFooters.cached(file, "schema", conversionSettings(SQLConf.get), weigh)(read(status, conf))
  }

  private def read(status: FileStatus, conf: Configuration): FileSchema = {
    val footer = ParquetFooters.read(status, conf)
    val message = footer.getFileMetaData.getSchema
    // Variant-annotated groups are shown as their physical structs, so the caller sees how each
    // file shreds them.
    val sqlConf = SQLConf.get.clone()
    val schema = VariantHalfShim.footerSchema(message, sqlConf)
    val unsupported = message.getFields.asScala.collect {
      case g: GroupType if !g.isPrimitive => g.getName -> badTypedLeaves(g, g.getName)
    }.collect { case (name, bad) if bad.nonEmpty => name -> bad.mkString("; ") }.toMap
    FileSchema(schema, unsupported, nullResiduals(footer))
  }

  /**
   * Residual binaries with a null count equal to the value count in every row group. Without
   * statistics (or with none for the null count) a column counts as possibly non-null.
   */
  private def nullResiduals(footer: ParquetMetadata): Map[String, Set[Seq[String]]] = {
    val residuals = footer.getFileMetaData.getSchema.getColumns.asScala.filter { d =>
      d.getMaxRepetitionLevel == 0 && d.getPath.length > 1 &&
        d.getPrimitiveType.getPrimitiveTypeName == PrimitiveTypeName.BINARY &&
        VariantHalfShim.isResidualLeaf(d.getPath.last)
    }.map(d => ColumnPath.get(d.getPath: _*))
    if (residuals.isEmpty) return Map.empty
    val chunks = footer.getBlocks.asScala.map(_.getColumns.asScala.map(c => c.getPath -> c).toMap)
    residuals.filter { path =>
      chunks.forall(_.get(path).exists { c =>
        val stats = c.getStatistics
        stats != null && stats.isNumNullsSet && stats.getNumNulls == c.getValueCount
      })
    }.map(_.toArray.toSeq).groupBy(_.head.toLowerCase(java.util.Locale.ROOT))
      .map { case (column, paths) => column -> paths.map(_.tail).toSet }
  }

  private def badTypedLeaves(t: Type, at: String): Seq[String] = t match {
    case p: PrimitiveType if VariantHalfShim.isTypedLeaf(p) => problem(p).map(w => s"$at is $w").toSeq
    case _: PrimitiveType => Nil
    case g: GroupType => g.getFields.asScala.toSeq.flatMap(f => badTypedLeaves(f, s"$at.${f.getName}"))
  }

  private def problem(p: PrimitiveType): Option[String] = {
    val annotation: LogicalTypeAnnotation = p.getLogicalTypeAnnotation
    (p.getPrimitiveTypeName, annotation) match {
      case (_, i: IntLogicalTypeAnnotation) if !i.isSigned => Some(s"an unsigned ${i.getBitWidth}-bit integer")
      case (PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, _: DecimalLogicalTypeAnnotation) => None
      case _ if VariantHalfShim.isRawTypedValue(p) => None
      case (PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, _) =>
        Some(s"a fixed_len_byte_array(${p.getTypeLength}) without a decimal annotation")
      case _ => None
    }
  }
}
