package org.apache.spark.sql.pysparkext

import org.apache.spark.SparkRuntimeException

/**
 * A user-facing data error with a plain message. Spark's error classes are package-private, so
 * this subclass lives under Spark's package (with [[SparkInternals]]); the rest stays in
 * `pysparkext`. Being a SparkThrowable, it reaches PySpark and the SQL shell as a Spark error
 * with just its message, not as a raw JVM stack trace.
 */
class DataError(message: String, cause: Throwable = null)
  extends SparkRuntimeException("_LEGACY_ERROR_TEMP_2273", Map("message" -> message), cause,
    Array.empty, "")
