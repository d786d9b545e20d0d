"""pyspark-ext: a Catalyst optimizer extension that makes Spark read only what a query needs.

>>> from pyspark.sql import SparkSession
>>> import pyspark_ext
>>> spark = pyspark_ext.configure(SparkSession.builder).getOrCreate()
"""
from .explain import explain_read_schema, format_report
from .jar import EXTENSION_CLASS, build_jar
from .session import configure, connect_server_confs, extension_confs
from .shredding import infer_shredding_schema, shred, shred_column, shredded_leaf, write_shredded

__all__ = [
    "EXTENSION_CLASS",
    "build_jar",
    "configure",
    "connect_server_confs",
    "explain_read_schema",
    "extension_confs",
    "format_report",
    "infer_shredding_schema",
    "shred",
    "shred_column",
    "shredded_leaf",
    "write_shredded",
]
