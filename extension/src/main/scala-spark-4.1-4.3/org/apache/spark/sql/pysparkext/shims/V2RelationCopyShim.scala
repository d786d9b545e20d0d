package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/** `DataSourceV2Relation.copy` from Spark 4.1: six fields, the last its time-travel spec. */
object V2RelationCopyShim {
  val signature: String =
    "DataSourceV2Relation.copy(Table, Seq, Option, Option, CaseInsensitiveStringMap, Option)"

  val parameterTypes: Seq[Class[_]] = Seq(classOf[Table], classOf[Seq[_]], classOf[Option[_]],
    classOf[Option[_]], classOf[CaseInsensitiveStringMap], classOf[Option[_]])
}
