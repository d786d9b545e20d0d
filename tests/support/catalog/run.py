"""Catalog tables under a Hive-enabled session, in a process of its own.

``spark.sql.catalogImplementation=hive`` is a static setting and the test session is one per
process, so ``tests/extension/test_catalog_tables.py`` runs this script twice: ``--phase create`` makes the
tables in an embedded Derby metastore and queries them; ``--phase reread``, a new JVM (Derby
allows one at a time), reads the same tables again from the same metastore. Every query runs
with the extension off and on; the JSON written to ``--out`` holds each run's rows, read
schemas and scan formats, and, for draft-layout tables (a struct to stock Spark), the rows of the
same query over the unshredded values (the ground truth). Rows are stored as
``tests.support.differential.stored_rows`` stores them, for the test to read back and compare by
``pyspark_ext.outcome``'s definition of the same rows.

    python -m tests.support.catalog.run --phase create --dir /tmp/catalog --out /tmp/catalog/create.json
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession

import pyspark_ext
from pyspark_ext.session import local_session
from pyspark_ext.spark_shredding import spark_shredding
from tests.support.differential import ENABLED, rows_of, stored_rows
from tests.support.variant_data import CONFLICTING, FULL, SHRED_SCHEMA, mixed_json

NESTED = "struct<a: struct<b: bigint, c: string>, d: double>"

# name -> (query, whether its truth is the unshredded view instead of stock Spark)
QUERIES: dict[str, tuple[str, bool]] = {
    # CREATE TABLE ... USING parquet AS SELECT: nested pruning
    "ctas_nested_filter": ("SELECT id, s.a.b FROM nested_ctas WHERE s.d > 100", False),
    "ctas_nested_deep": ("SELECT deep.x.a.c, size(deep.y), deep.y[0].d FROM nested_ctas", False),
    "ctas_nested_leaves": ("SELECT sum(s.a.b), count(s.a.c) FROM nested_ctas", False),
    # a Hive serde table (STORED AS PARQUET), which Spark converts to its Parquet reader
    "hive_serde_nested": ("SELECT id, s.a.c FROM hive_nested WHERE s.a.b % 7 = 0", False),
    # saveAsTable, spec layout, two writes that shred `id` differently (a Union of scans)
    "saved_spec_paths": ("SELECT id, v:id::string, v:user.name::string FROM spec_saved", False),
    "saved_spec_whole": ("SELECT id, to_json(v) FROM spec_saved", False),
    "saved_spec_group": ("SELECT v:kind::string, count(*), max(v:user.id::int) FROM spec_saved GROUP BY 1", False),
    # CREATE TABLE ... USING parquet, then INSERT: spec layout inferred by Spark's writer
    "using_spec_and_nested": ("SELECT id, v:kind::string, s.a.b FROM spec_using WHERE v:user.id::int < 400", False),
    "using_spec_items": ("SELECT id, to_json(v:items), v:items[0].sku::string FROM spec_using", False),
    # CREATE TABLE ... LOCATION over draft-layout files
    "located_draft_paths": ("SELECT id, v:user.name::string, try_variant_get(v, '$.price', 'double') "
                            "FROM draft_located", True),
    "located_draft_whole": ("SELECT id, to_json(v) FROM draft_located", True),
    "located_draft_filter": ("SELECT id FROM draft_located WHERE v:kind::string = 'buy'", True),
    # partitioned, spec layout: partition columns beside nested and variant columns
    "parted_spec_leaves": ("SELECT day, n, sum(s.a.b), count(s.a.c) FROM spec_parted GROUP BY day, n", False),
    "parted_spec_paths": ("SELECT id, day, v:user.name::string, s.d FROM spec_parted WHERE n = 1", False),
    "parted_spec_whole": ("SELECT id, n, to_json(v) FROM spec_parted WHERE day = '2'", False),
    # partitioned, draft layout, partitions recovered from the directories
    "parted_draft_paths": ("SELECT id, day, v:kind::string, s.a.c FROM draft_parted WHERE day <> '0'", True),
    "parted_draft_leaves": ("SELECT day, max(s.a.b), count(*) FROM draft_parted GROUP BY day", True),
    "parted_draft_whole": ("SELECT id, day, to_json(v) FROM draft_parted", True),
}

TRUTH_TABLES = {"draft_located": "truth", "draft_parted": "truth"}


def session(base: Path) -> SparkSession:
    return local_session("pyspark-ext-catalog", strict=True, hive=True, confs={
        "spark.sql.planChangeValidation": "true",
        "spark.driver.memory": "1g",
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": str(base / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={base / 'metastore_db'};create=true",
        "spark.hadoop.datanucleus.schema.autoCreateAll": "true",
        "spark.hadoop.hive.metastore.schema.verification": "false",
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={base}",
    })


def truth(spark: SparkSession) -> DataFrame:
    """The rows every table is made of: `v` unshredded (the ground truth), `s` nested, and the
    partition columns; registered as view `truth`. Deterministic, so each phase makes the same."""
    df = spark.createDataFrame(list(enumerate(mixed_json(300, seed=21))), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v",
                    f"CAST(named_struct('a', named_struct('b', id * 3, 'c', CAST(id AS string)), "
                    f"'d', id / 2) AS {NESTED}) AS s",
                    "CAST(id % 3 AS string) AS day", "CAST(id % 2 AS int) AS n")
    df.createOrReplaceTempView("truth")
    return df


def create(spark: SparkSession, base: Path) -> dict[str, Any]:
    df = truth(spark)
    sql = spark.sql
    sql("CREATE TABLE nested_ctas USING parquet AS "
        "SELECT id, s, named_struct('x', s, 'y', array(s, s)) AS deep FROM truth")
    sql(f"CREATE TABLE hive_nested (id BIGINT, s {NESTED}) STORED AS PARQUET")
    sql("INSERT INTO hive_nested SELECT id, s FROM truth")
    with spark_shredding(spark, True, FULL):
        df.where("id % 2 = 0").select("id", "v").coalesce(1).write.saveAsTable("spec_saved")
    with spark_shredding(spark, True, CONFLICTING):
        df.where("id % 2 = 1").select("id", "v").coalesce(1).write.mode("append").saveAsTable("spec_saved")
    sql(f"CREATE TABLE spec_using (id BIGINT, v VARIANT, s {NESTED}) USING parquet")
    with spark_shredding(spark, True, CONFLICTING):
        sql("INSERT INTO spec_using SELECT id, v, s FROM truth")
    located = base / "draft_located"
    pyspark_ext.shred(df.select("id", "v"), "v", SHRED_SCHEMA).coalesce(2).write.parquet(str(located))
    sql(f"CREATE TABLE draft_located (id BIGINT, v VARIANT) USING parquet LOCATION '{located}'")
    sql(f"CREATE TABLE spec_parted (id BIGINT, s {NESTED}, v VARIANT, day STRING, n INT) "
        "USING parquet PARTITIONED BY (day, n)")
    with spark_shredding(spark, True, FULL):
        sql("INSERT INTO spec_parted SELECT id, s, v, day, n FROM truth")
    parted = base / "draft_parted"
    pyspark_ext.shred(df.select("id", "v", "s", "day"), "v", SHRED_SCHEMA).coalesce(1) \
        .write.partitionBy("day").parquet(str(parted))
    sql(f"CREATE TABLE draft_parted (id BIGINT, v VARIANT, s {NESTED}, day STRING) USING parquet "
        f"PARTITIONED BY (day) LOCATION '{parted}'")
    sql("ALTER TABLE draft_parted RECOVER PARTITIONS")
    out = {"queries": run_all(spark)}
    out["overwrite"] = overwrite(spark, df, base)
    return out


def overwrite(spark: SparkSession, df: DataFrame, base: Path) -> dict[str, Any]:
    """A catalog table's files rewritten in place (same names, another shredding) while the
    session holds its relation: what a query returns before and after REFRESH TABLE."""
    name, query = "draft_located", QUERIES["located_draft_paths"][0]
    expected = stored(spark, query.replace(name, "truth"))
    first = stored(spark, query)
    fresh = base / "rewrite"
    pyspark_ext.shred(df.select("id", "v"), "v", "id string, kind string, user variant") \
        .coalesce(2).write.parquet(str(fresh))
    old = sorted((base / name).glob("*.parquet"))
    new = sorted(fresh.glob("*.parquet"))
    assert len(old) == len(new) == 2
    for o, n in zip(old, new):
        shutil.copyfile(n, o)
        # Hadoop's local file system checks each file against its .crc sidecar.
        shutil.copyfile(n.with_name(f".{n.name}.crc"), o.with_name(f".{o.name}.crc"))
    stale = attempt(lambda: stored(spark, query))
    spark.sql(f"REFRESH TABLE {name}")
    refreshed = attempt(lambda: stored(spark, query))
    return {"expected": expected, "first": first, "without_refresh": stale, "refreshed": refreshed,
            "read_schema_refreshed": [s["read_schema"] for s in pyspark_ext.explain_read_schema(spark.sql(query))]}


def stored(spark: SparkSession, query: str | DataFrame) -> list[Any]:
    """The query's rows in their stored (JSON) form."""
    return stored_rows(rows_of(spark, query))


