package pysparkext.exec

import org.apache.spark.sql.execution.{FileSourceScanExec, SparkPlan}
import org.apache.spark.sql.pysparkext.SparkInternals

import pysparkext.ExtConf
import pysparkext.parquet.RowGroupCountingParquetFormat
import pysparkext.testing.{SparkRuleSuite, TestFiles}

class InsertRowGroupMetricsSuite extends SparkRuleSuite {
  private def rule = new InsertRowGroupMetrics(spark)

  private def planOf(path: String, where: String): SparkPlan = {
    spark.read.parquet(path).createOrReplaceTempView("scanned")
    spark.sql(s"SELECT id FROM scanned WHERE $where").queryExecution.sparkPlan
  }

  /** The scan under a RowGroupMetrics node, reading through the counting format. */
  private def assertCounted(out: SparkPlan, before: SparkPlan): Unit = {
    val format = out.collectFirst { case s: FileSourceScanExec => s.relation.fileFormat }.get
    assert(format.isInstanceOf[RowGroupCountingParquetFormat])
    comparePlans(out, before.transformUp {
      case s: FileSourceScanExec => RowGroupMetricsExec(SparkInternals.withFileFormat(s, format))
    })
  }

  test("a filtered scan of a shredded variant gets a row group counting node") {
    val before = planOf(TestFiles.draft("draft"), "variant_get(v, '$.a', 'bigint') = 1")
    withConf(ExtConf.RowGroupMetrics.key -> "true")(assertCounted(rule(before), before))
  }

  test("other scans are counted only with allScans; scans without filters never") {
    val before = planOf(TestFiles.users, "u.geo.lat > 1")
    withConf(ExtConf.RowGroupMetrics.key -> "true") {
      assertUnchanged(rule, before)
      withConf(ExtConf.RowGroupMetricsAllScans.key -> "true") {
        assertCounted(rule(before), before)
        assertUnchanged(rule, planOf(TestFiles.users, "true"))
      }
    }
  }

  test("off by default") {
    assertUnchanged(rule, planOf(TestFiles.draft("draft"), "variant_get(v, '$.a', 'bigint') = 1"))
  }
}
