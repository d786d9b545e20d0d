package pysparkext.formats

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.parquet.schema.{GroupType, Type}
import org.apache.parquet.schema.Type.Repetition

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.{SupportsRead, Table}
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.pysparkext.shims.VariantHalfShim
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import pysparkext.formats.Reflect.{call, callDeclared}
import pysparkext.parquet.{FileVersion, FooterSchemas, ParquetFooters}

/**
 * The data files of an Iceberg relation that Spark's own Parquet reader reads exactly as Iceberg's
 * reader would, and the rest, for Iceberg's reader; or why Iceberg's reader must read all of it.
 *
 * The files are the ones Iceberg itself plans for the relation: the relation's table (its
 * snapshot, branch or tag, time travel included) and read options go to Iceberg's own scan
 * builder, and the data files of the tasks Iceberg's batch plans are the files read.
 *
 * The relation stays whole with Iceberg's reader unless:
 *  - the table has format version 2 or 3 and no name mapping (files without field ids);
 *  - the relation reads no metadata column (`_file`, `_pos`, row lineage...);
 *  - Iceberg plans it as plain data-file tasks (`FileScanTask`).
 *
 * A file is then read by Spark's reader when it is a Parquet file with no delete files of any
 * kind (position, equality, deletion vectors) and no encryption key, that holds every column and
 * nested field of the read schema under the same name and the same Iceberg field id, at the type
 * the table declares as Spark reads it. Matching by name, as Spark's reader, its filter push-down
 * and the extension's footer planning do, is then matching by field id: a renamed field, a dropped
 * and re-added one, a column added after a file was written (which Iceberg fills with null or its
 * default), a partition value the file does not hold, or a promoted type send the file to
 * Iceberg's reader.
 *
 * The other files' tasks, exactly as Iceberg planned them (with their delete files), are staged
 * in Iceberg's scan-task-set manager and read through Iceberg's `SparkRewriteTable`, as Iceberg's
 * own rewrite actions read a set of tasks. That table reads with the table's current schema, so
 * a relation mixes the two readers only when its own schema is the current one, names, types and
 * field ids alike; otherwise (time travel across a schema change) Iceberg's reader reads it all.
 * The set's id is derived from the tasks, so planning the same relation again stages the same
 * set again rather than a new one.
 *
 * Iceberg is not on the extension's build classpath: its public API (`FileScanTask`, `DataFile`,
 * `Schema`, `Types`, the scan-task-set manager) is called by reflection, and any failure to plan
 * or inspect leaves the relation to Iceberg, which then reads it, or fails with its own error.
 */
object IcebergFiles {
  val BatchScanClass = "org.apache.iceberg.spark.source.SparkBatchQueryScan"
  val NameMapping = "schema.name-mapping.default"
  val FormatVersions: Set[String] = Set("2", "3")

  /**
   * What a qualifying relation reads: `files`, each as listed by Hadoop, by Spark's reader, and
   * `iceberg`, the other data files, by Iceberg's.
   */
  final case class Planned(files: Seq[FileStatus], iceberg: Option[IcebergRead])

  /**
   * Data files of a relation read by Iceberg's reader: `table`, Iceberg's table over exactly their
   * staged tasks, read with `options`; `count` of the relation's `of` data files, each kind of
   * reason in `kinds` (for one warning per kind) and each file's reason in `reasons`.
   */
  final case class IcebergRead(
      table: Table,
      options: CaseInsensitiveStringMap,
      count: Int,
      of: Int,
      kinds: Seq[String],
      reasons: Seq[String])

  /** Why a file goes to Iceberg's reader: the `kind` (one warning each) and the sentence naming it. */
  private final case class FileReason(kind: String, reason: String)

  /** Options of the relation that chose its snapshot: a staged read's tasks already did. */
  private val SnapshotOptions = Set("snapshot-id", "as-of-timestamp", "branch", "tag")

