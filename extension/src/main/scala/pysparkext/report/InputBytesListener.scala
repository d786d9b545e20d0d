package pysparkext.report

import java.util.concurrent.atomic.AtomicLong

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.FileSystem
import org.apache.spark.SparkContext
import org.apache.spark.scheduler.{SparkListener, SparkListenerJobEnd, SparkListenerTaskEnd}

/**
 * Sums the bytes that tasks read from their input (Spark's task input metrics) and counts the
 * jobs that ended, so a benchmark can read what one query scanned. Listener events arrive
 * asynchronously: wait until [[jobsEnded]] reaches the jobs the query ran before reading.
 */
class InputBytesListener extends SparkListener {
  private val bytes = new AtomicLong
  private val records = new AtomicLong
  private val jobs = new AtomicLong

  override def onTaskEnd(taskEnd: SparkListenerTaskEnd): Unit = {
    val metrics = taskEnd.taskMetrics
    if (metrics != null) {
      bytes.addAndGet(metrics.inputMetrics.bytesRead)
      records.addAndGet(metrics.inputMetrics.recordsRead)
    }
  }

  override def onJobEnd(jobEnd: SparkListenerJobEnd): Unit = jobs.incrementAndGet()

  def bytesRead: Long = bytes.get
  def recordsRead: Long = records.get
  def jobsEnded: Long = jobs.get
  def reset(): Unit = { bytes.set(0); records.set(0); jobs.set(0) }
}

object InputBytesListener {
  /**
   * Bytes read through Hadoop file systems by this JVM so far. In local mode the executors run in
   * the driver's JVM, so the difference across a query is what its scans read from storage.
   */
  def fileSystemBytesRead(): Long = FileSystem.getAllStatistics.asScala.map(_.getBytesRead).sum

  def install(sc: SparkContext): InputBytesListener = {
    val listener = new InputBytesListener
    sc.addSparkListener(listener)
    listener
  }
}
