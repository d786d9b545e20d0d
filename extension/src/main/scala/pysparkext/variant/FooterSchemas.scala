package pysparkext.variant

import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.FileStatus
import org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.parquet.hadoop.util.HadoopInputFile

import org.apache.spark.sql.execution.datasources.parquet.{ParquetFooterReader, ParquetToSparkSchemaConverter}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

/**
 * Each Parquet file's own Spark schema, read from its footer. The draft layout allows a
 * different shredding schema in every file, so analysis must look at all of them. Cached by
 * path, length and modification time, so a rewritten file is read again.
 */
object FooterSchemas {
  private val MaxEntries = 100000
  private val cache = new ConcurrentHashMap[(String, Long, Long), StructType]()

  def of(status: FileStatus, conf: Configuration): StructType = {
    val key = (status.getPath.toString, status.getLen, status.getModificationTime)
    val hit = cache.get(key)
    if (hit != null) return hit
    val footer = ParquetFooterReader.readFooter(
      HadoopInputFile.fromStatus(status, conf), ParquetMetadataConverter.SKIP_ROW_GROUPS)
    val schema = new ParquetToSparkSchemaConverter(SQLConf.get)
      .convert(footer.getFileMetaData.getSchema)
    if (cache.size > MaxEntries) cache.clear()
    cache.put(key, schema)
    schema
  }
}
