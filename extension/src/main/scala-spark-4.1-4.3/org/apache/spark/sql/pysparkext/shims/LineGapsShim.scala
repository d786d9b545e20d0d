package org.apache.spark.sql.pysparkext.shims

import pysparkext.ConfEntry

/** Features this Spark line cannot carry: none from 4.1 on. */
object LineGapsShim {
  /** (what is off, why, the switches it turns off). */
  val gaps: Seq[(String, String, Seq[ConfEntry[Boolean]])] = Nil
}
