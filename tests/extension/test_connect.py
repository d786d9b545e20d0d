"""The extension behind a Spark Connect server.

A module fixture starts ``start-connect-server.sh`` (shipped inside pyspark) with the settings
``python -m pyspark_ext conf --connect-server`` prints, and a client connects with
a Spark Connect client (``builder.remote``). Over Connect the client writes the tables (the draft layout with
``pyspark_ext.shred`` on a Connect DataFrame), then runs a pruned nested query, skipped variant
filters in both layouts, a draft-layout read and shredding-schema inference; each result must
equal the extension-off result, and ``explain_read_schema`` of a Connect DataFrame (SQL and
DataFrame API, through the server's relation plugin) must equal the classic report for the same
files.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import pyspark_ext
from pyspark_ext.data import adtech
from pyspark_ext.settings import ROW_GROUP_METRICS, STRICT
from pyspark_ext.spark_shredding import spark_shredding
from tests.support.deployments import checks
from tests.support.deployments.connect_server import connect_server
from tests.support.differential import ENABLED, confs

pytestmark = [pytest.mark.connect, pytest.mark.subprocess]

ROOT = Path(__file__).resolve().parents[2]
LAYOUTS = ("draft", "spec")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    settings = {**pyspark_ext.connect_server_confs(), STRICT: "true",
                "spark.sql.shuffle.partitions": "2", "spark.driver.memory": "1g",
                ROW_GROUP_METRICS: "true"}
    with connect_server(settings, tmp_path_factory.mktemp("connect")) as port:
        yield port


@pytest.fixture(scope="module")
def remote(server):
    # pyspark's SparkSession.builder.remote refuses to start beside the classic test session
    # (SESSION_ALREADY_EXIST) and would mark the whole process as a Connect client; the Connect
    # client's own builder makes the same session without either.
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession
    session = RemoteSparkSession.builder.remote(f"sc://localhost:{server}").create()
    yield session
    session.stop()


@pytest.fixture(scope="module")
def classic(spark):
    """A classic session of its own: the module's temp views (``events``...) must not replace the
    other modules'."""
    return spark.newSession()


@pytest.fixture(scope="module")
def tables(remote, classic, tmp_path_factory) -> Path:
    """Written over Connect; registered as views in the Connect session and in the classic one."""
    base = tmp_path_factory.mktemp("connect_data")
    adtech.write_events(remote, str(base / "events"), rows=400, payload_width=8, partitions=2)
    source = checks.source(remote)
    checks._write(source, str(base / "source"))
    checks._write(pyspark_ext.shred(source, "v", checks.DRAFT_SCHEMA), str(base / "draft"))
    with spark_shredding(remote, True, checks.SPEC_SCHEMA):
        checks._write(source, str(base / "spec"))
    for session in (remote, classic):
        session.read.parquet(str(base / "events")).createOrReplaceTempView("events")
        session.read.parquet(str(base / "source")).createOrReplaceTempView("source")
        for layout in LAYOUTS:
            session.read.schema("rid BIGINT, v VARIANT").parquet(str(base / layout)) \
                .createOrReplaceTempView(layout)
    return base


def _rows(session, sql: str, enabled: bool = True) -> list[str]:
    with confs(session, {ENABLED: str(enabled).lower()}):
        return sorted(repr(tuple(r)) for r in session.sql(sql).collect())


