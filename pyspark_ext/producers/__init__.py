"""Incremental key-sorted Parquet pipelines on Spark (after Parquet.Producers).

>>> from pyspark_ext.producers import Pipeline, Add, Update, Delete
>>> p = Pipeline(spark, "/data/pipelines/people")
>>> people = p.source("people")
>>> by_email = p.stage("by_email", lambda k, persons: ((x.email, x) for x in persons), people)
>>> p.run({"people": df}); p.update({"people": changes}); p.content("by_email")
"""
from .errors import ProducerError
from .pipeline import Add, Delete, Node, Pipeline, Update
from .preserve import next_id
from .ship import ship_package

__all__ = ["Add", "Delete", "Node", "Pipeline", "ProducerError", "Update", "next_id",
           "ship_package"]
