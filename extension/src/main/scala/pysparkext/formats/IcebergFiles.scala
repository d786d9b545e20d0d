package pysparkext.formats

import java.lang.reflect.Method

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.parquet.schema.{GroupType, Type}
import org.apache.parquet.schema.Type.Repetition

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.SupportsRead
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.pysparkext.shims.VariantHalfShim
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import pysparkext.parquet.{FileVersion, FooterSchemas, ParquetFooters}

/**
 * The data files of an Iceberg relation, when Spark's own Parquet reader reads them exactly as
 * Iceberg's reader would; otherwise why not.
 *
 * The files are the ones Iceberg itself plans for the relation: the relation's table (its
 * snapshot, branch or tag, time travel included) and read options go to Iceberg's own scan
 * builder, and the data files of the tasks Iceberg's batch plans are the files read. Every task
 * must qualify, or the whole relation stays with Iceberg's reader:
 *  - a plain data-file task (`FileScanTask`) of a Parquet file, with no delete files of any kind
 *    (position, equality, deletion vectors) and no encryption key;
 *  - the table has format version 2 or 3 and no name mapping (files without field ids);
 *  - the relation reads no metadata column (`_file`, `_pos`, row lineage...);
 *  - every file holds every column and nested field of the read schema under the same name and
 *    the same Iceberg field id, at the type the table declares as Spark reads it. Then matching
 *    by name, as Spark's reader, its filter push-down and the extension's footer planning do, is
 *    matching by field id: a renamed field, a dropped and re-added one, a column added after a
 *    file was written (which Iceberg fills with null or its default), a partition value the file
 *    does not hold, or a promoted type all send the relation to Iceberg's reader.
 *
 * Iceberg is not on the extension's build classpath: its public API (`FileScanTask`, `DataFile`,
 * `Schema`, `Types`) is called by reflection, and any failure to plan or inspect leaves the
 * relation to Iceberg, which then reads it, or fails with its own error.
 */
object IcebergFiles {
  val BatchScanClass = "org.apache.iceberg.spark.source.SparkBatchQueryScan"
  val NameMapping = "schema.name-mapping.default"
  val FormatVersions: Set[String] = Set("2", "3")

  /** The files of a qualifying relation, each as listed by Hadoop. */
  final case class Planned(files: Seq[FileStatus])

  /** The qualifying files of `r`, an Iceberg relation, or why Iceberg's reader must read it. */
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
    val partitions = scan.toBatch.planInputPartitions().toSeq
    val tasks = partitions.flatMap { p =>
      call(call(p, "taskGroup"), "tasks").asInstanceOf[java.util.Collection[AnyRef]].asScala
    }
    val fileTask = Class.forName("org.apache.iceberg.FileScanTask", false, table.getClass.getClassLoader)
    val locations = scala.collection.mutable.TreeSet.empty[String]
    val withDeletes = scala.collection.mutable.TreeSet.empty[String]
    tasks.foreach { task =>
      if (!fileTask.isInstance(task)) return Left(s"Iceberg plans a ${task.getClass.getName} task")
      val file = call(task, "file")
      val location = call(file, "location").toString
      if (call(file, "format").toString != "PARQUET") {
        return Left(s"its data file $location is ${call(file, "format")}, not Parquet")
      }
      if (call(file, "keyMetadata") != null) return Left(s"its data file $location is encrypted")
      if (!call(task, "deletes").asInstanceOf[java.util.List[_]].isEmpty) withDeletes += location
      locations += location
    }
    if (withDeletes.nonEmpty) {
      return Left(s"${withDeletes.size} of its ${locations.size} data files have delete files (rows " +
        "Iceberg's reader drops)")
    }
    val schema = partitions.headOption.map(p => call(p, "projection"))
    val ids = schema.map(s => fieldIds(call(s, "asStruct"))).getOrElse(Map.empty)
    val conf = session.sessionState.newHadoopConf()
    val files = locations.toSeq.map { l =>
      val path = new Path(l)
      path.getFileSystem(conf).getFileStatus(path)
    }
    files.foreach { status =>
      whyNotSameColumns(status, conf, ids, r.schema).foreach(reason => return Left(reason))
    }
    Right(Planned(files))
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

  private def call(target: AnyRef, method: String): AnyRef = {
    val m: Method = findMethod(target.getClass, method)
    m.invoke(target)
  }

  /** A public method by name, reached through a public type if the class itself is not public. */
  private def findMethod(cls: Class[_], name: String): Method = {
    val m = cls.getMethod(name)
    if (!java.lang.reflect.Modifier.isPublic(m.getDeclaringClass.getModifiers)) m.setAccessible(true)
    m
  }
}
