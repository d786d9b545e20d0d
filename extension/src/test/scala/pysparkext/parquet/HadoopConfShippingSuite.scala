package pysparkext.parquet

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.pysparkext.HadoopConfShipping

import pysparkext.testing.TestSpark

/** When a scan's Hadoop configuration is broadcast anew, and when a kept broadcast serves it. */
class HadoopConfShippingSuite extends AnyFunSuite {
  private def sc = TestSpark.session.sparkContext

  private def conf(entries: (String, String)*): Configuration = {
    val c = TestSpark.session.sessionState.newHadoopConf()
    entries.foreach { case (k, v) => c.set(k, v) }
    c
  }

  test("a configuration with the same entries reuses the broadcast; one more entry does not") {
    val first = HadoopConfShipping.broadcastOf(sc, conf("fs.test.key" -> "a"))
    assert(HadoopConfShipping.broadcastOf(sc, conf("fs.test.key" -> "a")) eq first)
    val changed = HadoopConfShipping.broadcastOf(sc, conf("fs.test.key" -> "b"))
    assert(changed ne first)
    assert(changed.value.value.get("fs.test.key") == "b")
    assert(HadoopConfShipping.broadcastOf(sc, conf("fs.test.key" -> "a", "fs.other" -> "1")) ne first)
  }

  test("the schema entries Spark's Parquet reader writes per scan do not count") {
    val perScan = HadoopConfShipping.PerScanKeys.toSeq
    val first = HadoopConfShipping.broadcastOf(sc, conf(perScan.map(_ -> "a"): _*))
    assert(HadoopConfShipping.broadcastOf(sc, conf(perScan.map(_ -> "b"): _*)) eq first)
    assert(HadoopConfShipping.broadcastOf(sc, conf()) eq first)
  }

  test("the shipped function returns the configuration's entries") {
    val shipped = HadoopConfShipping.ship(sc, conf("fs.test.shipped" -> "yes"))
    assert(shipped().get("fs.test.shipped") == "yes")
  }

  test("at most MaxKept configurations are kept, the least recently used going first") {
    def nth(i: Int) = conf("fs.test.nth" -> i.toString)
    val first = HadoopConfShipping.broadcastOf(sc, nth(0))
    (1 to HadoopConfShipping.MaxKept).foreach(i => HadoopConfShipping.broadcastOf(sc, nth(i)))
    assert(HadoopConfShipping.broadcastOf(sc, nth(0)) ne first)
    assert(HadoopConfShipping.broadcastOf(sc, nth(HadoopConfShipping.MaxKept)) eq
      HadoopConfShipping.broadcastOf(sc, nth(HadoopConfShipping.MaxKept)))
  }
}
