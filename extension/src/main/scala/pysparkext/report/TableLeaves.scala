package pysparkext.report

import scala.jdk.CollectionConverters._

import org.apache.parquet.hadoop.metadata.ParquetMetadata

import org.apache.spark.sql.pysparkext.shims.VariantHalfShim
import org.apache.spark.sql.types.{StructField, StructType}

import pysparkext.pruning.Need

/**
 * The leaves a table holds, for `explain_read_schema`'s `full_leaves`: a leaf is a primitive
 * column of the files' Parquet schema. A VARIANT column's leaves are those its files store under
 * it (`metadata` and `value`, and every shredded `typed_value` leaf), counted from the footers:
 * the same files give the same count whether Spark reads the column as VARIANT (the extension
 * off, or an unshredded column) or the extension reads its shredded struct. Other columns'
 * leaves are counted from their Spark type, which has one leaf per Parquet column. Paths are
 * counted once across the footers; without footers (other formats), or where the footers hold no
 * column of that name (Delta's column mapping names them otherwise), the Spark type counts.
 */
object TableLeaves {
  def count(full: StructType, footers: Seq[ParquetMetadata]): Int = {
    lazy val paths = footers.flatMap(_.getFileMetaData.getSchema.getColumns.asScala.map(_.getPath.toSeq))
      .distinct.groupBy(_.head.toLowerCase(java.util.Locale.ROOT))
    full.fields.map { f =>
      val stored = if (!isVariant(f)) None else paths.get(f.name.toLowerCase(java.util.Locale.ROOT))
      stored.map(_.length).getOrElse(Need.leafCount(f.dataType))
    }.sum
  }

  private def isVariant(f: StructField): Boolean = VariantHalfShim.isVariantColumn(f)
}
