package pysparkext.testing

import org.apache.spark.sql.SparkSession

/** Small Parquet files the file-relation suites read, written once per JVM. */
object TestFiles {
  private def written(name: String)(write: String => Unit): String = synchronized {
    val path = TestSpark.dir.resolve(name).toString
    if (!new java.io.File(path).exists()) write(path)
    path
  }

  private def spark: SparkSession = TestSpark.session

  /** `id: bigint, u: struct<name, geo: struct<city, lat, lon>>`, three rows. */
  lazy val users: String = written("users") { p =>
    spark.range(3).selectExpr("id", "named_struct('name', concat('n', id), 'geo', named_struct(" +
      "'city', concat('c', id), 'lat', cast(id AS double), 'lon', 0d)) AS u").write.parquet(p)
  }

  /** `s: struct<a: struct<b: int, c: string>>`, three rows. */
  lazy val nested: String = written("nested") { p =>
    spark.range(3).selectExpr(
      "named_struct('a', named_struct('b', cast(id AS int), 'c', concat('c', id))) AS s").write.parquet(p)
  }

  /**
   * `id: bigint, v` in the draft layout, `{"a": <bigint>}` shredded: `v.object.a.typed_value`,
   * every residual null. `typed` is the type `a` is shredded as.
   */
  def draft(name: String, typed: String = "bigint", ids: Seq[Int] = Seq(0, 1, 2)): String =
    written(name) { p => draftRows(typed, ids).write.parquet(p) }

  def draftRows(typed: String, ids: Seq[Int]) =
    spark.range(ids.min.toLong, ids.max.toLong + 1).selectExpr("id",
      "named_struct('untyped_value', cast(NULL AS binary), 'object', named_struct('a', " +
        s"named_struct('untyped_value', cast(NULL AS binary), 'typed_value', cast(id AS $typed)))) AS v")
      .coalesce(1)
}
