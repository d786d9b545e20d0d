"""The extension beside DataFusion Comet (deps/comet/spark-4.1/pom.xml), on the Spark line Comet is built for.

One session for the module's tests: Comet's plugin, shuffle manager and off-heap memory, and the
extension in strict mode. Comet can be switched off per query (``spark.comet.enabled``), which is
how the tests get "stock Spark" rows in the same JVM.
"""
from __future__ import annotations

import pytest

from pyspark_ext import jar
from tests.tables.sessions import PRODUCTS, skip_unless_line, table_session

COMET = PRODUCTS["comet"]


def pytest_collection_modifyitems(config, items):
    if jar.spark_line() in COMET.lines:
        return
    skip = pytest.mark.skip(reason=f"DataFusion Comet is tested on Spark {COMET.line} "
                                   f"({COMET.poms()}), this is Spark {jar.spark_line()}")
    for item in items:
        if "comet" in item.path.parts:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    skip_unless_line(COMET)
    session = table_session(COMET, str(tmp_path_factory.mktemp("warehouse")))
    yield session
    session.stop()
