package pysparkext.exec

import org.apache.spark.sql.catalyst.expressions.{Add, Alias, Literal}
import org.apache.spark.sql.execution.{FileSourceScanExec, ProjectExec, SparkPlan}
import org.apache.spark.sql.pysparkext.SparkInternals
import org.apache.spark.sql.types.IntegerType

import pysparkext.ExtConf
import pysparkext.parquet.LeafColumnsParquetFormat
import pysparkext.testing.{SparkRuleSuite, TestFiles}

class NestedLeavesAsColumnsSuite extends SparkRuleSuite {
  /** The physical plan before the columnar rules, planned without the extension's rewrites. */
  private def planOf(select: String): SparkPlan = withConf(ExtConf.Enabled.key -> "false") {
    spark.read.parquet(TestFiles.nested).selectExpr(select).queryExecution.sparkPlan
  }

  test("a nested field under a projection is read as a top-level column of the scan") {
    val before = planOf("s.a.b + 1 AS x")
    val (x, scan) = before match {
      case ProjectExec(Seq(x: Alias), s: FileSourceScanExec) => (x, s)
      case other => fail(s"expected a projection over the scan, got\n$other")
    }
    val out = NestedLeavesAsColumns(before)
    val node = out.collectFirst { case n: NestedLeafColumnsExec => n }
      .getOrElse(fail(s"no NestedLeafColumns node in\n$out"))
    val leaf = node.leaves.head.attribute
    assert(leaf.dataType == IntegerType)
    val read = node.child.asInstanceOf[FileSourceScanExec]
    assert(read.relation.fileFormat.isInstanceOf[LeafColumnsParquetFormat])
    // Spark's own pruning reads s as struct<a: struct<b>>: the leaf is s's field 0 of field 0.
    val after = ProjectExec(Seq(SparkInternals.withAliasChild(x, Add(leaf, Literal(1)))),
      NestedLeafColumnsExec(SparkInternals.withFileFormat(scan, read.relation.fileFormat), Nil,
        Seq(NestedLeaf(leaf, 0, Seq(0, 0)))))
    comparePlans(out, after)
  }

  test("a struct read whole is left to the scan") {
    assertUnchanged(NestedLeavesAsColumns, planOf("s"))
  }

  test("nothing changes with the switch off") {
    val before = planOf("s.a.b + 1 AS x")
    withConf(ExtConf.NestedLeavesAsColumns.key -> "false")(assertUnchanged(NestedLeavesAsColumns, before))
  }
}
