package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.sources.BaseRelation

/** `LogicalRelation.copy` on Spark 3.5: four fields (4.0 added the stream source). */
object LogicalRelationCopyShim {
  val signature: String = "LogicalRelation.copy(BaseRelation, Seq, Option, boolean)"

  val parameterTypes: Seq[Class[_]] = Seq(classOf[BaseRelation], classOf[Seq[_]],
    classOf[Option[_]], java.lang.Boolean.TYPE)
}