  /**
   * The qualifying files of `r`, an Iceberg relation, and the rest for Iceberg's reader; or why
   * Iceberg's reader must read it all.
   */
  def plan(r: DataSourceV2Relation, session: SparkSession): Either[String, Planned] =
    try planChecked(r, session) catch {
      case NonFatal(e) => Left(s"its files could not be planned or inspected ($e)")
    }

  private def planChecked(r: DataSourceV2Relation, session: SparkSession): Either[String, Planned] = {
    val table = r.table
    if (table.getClass.getName != IcebergTables.TableClass) {
      return Left(s"it is read through ${table.getClass.getName}, not Iceberg's plain table")
    }
    val version = Option(table.properties().get("format-version")).getOrElse("none")
    if (!FormatVersions.contains(version)) return Left(s"its format version is $version, not 2 or 3")
    val iceberg = call(table, "table")
    val properties = call(iceberg, "properties").asInstanceOf[java.util.Map[String, String]]
    if (properties.containsKey(NameMapping)) {
      return Left(s"it has a name mapping ($NameMapping): files without field ids are read by names")
    }
    val columns = table.schema().fieldNames.toSeq
    if (r.output.map(_.name) != columns) {
      return Left("the query reads its metadata columns " +
        r.output.map(_.name).filterNot(columns.contains).mkString(", "))
    }
    val scan = table.asInstanceOf[SupportsRead].newScanBuilder(r.options).build()
    if (scan.getClass.getName != BatchScanClass) {
      return Left(s"Iceberg plans it with ${scan.getClass.getName}, not $BatchScanClass")
    }
    // The planned tasks before Iceberg splits them: a staged set must hold whole-file tasks,
    // which Iceberg splits again when it reads them (a split task cannot be split).
    val tasks = callDeclared(scan, "tasks").asInstanceOf[java.util.List[AnyRef]].asScala.toSeq
    val loader = table.getClass.getClassLoader
    val fileTask = Class.forName("org.apache.iceberg.FileScanTask", false, loader)
    tasks.find(t => !fileTask.isInstance(t)).foreach { t =>
      return Left(s"Iceberg plans a ${t.getClass.getName} task")
    }
    val ids = fieldIds(call(callDeclared(scan, "projection"), "asStruct"))
    val conf = session.sessionState.newHadoopConf()
    val byFile = tasks.groupBy(t => call(call(t, "file"), "location").toString).toSeq.sortBy(_._1)
    val judged = byFile.map { case (location, fileTasks) =>
      val file = call(fileTasks.head, "file")
      val format = call(file, "format").toString
      val reason =
        if (format != "PARQUET") Some(FileReason("are not Parquet", s"its data file $location is $format"))
        else if (call(file, "keyMetadata") != null) {
          Some(FileReason("are encrypted", s"its data file $location is encrypted"))
        } else if (fileTasks.exists(t => !call(t, "deletes").asInstanceOf[java.util.List[_]].isEmpty)) {
          Some(FileReason("have delete files (rows Iceberg's reader drops)",
            s"its data file $location has delete files"))
        } else None
      val status = if (reason.isEmpty) {
        val path = new Path(location)
        Some(path.getFileSystem(conf).getFileStatus(path))
      } else None
      val why = reason.orElse(status.flatMap(s => whyNotSameColumns(s, conf, ids, r.schema).map(
        FileReason("hold a column under another name, field id or type than the table's", _))))
      (location, fileTasks, status, why)
    }
    val clean = judged.collect { case (_, _, Some(status), None) => status }
    val others = judged.collect { case (_, fileTasks, _, Some(why)) => fileTasks -> why }
    if (others.isEmpty) return Right(Planned(clean, None))
    val reasons = others.map(_._2)
    def summary = s"${others.size} of its ${judged.size} data files " +
      s"${reasons.map(_.kind).distinct.mkString(" or ")} (${reasons.head.reason})"
    if (clean.isEmpty) return Left(summary)
    whyNotCurrentSchema(r, iceberg, ids).foreach(why => return Left(s"$summary, and $why"))
    val staged = stage(iceberg, others.flatMap(_._1), loader)
    val options = new CaseInsensitiveStringMap(r.options.asCaseSensitiveMap().asScala
      .filter { case (k, _) => !SnapshotOptions.contains(k.toLowerCase(java.util.Locale.ROOT)) }.asJava)
    Right(Planned(clean, Some(IcebergRead(staged, options, others.size, judged.size,
      reasons.map(_.kind).distinct, reasons.map(_.reason)))))
  }

