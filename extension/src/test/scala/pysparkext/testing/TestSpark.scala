package pysparkext.testing

import java.nio.file.{Files, Path}

import org.apache.spark.sql.SparkSession

import pysparkext.PySparkExtSessionExtensions

/**
 * One local Spark session for every suite in the JVM, with the extension installed (its rules
 * turn draft files into VARIANT columns, and physical plans of those hold the expressions the
 * physical rules rewrite). Suites whose rules need a file relation write small Parquet files into
 * [[dir]] and take plans from it; the rule under test is still applied by hand, to a plan taken
 * before Spark would run it (the unanalysed relation, `queryExecution.sparkPlan`).
 */
object TestSpark {
  lazy val session: SparkSession = {
    val s = SparkSession.builder()
      .master("local[1]")
      .appName("pyspark-ext rule suites")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "1")
      .config("spark.sql.adaptive.enabled", "false")
      .config("spark.sql.extensions", classOf[PySparkExtSessionExtensions].getName)
      .config("spark.pyspark_ext.strict", "true")
      .getOrCreate()
    sys.addShutdownHook(s.stop())
    s
  }

  lazy val dir: Path = {
    val d = Files.createTempDirectory("pyspark_ext_suites_")
    sys.addShutdownHook(deleteRecursively(d.toFile))
    d
  }

  private def deleteRecursively(f: java.io.File): Unit = {
    Option(f.listFiles).foreach(_.foreach(deleteRecursively))
    f.delete()
  }
}

/** A suite that takes plans from the shared local session. */
abstract class SparkRuleSuite extends RuleSuite {
  lazy val spark: SparkSession = TestSpark.session
}
