"""Spark sessions with a table format or accelerator beside the extension, one per pytest process.

Delta Lake, Iceberg and DataFusion Comet each need their jars and their own session extension when
the JVM starts, and each is published for some Spark lines only. So each product's tests live in
``tests/tables/<product>/`` and run in a pytest process of their own, in the venv of a line the
product is built for (``.ci/run-lines`` does that); anywhere else they skip, saying where they run.
What each product needs: ``devtools.table_formats``.
"""
from __future__ import annotations

import os
import sys

import pytest
from pyspark import SparkContext
from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import jar
from devtools.table_formats import PRODUCTS, Product, with_product

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
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (SparkSession.builder.master("local[2]").appName(f"pyspark-ext-{product.name}")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.planChangeValidation", "true")
               .config("spark.sql.warehouse.dir", warehouse)
               .config("spark.driver.memory", "2g"))
    builder = with_product(builder, product, **extra)
    spark = pyspark_ext.configure(builder, strict=True).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
