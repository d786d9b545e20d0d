"""Spark sessions with a table format or accelerator beside the extension, one per pytest process.

Delta Lake, Iceberg and DataFusion Comet each need their jars and their own session extension when
the JVM starts, and each is published for some Spark lines only. So each product's tests live in
``tests/tables/<product>/`` and run in a pytest process of their own, in the venv of a line the
product is built for (``.ci/run-lines`` does that); anywhere else they skip, saying where they run.
What each product needs: ``devtools.table_formats``.
"""
from __future__ import annotations

import pytest
from pyspark import SparkContext
from pyspark.sql import SparkSession

from pyspark_ext import jar
from pyspark_ext.session import local_session
from devtools.table_formats import PRODUCTS, Product, product_confs

__all__ = ["PRODUCTS", "Product", "skip_unless_line", "table_session"]


def skip_unless_line(product: Product) -> None:
    """Skip the caller's module unless the running Spark line is one the product is tested on."""
    if jar.spark_line() not in product.lines:
        pytest.skip(f"{product.name} is tested on Spark {', '.join(product.lines)} ({product.poms()}), "
                    f"this is Spark {jar.spark_line()}: .ci/run-lines runs it in those lines' venvs",
                    allow_module_level=True)


def table_session(product: Product, warehouse: str, **extra: str) -> SparkSession:
    """The strict test session (extension in strict mode) with ``product``'s jars and confs."""
    if SparkContext._active_spark_context is not None:
        pytest.skip(f"tests/tables/{product.name} needs a JVM of its own: run it as its own pytest "
                    "process (.ci/run-lines does)")
    return local_session(f"pyspark-ext-{product.name}", strict=True, confs={
        "spark.sql.planChangeValidation": "true", "spark.sql.warehouse.dir": warehouse,
        "spark.driver.memory": "2g", **product_confs(product, **extra)})
