package pysparkext.formats

import scala.util.control.NonFatal

import org.apache.spark.SparkEnv
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.datasources.{FileFormat, HadoopFsRelation}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.StructType

/**
 * DataFusion Comet beside the extension, known by class and setting names only (Comet is not on
 * the extension's build classpath).
 *
 * Comet replaces a `FileSourceScanExec` whose format is exactly Spark's `ParquetFileFormat` by its
 * native scan (`CometNativeScanExec`), which reads the scan's `requiredSchema`: the read schema
 * the extension's nested pruning narrowed. It leaves scans through any subclass of that format to
 * Spark, which is what keeps the extension's shredded VARIANT reads (and a table format's reads)
 * on Spark's reader. The extension's physical rewrites that give a plain Parquet scan one of its
 * own formats ([[pysparkext.exec.NestedLeavesAsColumns]]' leaf reader,
 * [[pysparkext.exec.InsertRowGroupMetrics]]) would so take such a scan away from Comet where
 * they run first (plans without an exchange, which Spark plans without adaptive execution). They
 * step aside for the scans Comet would take: [[takesParquetScans]].
 */
object Comet {
  val ExtensionClass = "org.apache.comet.CometSparkSessionExtensions"
  private val ShuffleManagerClass = "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager"
  private val ScanClasses = Set(
    "org.apache.spark.sql.comet.CometNativeScanExec", "org.apache.spark.sql.comet.CometScanExec")

  /** Whether Comet's session extension is registered (its plugin adds it when the context starts). */
  def loaded: Boolean = {
    val env = SparkEnv.get
    env != null && env.conf.get("spark.sql.extensions", "").split(",").map(_.trim).contains(ExtensionClass)
  }

  /**
   * Whether Comet replaces this session's scans through Spark's own `ParquetFileFormat` by its
   * native scan: its extension is loaded and its settings let it (as Comet 1.2's `CometScanRule`
   * reads them). Comet may still leave a scan to Spark for its own reasons (a type it does not
   * read); such a scan then runs as stock Spark plans it.
   */
  def takesParquetScans(conf: SQLConf = SQLConf.get): Boolean = {
    def on(key: String) = conf.getConfString(key, "true").trim.equalsIgnoreCase("true")
    loaded && on("spark.comet.enabled") && on("spark.comet.scan.enabled") &&
      on("spark.comet.exec.enabled") && conf.parquetVectorizedReaderEnabled &&
      (!on("spark.comet.shuffle.enabled") ||
        conf.getConfString("spark.shuffle.manager", "").contains(ShuffleManagerClass))
  }

  /** Whether Comet would read a scan through `format` natively: Spark's own Parquet format only. */
  def readsFormat(format: FileFormat): Boolean =
    format != null && format.getClass == classOf[ParquetFileFormat]

  /** A Comet file scan: (node, relation, read schema, data filters, table). */
  object Scan {
    def unapply(plan: SparkPlan)
        : Option[(SparkPlan, HadoopFsRelation, StructType, Seq[Expression], Option[TableIdentifier])] =
      if (!ScanClasses.contains(plan.getClass.getName)) None
      else try {
        def field[T](name: String): T = Reflect.call(plan, name).asInstanceOf[T]
        Option(field[HadoopFsRelation]("relation")).map(relation => (plan, relation,
          field[StructType]("requiredSchema"), field[Seq[Expression]]("dataFilters"),
          field[Option[TableIdentifier]]("tableIdentifier")))
      } catch {
        case NonFatal(_) => None  // another Comet release: the scan is not reported
      }
  }

  /** The bytes Comet's native scan read from storage, as its `bytes_scanned` metric counts them. */
  def bytesScanned(plan: SparkPlan): Option[SQLMetric] = plan.metrics.get("bytes_scanned")
}
