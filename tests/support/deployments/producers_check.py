"""A producers pipeline for every deployment: sources, a stage, a join, a merge of two feeders and
a PreserveKeyValues stage, run and then updated. ``run(spark, path)`` returns every stage's content
and changes of both versions, JSON-able; local mode and a cluster must return the same.

On a cluster the Python workers import ``pyspark_ext`` from the zip ``ship_package`` adds (as a
user without the package on every node would), and these Produce functions travel by value
(``cloudpickle.register_pickle_by_value``), so the executors need neither this module nor the
test tree on their path.
"""
from __future__ import annotations

import sys
import time
from typing import Any

from pyspark import cloudpickle
from pyspark.sql import Row, SparkSession

from pyspark_ext.producers import Add, Delete, Pipeline, Update, next_id
from pyspark_ext.producers.ship import ship_package

ORDERS = "key int, value struct<customer:int, amount:double>"
CUSTOMERS = "key int, value string"


def by_customer(_, orders):
    for o in orders:
        yield o.customer, o.amount


def large(_, orders):
    for o in orders:
        if o.amount >= 50:
            yield o.customer, o.amount


def join(customer, names, amounts):
    name = next(names, None)
    total = sum(amounts)
    yield (name or f"unknown-{customer}"), total


def merged(customer, amounts):
    n = total = 0
    for a in amounts:
        n, total = n + 1, total + a
    yield customer, Row(n=n, total=total)


def ids(name, totals):
    for t in totals:
        yield name, Row(name=name, total=t, id=0)


def keep_id(new, previous):
    return Row(name=new.name, total=new.total,
               id=previous.id if previous is not None else next_id())


def build(spark: SparkSession, path: str) -> Pipeline:
    p = Pipeline(spark, path, rows_per_row_group=4, rows_per_file=8)
    orders, customers = p.source("orders"), p.source("customers")
    a = p.stage("by_customer", by_customer, orders, key_type="int", value_type="double")
    b = p.stage("large", large, orders, key_type="int", value_type="double")
    j = p.stage("joined", join, customers, a, key_type="string", value_type="double")
    p.stage("merged", merged, [a, b], key_type="int", value_type="struct<n:int, total:double>")
    p.stage("ids", ids, j, key_type="string",
            value_type="struct<name:string, total:double, id:bigint>", preserve=keep_id)
    return p


def _where_workers_import(batches):
    import pyarrow as pa
    import pyspark_ext
    for _ in batches:
        pass
    yield pa.RecordBatch.from_pylist([{"file": pyspark_ext.__file__,
                                       "check_module": __name__ in sys.modules}])


def _stored(p: Pipeline, name: str, kind: str, version: int) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq
    files = p.manifest(version)["stages"][name][kind]
    return [r for f in files for r in pq.read_table(p.store.path(f["path"])).to_pylist()]


def run(spark: SparkSession, path: str, ship: bool = False) -> dict[str, Any]:
    started = time.time()
    out: dict[str, Any] = {}
    if ship:
        out["shipped"] = ship_package(spark).rsplit("/", 1)[-1]
        cloudpickle.register_pickle_by_value(sys.modules[__name__])
        out["workers"] = sorted({(r.file.split("/")[-3], r.check_module) for r in spark.range(
            0, 4, 1, 4).mapInArrow(_where_workers_import, "file string, check_module boolean")
            .collect()})
    p = build(spark, path)
    p.run({"orders": spark.createDataFrame(
               [(i, Row(customer=i % 5, amount=float(i * 7 % 100))) for i in range(40)], ORDERS),
           "customers": spark.createDataFrame([(c, f"c{c}") for c in range(4)], CUSTOMERS)})
    p.update({"orders": spark.createDataFrame(
                  [(Update, 3, Row(customer=4, amount=99.0)), (Delete, 7, None),
                   (Add, 40, Row(customer=5, amount=60.0))], "type string, " + ORDERS),
              "customers": spark.createDataFrame([(Update, 1, "one"), (Delete, 2, None)],
                                                 "type string, " + CUSTOMERS)})
    for name in ("orders", "customers", "by_customer", "large", "joined", "merged", "ids"):
        for version in (1, 2):  # the files as committed, read on the driver (no Spark jobs)
            out[f"{name}_v{version}_content"] = [repr((r["key"], r["value"])) for r in
                                                 _stored(p, name, "content", version)]
            out[f"{name}_v{version}_changes"] = sorted(repr(tuple(r.values())) for r in
                                                       _stored(p, name, "update", version))
    out["ids_v1"] = {r["key"]: r["value"]["id"] for r in _stored(p, "ids", "content", 1)}
    # and once through the API (a Spark read of the content, sorted by key)
    out["ids_v2"] = {r.key: r.value.id for r in p.content("ids").collect()}
    print(f"producers check ({'shipped' if ship else 'local'}): {time.time() - started:.1f}s",
          file=sys.stderr)
    return out
