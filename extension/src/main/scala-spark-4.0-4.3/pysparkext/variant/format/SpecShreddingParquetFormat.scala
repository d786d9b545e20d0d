package pysparkext.variant.format

import org.apache.hadoop.mapreduce.Job

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.OutputWriterFactory
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.pysparkext.{SparkInternals, SparkInternalsProbe}
import org.apache.spark.sql.types.{StringType, StructField, StructType}

import pysparkext.ExtConf
import pysparkext.variant.layout.SpecShreddingSchema
import pysparkext.variant.write.columnar.ColumnarSpecWriteSupport

/**
 * Spark's Parquet file format, except that a write shreds each VARIANT column that carries a
 * shredding schema ([[SpecShreddingSchema]]) with exactly that schema, in every file.
 *
 * How Spark 4.3 chooses a variant's shredding (read from its jars): `ParquetUtils.prepareWrite`
 * records the row schema in the job's Hadoop conf (`org.apache.spark.sql.parquet.row.attributes`)
 * and, only with the test conf `spark.sql.variant.forceShreddingSchemaForTest`, a shredding
 * schema (`...parquet.variant.shredding.attributes`, built by `replaceVariantTypes`, which pairs
 * the table's columns with the forced struct's fields: hence its failure beyond three columns).
 * Then, when `spark.sql.variant.writeShredding.enabled` and `inferShreddingSchema` are on and the
 * data has a VARIANT, its factory makes a `ParquetOutputWriterWithVariantShredding`, which buffers
 * each file's first rows, infers a schema and writes it into the task's conf, over whatever the job
 * set; otherwise a plain `ParquetOutputWriter`. `ParquetWriteSupport.init` reads the shredding
 * schema from the task's conf (the row schema when unset) and shreds each variant whose struct is
 * annotated as a shredding struct. So this format lets Spark prepare the write as usual (the row
 * schema, without the marks, goes to the footer as Spark's schema, and the variant logical-type
 * annotation is Spark's), sets the shredding schema of its own, per column, and always makes the
 * plain writer, so nothing infers over it, whatever the session's settings.
 */
class SpecShreddingParquetFormat extends ParquetFileFormat {
  override def prepareWrite(
      sparkSession: SparkSession,
      job: Job,
      options: Map[String, String],
      dataSchema: StructType): OutputWriterFactory = {
    // The format is chosen at analysis because the data carried schemas; data that reaches the
    // write without them (an optimizer rewrite that lost the metadata) must not be written
    // silently in another layout.
    if (!SpecShreddingSchema.hasSchemas(dataSchema)) throw new IllegalStateException(
      "pyspark-ext spec-layout writer: the shredding schemas marked at analysis are no longer on " +
        s"the data written (${dataSchema.catalogString}); nothing was written")
    val shredded = SpecShreddingSchema.writeSchema(dataSchema)
    val spark = super.prepareWrite(sparkSession, job, options, SpecShreddingSchema.strip(dataSchema))
    SparkInternals.setWriteShreddingSchema(shredded, job.getConfiguration)
    val draft = SpecShreddingSchema.draftColumns(dataSchema)
    job.getConfiguration.set(ColumnarSpecWriteSupport.DraftColumnsKey, StructType(draft.map {
      case (name, ddl) => StructField(name, StringType, metadata = SpecShreddingSchema.draftMetadata(ddl))
    }).json)
    // Draft columns arrive as VARIANT: only the column-by-column support writes them (it shreds
    // them itself even where it cannot write a file column by column).
    new PlainParquetWriterFactory(spark, columnar = draft.nonEmpty || (ExtConf.ColumnarSpecWriter.get &&
      SparkInternalsProbe.on(ExtConf.ColumnarSpecWriter)))
  }

  override def toString: String = "Parquet (spec-layout shredding)"
  override def hashCode(): Int = getClass.hashCode()
  override def equals(other: Any): Boolean = other.isInstanceOf[SpecShreddingParquetFormat]
}