  /**
   * Why the relation's schema is not the table's current one (which a staged read reads with),
   * by name, Spark type or Iceberg field id; None if it is.
   */
  private def whyNotCurrentSchema(r: DataSourceV2Relation, iceberg: AnyRef, ids: Map[Seq[String], Int])
      : Option[String] = {
    val current = fieldIds(call(call(iceberg, "schema"), "asStruct"))
    val sameIds = ids.forall { case (path, id) => current.get(path).contains(id) }
    val currentTypes = sparkSchema(iceberg)
    val sameTypes = r.output.forall(a => currentTypes.get(a.name).contains(a.dataType))
    if (sameIds && sameTypes) None
    else Some("the relation reads a snapshot whose schema is not the table's current one, which " +
      "Iceberg's reader of a set of files reads with")
  }

  /** The table's current schema as Spark types, by column name. */
  private def sparkSchema(iceberg: AnyRef): Map[String, DataType] = {
    val loader = iceberg.getClass.getClassLoader
    val convert = Class.forName("org.apache.iceberg.spark.SparkSchemaUtil", true, loader)
      .getMethod("convert", Class.forName("org.apache.iceberg.Schema", false, loader))
    val struct = convert.invoke(null, call(iceberg, "schema")).asInstanceOf[StructType]
    struct.fields.map(f => f.name -> f.dataType).toMap
  }

  /**
   * Stages `tasks` of `iceberg` in Iceberg's scan-task-set manager, under an id derived from the
   * tasks' data and delete files, and gives Iceberg's Spark table that reads exactly them.
   */
  private def stage(iceberg: AnyRef, tasks: Seq[AnyRef], loader: ClassLoader): Table = {
    // each location length-prefixed, so that no two sets of tasks give one text
    def text(location: String) = s"${location.length}:$location"
    val content = tasks.map { t =>
      (text(call(call(t, "file"), "location").toString) +: call(t, "deletes")
        .asInstanceOf[java.util.List[AnyRef]].asScala.toSeq.map(d => text(call(d, "location").toString)).sorted)
        .mkString(";")
    }.sorted.mkString("/")
    val digest = java.security.MessageDigest.getInstance("SHA-256")
      .digest(content.getBytes(java.nio.charset.StandardCharsets.UTF_8))
    val setId = "pyspark-ext-" + digest.take(12).map("%02x".format(_)).mkString
    val tableClass = Class.forName("org.apache.iceberg.Table", false, loader)
    val manager = Class.forName("org.apache.iceberg.spark.ScanTaskSetManager", true, loader)
    val instance = manager.getMethod("get").invoke(null)
    manager.getMethod("stageTasks", tableClass, classOf[String], classOf[java.util.List[_]])
      .invoke(instance, iceberg, setId, tasks.asJava)
    Class.forName(IcebergTables.StagedTableClass, true, loader).getConstructor(tableClass, classOf[String])
      .newInstance(iceberg, setId).asInstanceOf[Table]
  }

