package org.apache.spark.sql.pysparkext.shims

import pysparkext.{ConfEntry, ExtConf}

/**
 * Features Spark 4.0 cannot carry. Spark 4.0 reads and writes shredded variants differently from
 * 4.1+: its own Parquet reader cannot read a shredded VARIANT (`INVALID_VARIANT_FROM_PARQUET`),
 * it writes no Parquet VARIANT annotation, and it has no `:` path syntax. The variant half is not
 * verified against it, so it stays off there and those queries run as stock Spark 4.0 plans them.
 */
object LineGapsShim {
  /** (what is off, why, the switches it turns off). */
  val gaps: Seq[(String, String, Seq[ConfEntry[Boolean]])] = Seq((
    "shredded VARIANT reads, skipping and writes",
    "Spark 4.0 reads and writes shredded variants differently from 4.1 and later",
    Seq(ExtConf.ShreddedVariant, ExtConf.SpecVariant, ExtConf.VariantSkipping,
      ExtConf.PathReadsBeforeAggregates, ExtConf.SpecLayoutWriter, ExtConf.ColumnarSpecWriter)))
}
