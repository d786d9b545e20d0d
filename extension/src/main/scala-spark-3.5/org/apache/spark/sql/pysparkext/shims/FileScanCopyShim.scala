package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.execution.datasources.HadoopFsRelation

/** `FileSourceScanExec.copy` on Spark 3.5: nine fields (no stream source), the last one boolean. */
object FileScanCopyShim {
  val signature: String = "FileSourceScanExec.copy(HadoopFsRelation, Seq, StructType, Seq, " +
    "Option, Option, Seq, Option, boolean)"

  val parameterTypes: Seq[Class[_]] = Seq(classOf[HadoopFsRelation], classOf[Seq[_]],
    classOf[org.apache.spark.sql.types.StructType], classOf[Seq[_]], classOf[Option[_]],
    classOf[Option[_]], classOf[Seq[_]], classOf[Option[_]], java.lang.Boolean.TYPE)
}