def attempt(f) -> dict[str, Any]:
    try:
        return {"rows": f()}
    except Exception as e:  # noqa: BLE001 - recorded for the test to judge
        lines = f"{type(e).__name__}: {e}".splitlines()
        # The message and its causes, without the JVM stack.
        return {"error": "\n".join(lines[:2] + [x for x in lines if x.startswith("Caused by")])[:3000]}


def run(spark: SparkSession, query: str, enabled: bool) -> dict[str, Any]:
    spark.conf.set(ENABLED, str(enabled).lower())
    try:
        def go() -> dict[str, Any]:
            df = spark.sql(query)
            result = {"rows": stored(spark, df)}
            result["scans"] = [{k: s.get(k) for k in ("table", "format", "read_schema", "read_leaves",
                                                       "full_leaves")}
                               for s in pyspark_ext.explain_read_schema(df)]
            result["plan"] = df._jdf.queryExecution().executedPlan().toString()
            return result
        out = attempt(go)
        return out["rows"] if "rows" in out else out
    finally:
        spark.conf.set(ENABLED, "true")


def run_all(spark: SparkSession) -> dict[str, Any]:
    out = {}
    for name, (query, draft) in QUERIES.items():
        entry = {"query": query, "off": run(spark, query, False), "on": run(spark, query, True)}
        if draft:
            tables = [t for t in TRUTH_TABLES if t in query]
            entry["truth"] = attempt(lambda: stored(spark, query.replace(tables[0], TRUTH_TABLES[tables[0]])))
        out[name] = entry
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--phase", choices=["create", "reread"], required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    base = Path(args.dir)
    spark = session(base)
    try:
        if args.phase == "create":
            out = create(spark, base)
        else:
            truth(spark)
            out = {"queries": run_all(spark),
                   "tables": sorted(r.tableName for r in spark.sql("SHOW TABLES").collect())}
    finally:
        spark.stop()
    Path(args.out).write_text(json.dumps(out, indent=1, allow_nan=False))


if __name__ == "__main__":
    main()