def test_cli_prints_the_server_settings():
    out = subprocess.run([sys.executable, "-m", "pyspark_ext", "conf", "--connect-server"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout.splitlines()
    settings = dict(line.split("=", 1) for line in out)
    assert settings == pyspark_ext.connect_server_confs()
    assert settings["spark.connect.extensions.relation.classes"] == \
        "pysparkext.connect.ExplainReadSchemaPlugin"
    assert settings["spark.sql.extensions"] == pyspark_ext.EXTENSION_CLASS


def test_the_client_is_a_connect_session(remote, tables):
    from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
    df = remote.sql("SELECT 1")
    assert isinstance(df, ConnectDataFrame) and not hasattr(df, "_jdf")


def test_pruned_nested_query(remote, classic, tables):
    # stock Spark reads whole view structs for the lambda; the extension reads their ts
    where = "exists(page.views, v -> v.ts % 7 = 0)"
    sql = f"SELECT id, user.geo.city FROM events WHERE {where}"
    rows = _rows(remote, sql)
    assert rows and rows == _rows(remote, sql, enabled=False)
    read = "struct<id:bigint,user:struct<geo:struct<city:string>>,page:struct<views:array<struct<ts:bigint>>>>"
    (by_sql,) = pyspark_ext.explain_read_schema(remote.sql(sql))
    (by_api,) = pyspark_ext.explain_read_schema(
        remote.table("events").where(where).select("id", "user.geo.city"))
    assert by_sql["read_schema"] == by_api["read_schema"] == read
    assert by_sql["read_leaves"] == 3 < by_sql["full_leaves"]
    assert by_sql["bytes_read"] == by_api["bytes_read"] < by_sql["bytes_full"] / 2
    # the same report as a classic DataFrame's over the same files
    (by_classic,) = pyspark_ext.explain_read_schema(classic.sql(sql))
    assert checks._stable(by_sql) == checks._stable(by_classic)
    with confs(remote, {ENABLED: "false"}):
        (stock,) = pyspark_ext.explain_read_schema(remote.sql(sql))
    assert stock["read_leaves"] > by_sql["read_leaves"] and stock["bytes_read"] > by_sql["bytes_read"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_skipped_variant_filter(remote, classic, tables, layout):
    sql = f"SELECT rid, v:name::string FROM {layout} WHERE v:id::bigint BETWEEN 250 AND 449"
    rows = _rows(remote, sql)
    assert len(rows) == 200 and rows == _rows(remote, sql, enabled=False)
    (scan,) = pyspark_ext.explain_read_schema(remote.sql(sql), run=True)
    # 250..449 spans row groups 2-4; group 6 holds a string id, which blocks skipping.
    assert (scan["row_groups_read"], scan["row_groups_skipped"]) == (4, 6)
    assert (scan["row_groups_read_metric"], scan["row_groups_skipped_metric"]) == (4, 6)
    assert scan["rows_output"] == 4 * checks.GROUP
    with confs(classic, {ROW_GROUP_METRICS: "true"}):  # as on the server
        classic_df = classic.sql(sql)
        classic_df.collect()
        (collected,) = pyspark_ext.explain_read_schema(classic_df)
        # run=True on a classic DataFrame: the same counts as after a collect
        (ran,) = pyspark_ext.explain_read_schema(classic.sql(sql), run=True)
    assert checks._stable(scan) == checks._stable(collected) == checks._stable(ran)
    # Without run, the plan is reported as planned: statistics, no run-time counts yet.
    (planned,) = pyspark_ext.explain_read_schema(remote.sql(sql))
    assert planned["row_groups_read"] == 4 and planned.get("rows_output", 0) == 0


def test_draft_layout_read_of_what_shred_wrote(remote, tables):
    # read without a schema: the draft layout shows as VARIANT
    schema = remote.read.parquet(str(tables / "draft")).schema.simpleString()
    assert schema == "struct<rid:bigint,v:variant>"
    same = ("SELECT count(*) FROM draft d JOIN source s ON d.rid = s.rid "
            "WHERE to_json(d.v) = to_json(s.v)")
    assert _rows(remote, same) == [f"({checks.ROWS},)"]
    sql = "SELECT v:user.tier::string, count(*), sum(v:score::double) FROM draft GROUP BY 1"
    assert _rows(remote, sql) == _rows(remote, sql.replace("draft", "source"), enabled=False)
    (scan,) = pyspark_ext.explain_read_schema(remote.sql(sql))
    assert scan["read_schema"] == ("struct<v:struct<object:struct<score:struct<typed_value:double>,"
                                   "user:struct<object:struct<tier:struct<typed_value:string>>>>>>")


def test_shred_and_inference_on_connect_dataframes(remote, classic, tables):
    source = remote.table("source")
    inferred = pyspark_ext.infer_shredding_schema(source, "v")
    assert inferred == pyspark_ext.infer_shredding_schema(classic.table("source"), "v")
    assert inferred == ("struct<`extra`: struct<`x`: bigint>, `id`: bigint, `name`: string, "
                        "`score`: double, `user`: struct<`tier`: string>>")
    shredded = pyspark_ext.shred(source.where("rid < 20"), "v", checks.DRAFT_SCHEMA)
    fields = {f.name: f.dataType.simpleString() for f in shredded.schema.fields}
    assert fields["v"].startswith("struct<untyped_value:binary,object:struct<id:struct<")


def test_spec_layout_writer_over_connect(remote, tables):
    # shred(..., layout="spec") on a Connect DataFrame: the server writes the given schema, column
    # by column, and every value reads back
    out = str(tables / "spec_ours")
    checks._write(pyspark_ext.shred(remote.table("source"), "v", checks.SPEC_SCHEMA, layout="spec"), out)
    (f,) = sorted(Path(out).glob("*.parquet"))
    footer = pq.ParquetFile(f)
    assert footer.metadata.metadata[b"pyspark_ext.columnarShreddedColumns"] == b"v"
    typed = footer.schema_arrow.field("v").type.field("typed_value").type
    assert sorted(typed.field(i).name for i in range(typed.num_fields)) == ["id", "name", "score", "user"]
    remote.read.schema("rid BIGINT, v VARIANT").parquet(out).createOrReplaceTempView("spec_ours")
    same = ("SELECT count(*) FROM spec_ours d JOIN source s ON d.rid = s.rid "
            "WHERE to_json(d.v) = to_json(s.v)")
    assert _rows(remote, same) == _rows(remote, same, enabled=False) == [f"({checks.ROWS},)"]


def test_write_shredded_clusters_and_writes_bloom_filters_over_connect(remote, classic, tables):
    # cluster_by's bounds job and sort, and the bloom filter options, from a Connect client: the
    # rows come out in the z-order (both expressions fall as rid grows, so descending rid), and
    # the name leaf has a bloom filter in every row group
    out = str(tables / "spec_clustered")
    pyspark_ext.write_shredded(remote.table("source"), out, {"v": checks.SPEC_SCHEMA},
                               cluster_by=["-rid", "-v:score::double"], bloom_filters={"v": ["name"]},
                               **{"parquet.block.row.count.limit": str(checks.GROUP)})
    files = sorted(Path(out).glob("*.parquet"))
    assert files
    for f in files:
        rids = pq.read_table(f, columns=["rid"]).column("rid").to_pylist()
        assert rids == sorted(rids, reverse=True), f
        footer = pq.ParquetFile(f).metadata
        for g in range(footer.num_row_groups):
            group = footer.row_group(g)
            leaf = next(group.column(i) for i in range(group.num_columns)
                        if group.column(i).path_in_schema == "v.typed_value.name.typed_value")
            assert leaf.bloom_filter_offset is not None and leaf.bloom_filter_offset > 0, (f, g)
    written = classic.read.schema("rid BIGINT, v VARIANT").parquet(out)
    assert sorted((r.rid, r.j) for r in written.selectExpr("rid", "to_json(v) AS j").collect()) == \
        sorted((r.rid, r.j) for r in classic.table("source").selectExpr("rid", "to_json(v) AS j").collect())


def test_a_query_that_does_not_analyse_fails_with_spark_error(remote, tables):
    with pytest.raises(Exception, match="nope"):
        pyspark_ext.explain_read_schema(remote.sql("SELECT nope FROM events"))


def test_a_server_without_the_plugin_gets_a_clear_error(remote, tables, monkeypatch):
    # A request the server has no plugin for fails as it would on a server started without the
    # plugin's setting (the plugin declines types it does not know).
    from pyspark_ext import connect
    monkeypatch.setattr(connect, "TYPE_URL", "type.googleapis.com/pysparkext.Unknown")
    with pytest.raises(RuntimeError, match="conf --connect-server"):
        pyspark_ext.explain_read_schema(remote.sql("SELECT id FROM events"))


def test_dataframe_with_a_subquery(remote, classic, tables):
    # A DataFrame API plan that references another DataFrame (a scalar subquery) travels whole.
    from pyspark.sql.connect import functions as CF
    events = remote.table("events")
    df = events.where(CF.col("id") > events.select(CF.min("id")).scalar()).select("user.geo.city")
    scans = pyspark_ext.explain_read_schema(df)
    expected = pyspark_ext.explain_read_schema(
        classic.sql("SELECT user.geo.city FROM events WHERE id > (SELECT min(id) FROM events)"))
    assert sorted(s["read_schema"] for s in scans) == sorted(s["read_schema"] for s in expected)
    assert len(scans) == 2
