package org.apache.spark.sql.pysparkext.shims

import pysparkext.{ConfEntry, ExtConf}

/**
 * Features Spark 3.5 cannot carry. It has no VARIANT type (Spark 4.0 added it), so the variant
 * half is not in its jar; the switches stay declared so that a shared configuration works on
 * every line, and are off here whatever is set.
 */
object LineGapsShim {
  /** (what is off, why, the switches it turns off). */
  val gaps: Seq[(String, String, Seq[ConfEntry[Boolean]])] = Seq((
    "shredded VARIANT reads, skipping and writes",
    "Spark 3.5 has no VARIANT type",
    Seq(ExtConf.ShreddedVariant, ExtConf.SpecVariant, ExtConf.VariantSkipping,
      ExtConf.PathReadsBeforeAggregates, ExtConf.SpecLayoutWriter, ExtConf.ColumnarSpecWriter)))
}
