"""Path reads of shredded variants through every kind of operator, in both layouts.

The path rewrite carries a variant's shredded struct up beside it through operators that read
their child's columns by reference; every other operator must see its child as before. A query
whose operator the carry did not know (a TABLESAMPLE) once referenced a column the plan no longer
produced. Each query is compared with the same query on the in-memory variants (sampled rows:
each must be the truth's row for its id, since which rows a sample keeps depends on partitioning).
"""
from __future__ import annotations

import re

import pytest
from pyspark.sql import SparkSession

import pyspark_ext
from tests.support.rows import comparable, query_rows
from tests.support.variant_data import FULL, SHRED_SCHEMA, mixed_variants, write_spec

QUERIES = {
    "offset": "SELECT id, v:user.id::int FROM {t} ORDER BY id LIMIT 20 OFFSET 5",
    "offset_only": "SELECT id, v:kind::string FROM {t} ORDER BY id OFFSET 590",
    "rebalance": "SELECT /*+ REBALANCE */ id, v:kind::string, try_variant_get(v, '$.price', 'double') FROM {t}",
    "repartition_by": "SELECT /*+ REPARTITION(3, id) */ id, v:user.name::string FROM {t}",
    "grouping_sets": "SELECT v:kind::string AS k, v:user.tier::string AS t, count(*) FROM {t} "
                     "GROUP BY GROUPING SETS ((1), (1, 2), ())",
    "distinct": "SELECT DISTINCT v:kind::string, v:user.tier::string FROM {t}",
    "except": "SELECT id, v:kind::string FROM {t} EXCEPT SELECT id, v:kind::string FROM {t} WHERE id % 2 = 0",
    "intersect": "SELECT v:kind::string FROM {t} INTERSECT SELECT v:kind::string FROM {t} WHERE id < 100",
    "union_all": "SELECT id, v:id::bigint FROM {t} WHERE id < 50 UNION ALL SELECT id, v:user.id::bigint FROM {t} "
                 "WHERE id > 550",
    "window": "SELECT id, sum(try_variant_get(v, '$.user.id', 'bigint')) OVER (PARTITION BY v:kind::string "
              "ORDER BY id ROWS 2 PRECEDING) FROM {t}",
    "lateral_view": "SELECT id, e FROM {t} LATERAL VIEW explode(try_variant_get(v, '$.items', "
                    "'array<struct<sku: string>>')) x AS e",
    "cte_join": "WITH a AS (SELECT id, v FROM {t} WHERE id < 300) "
                "SELECT a.id, b.v:kind::string FROM a JOIN {t} b ON a.id + 300 = b.id",
    "in_subquery": "SELECT id FROM {t} WHERE v:user.id::int IN (SELECT v:user.id::int FROM {t} WHERE id < 40)",
    "scalar_subquery": "SELECT id, v:kind::string FROM {t} WHERE try_variant_get(v, '$.price', 'double') > "
                       "(SELECT avg(try_variant_get(v, '$.price', 'double')) FROM {t})",
    "sort_limit": "SELECT id, v:user.name::string FROM {t} ORDER BY v:user.name::string NULLS LAST, id LIMIT 7",
}
SAMPLED = {
    "sample": "SELECT id, v:user.id::int FROM {t} TABLESAMPLE (30 PERCENT) REPEATABLE (7)",
    "sample_subquery": "SELECT id, v:kind::string, to_json(v:items) FROM "
                        "(SELECT * FROM {t} TABLESAMPLE (50 PERCENT) REPEATABLE (3)) WHERE v:user.id::int > 10",
}


@pytest.fixture(scope="module")
def tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("operators")
    truth = mixed_variants(spark, 600, 5, "ops_truth")
    pyspark_ext.shred(truth, "v", SHRED_SCHEMA).coalesce(1).write.parquet(str(base / "draft"))
    spark.read.schema("id BIGINT, v VARIANT").parquet(str(base / "draft")).createOrReplaceTempView("ops_draft")
    write_spec(spark, truth, str(base / "spec"), FULL)
    return {"draft": "ops_draft", "spec": f"parquet.`{base / 'spec'}`"}


@pytest.mark.parametrize("layout", ["draft", "spec"])
@pytest.mark.parametrize("name", list(QUERIES))
def test_path_reads_through_operators(spark: SparkSession, tables, layout: str, name: str) -> None:
    query = QUERIES[name]
    assert query_rows(spark, query.format(t=tables[layout])) == query_rows(spark, query.format(t="ops_truth"))


@pytest.mark.parametrize("layout", ["draft", "spec"])
@pytest.mark.parametrize("name", list(SAMPLED))
def test_path_reads_through_a_sample(spark: SparkSession, tables, layout: str, name: str) -> None:
    sampled = SAMPLED[name]
    unsampled = re.sub(r"TABLESAMPLE \(\d+ PERCENT\) REPEATABLE \(\d+\)", "", sampled)
    truth = {r[0]: _repr(r) for r in spark.sql(unsampled.format(t="ops_truth")).collect()}
    df = spark.sql(sampled.format(t=tables[layout]))
    got = df.collect()
    assert 0 < len(got) < len(truth)
    assert all(_repr(r) == truth[r[0]] for r in got)
    # The shredded struct is carried through the sample: only the paths' leaves are read (above
    # it, Spark's inferred isnotnull(v) is a null test of the struct's parts).
    [scan] = pyspark_ext.explain_read_schema(df)
    assert "tags" not in scan["read_schema"] and "score" not in scan["read_schema"], scan["read_schema"]


def _repr(row) -> str:
    return repr(comparable(tuple(row)))