  /**
   * Every field of an Iceberg struct type, at any depth, as its path of names (a list's element
   * `element`, a map's `key` and `value`, as Iceberg's Parquet files name them) to its field id.
   * A VARIANT's inside has no field ids.
   */
  private def fieldIds(struct: AnyRef): Map[Seq[String], Int] = {
    def walk(at: Seq[String], t: AnyRef): Seq[(Seq[String], Int)] = call(t, "typeId").toString match {
      case "STRUCT" => call(t, "fields").asInstanceOf[java.util.List[AnyRef]].asScala.toSeq.flatMap { f =>
        val path = at :+ call(f, "name").toString
        (path -> call(f, "fieldId").asInstanceOf[Int]) +: walk(path, call(f, "type"))
      }
      case "LIST" =>
        val path = at :+ "element"
        (path -> call(t, "elementId").asInstanceOf[Int]) +: walk(path, call(t, "elementType"))
      case "MAP" =>
        Seq("key" -> ("keyId", "keyType"), "value" -> ("valueId", "valueType")).flatMap {
          case (name, (id, tpe)) =>
            val path = at :+ name
            (path -> call(t, id).asInstanceOf[Int]) +: walk(path, call(t, tpe))
        }
      case _ => Nil
    }
    walk(Nil, struct).toMap
  }

  /** Every field of a Parquet file's schema with a field id, as its path (repeated levels left out). */
  private def fileIds(status: FileStatus, conf: Configuration): Map[Seq[String], Int] = {
    def walk(at: Seq[String], t: Type): Seq[(Seq[String], Int)] = {
      val path = if (t.isRepetition(Repetition.REPEATED) && !t.isPrimitive) at else at :+ t.getName
      val own = Option(t.getId).filter(_ => path != at).map(id => path -> id.intValue()).toSeq
      own ++ (if (t.isPrimitive) Nil else t.asGroupType().getFields.asScala.toSeq.flatMap(walk(path, _)))
    }
    val file = FileVersion(status.getPath.toString, status.getLen, status.getModificationTime)
    ParquetFooters.cached[Map[Seq[String], Int]](file, "iceberg-field-ids", (), _.size + 1) {
      val message: GroupType = ParquetFooters.read(status, conf).getFileMetaData.getSchema
      message.getFields.asScala.toSeq.flatMap(walk(Nil, _)).toMap
    }
  }

  /**
   * Why Spark's reader, matching columns by name, would not read `status` as Iceberg does for the
   * read schema `schema` with field ids `ids`; None if it would.
   */
  private def whyNotSameColumns(
      status: FileStatus,
      conf: Configuration,
      ids: Map[Seq[String], Int],
      schema: StructType): Option[String] = {
    val file = status.getPath.toString
    val stored = fileIds(status, conf)
    ids.toSeq.sortBy(_._1.length).collectFirst {
      case (path, id) if !stored.get(path).contains(id) =>
        val column = path.mkString(".")
        stored.get(path) match {
          case Some(other) => s"its data file $file holds a column $column with field id $other, not $id " +
            "(a column dropped and added again)"
          case None => s"its data file $file has no column $column with field id $id (a column renamed " +
            "or added after the file was written)"
        }
    }.orElse {
      val read = FooterSchemas.of(status, conf).schema
      schema.fields.collectFirst(Function.unlift { f =>
        read.fields.find(_.name == f.name) match {
          case Some(g) if sameType(f.dataType, g.dataType) => None
          case Some(g) => Some(s"its data file $file holds column ${f.name} as ${g.dataType.sql}, " +
            s"not ${f.dataType.sql} (a promoted type)")
          case None => Some(s"its data file $file has no column ${f.name}")
        }
      })
    }
  }

  /**
   * Whether a file's type `stored` reads as the table's `declared` (nullability aside); a VARIANT
   * is checked by the variant rules, which read its layout.
   */
  private def sameType(declared: DataType, stored: DataType): Boolean = (declared, stored) match {
    case (v, _) if VariantHalfShim.isVariantType(v) => true
    case (d: StructType, s: StructType) => d.fields.forall(f =>
      s.fields.find(_.name == f.name).exists(g => sameType(f.dataType, g.dataType)))
    case (ArrayType(d, _), ArrayType(s, _)) => sameType(d, s)
    case (MapType(dk, dv, _), MapType(sk, sv, _)) => sameType(dk, sk) && sameType(dv, sv)
    case _ => declared == stored
  }

}
