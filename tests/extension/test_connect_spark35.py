"""The extension behind a Spark 3.5 Connect server.

The pip pyspark 3.5 ships no Connect server. A module fixture starts Spark 3.5's own
(``spark-connect_2.12`` from Maven Central, ``deps/spark-connect/spark-3.5/pom.xml``) with
``spark-submit``, the settings ``python -m pyspark_ext conf --connect-server`` prints and the
server's jar on ``spark.jars``; a pyspark 3.5 Connect client runs nested queries that stock 3.5
reads whole structs for. Each must return the extension-off rows and read only the minimal schema,
read from the server's own plan (``DataFrame.explain``): 3.5's jar has no relation plugin, so
``explain_read_schema`` is not available to 3.5's Connect clients and says so.

On 4.x lines the module skips: ``test_connect.py`` runs there, with the relation plugin.
"""
from __future__ import annotations

import re

import pytest

import pyspark_ext
from pyspark_ext import jar
from pyspark_ext.data import adtech
from pyspark_ext.settings import STRICT
from devtools import maven
from tests.support.deployments.connect_server import connect_server
from tests.support.differential import ENABLED, confs
from tests.support.nested_shapes import SHAPES
from tests.support.rows import query_rows

pytestmark = [
    pytest.mark.connect, pytest.mark.subprocess,
    pytest.mark.skipif(jar.spark_line() != "3.5",
                       reason="Spark 3.5's Connect server; test_connect.py tests 4.x's"),
]

#: Shapes whose minimal read schema stock 3.5 does not reach (31 of the 69 do not): a
#: higher-order function's lambda, fields beneath one generator and beneath two, a struct an
#: aggregate returns, a struct a window function returns.
PRUNED_HERE = ("exists", "explode_two_fields", "chained_explode", "max_by_struct",
               "window_over_struct")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    settings = {**pyspark_ext.connect_server_confs(), STRICT: "true",
                "spark.sql.shuffle.partitions": "2", "spark.driver.memory": "1g"}
    settings["spark.jars"] = f"{maven.spark_jars('spark-connect', '3.5')},{settings['spark.jars']}"
    with connect_server(settings, tmp_path_factory.mktemp("connect")) as port:
        yield port


@pytest.fixture(scope="module")
def remote(server, spark, tmp_path_factory):
    """A Connect session with the nested event log as view ``events`` (written by the classic
    session: the files are what the server reads)."""
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession
    path = adtech.write_events(spark, str(tmp_path_factory.mktemp("data") / "events"), rows=400,
                               payload_width=8, partitions=2)
    session = RemoteSparkSession.builder.remote(f"sc://localhost:{server}").create()
    session.read.parquet(path).createOrReplaceTempView("events")
    yield session
    session.stop()


def read_schemas(df, capsys) -> list[str]:
    """The ``ReadSchema`` of each file scan of the plan the server planned for ``df``."""
    capsys.readouterr()
    df.explain()
    return sorted(re.findall(r"ReadSchema: (\S+)", capsys.readouterr().out))


def test_the_server_loads_the_extension(remote):
    assert pyspark_ext.EXTENSION_CLASS in remote.conf.get("spark.sql.extensions")


@pytest.mark.parametrize("name", PRUNED_HERE)
def test_nested_query_reads_the_minimal_schema_and_same_rows(remote, capsys, name):
    sql, minimal = SHAPES[name]
    with confs(remote, {ENABLED: "false"}):
        stock_rows = query_rows(remote, sql)
        stock = read_schemas(remote.sql(sql), capsys)
    rows = query_rows(remote, sql)
    assert rows and rows == stock_rows
    assert read_schemas(remote.sql(sql), capsys) == minimal != stock


def test_explain_read_schema_says_what_3_5_lacks(remote):
    with pytest.raises(RuntimeError, match="the jar for Spark 3.5 does not carry"):
        pyspark_ext.explain_read_schema(remote.sql("SELECT id FROM events"))
