package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.execution.datasources.HadoopFsRelation

/** `FileSourceScanExec.copy` as Spark 4.3 has it: eleven fields, the last two booleans. */
object FileScanCopyShim {
  val signature: String = "FileSourceScanExec.copy(HadoopFsRelation, Option, Seq, StructType, " +
    "Seq, Option, Option, Seq, Option, boolean, boolean)"

  val parameterTypes: Seq[Class[_]] = Seq(classOf[HadoopFsRelation], classOf[Option[_]],
    classOf[Seq[_]], classOf[org.apache.spark.sql.types.StructType], classOf[Seq[_]],
    classOf[Option[_]], classOf[Option[_]], classOf[Seq[_]], classOf[Option[_]],
    java.lang.Boolean.TYPE, java.lang.Boolean.TYPE)
}
