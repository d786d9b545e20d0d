package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.connector.catalog.Table
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/** `DataSourceV2Relation.copy` on Spark 3.5 and 4.0: five fields. */
object V2RelationCopyShim {
  val signature: String =
    "DataSourceV2Relation.copy(Table, Seq, Option, Option, CaseInsensitiveStringMap)"

  val parameterTypes: Seq[Class[_]] = Seq(classOf[Table], classOf[Seq[_]], classOf[Option[_]],
    classOf[Option[_]], classOf[CaseInsensitiveStringMap])
}
