package org.apache.spark.sql.pysparkext.shims

import org.apache.spark.sql.sources.BaseRelation

/** `LogicalRelation.copy` on Spark 4.x: five fields, the stream source last. */
object LogicalRelationCopyShim {
  val signature: String = "LogicalRelation.copy(BaseRelation, Seq, Option, boolean, Option)"

  val parameterTypes: Seq[Class[_]] = Seq(classOf[BaseRelation], classOf[Seq[_]],
    classOf[Option[_]], java.lang.Boolean.TYPE, classOf[Option[_]])
}
