"""Seeded random queries, checked differentially (tests/random_queries generates them).

- Nested pruning: each query over the event log returns the same rows with the extension on as
  off, and reads no more leaves.
- Shredded variants: each path-read query over files of both layouts, with a different shredding
  schema per file (Spark's inferred one among them), returns the rows of the same query over the
  ``parse_json`` values; where that query fails, it fails too (which row fails first, and so the
  error class, depends on the order rows are read in), and never with an internal error.

ANSI mode is drawn per query. ``PYSPARK_EXT_RANDOM_QUERIES`` sets the number of queries per seed
(default 25), to run a longer search locally.
"""
from __future__ import annotations

import os
import random
import shutil
from pathlib import Path
from typing import Any, Callable

import pytest
from pyspark.sql import Row, SparkSession

import pyspark_ext
from tests.differential import confs, run, spark_shredding
from tests.random_queries import nested, variant
from tests.test_draft_variant import _value, mixed_variants
from tests.test_spec_variant import CONFLICTING, FULL, write_spec

COUNT = int(os.environ.get("PYSPARK_EXT_RANDOM_QUERIES", "25"))
SEEDS = [1, 2, 3]


def _cases(generate: Callable[[random.Random], str]) -> list[Any]:
    cases = []
    for seed in SEEDS:
        rnd = random.Random(seed)
        for i in range(COUNT):
            cases.append(pytest.param(generate(rnd), rnd.choice(["true", "false"]), id=f"{seed}-{i}"))
    return cases


def _norm(x: Any) -> Any:
    if isinstance(x, (Row, list, tuple)):
        return tuple(_norm(i) for i in x)
    if isinstance(x, dict):
        return tuple(sorted((_norm(k), _norm(v)) for k, v in x.items()))
    return _value(x)


def _outcome(spark: SparkSession, sql: str) -> tuple[str, Any]:
    try:
        return "rows", sorted(repr(_norm(r)) for r in spark.sql(sql).collect())
    except Exception as e:  # noqa: BLE001 - a failing query must fail alike on both sides
        text = str(e)
        return "error", text.split("]")[0] + "]" if text.startswith("[") else text.splitlines()[0]


@pytest.mark.parametrize("sql,ansi", _cases(nested.query))
def test_random_nested_query(spark: SparkSession, events: str, sql: str, ansi: str) -> None:
    sql = sql.format(t="events")
    with confs(spark, {"spark.sql.ansi.enabled": ansi}):
        try:
            stock = run(spark, sql, enabled=False)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                run(spark, sql, enabled=True)
            return
        ext = run(spark, sql, enabled=True)
    assert ext.rows == stock.rows, sql
    assert ext.leaves <= stock.leaves, (sql, ext.read_schemas, stock.read_schemas)


DRAFT_SCHEMAS = [
    "id bigint, kind string, price decimal(10,2), score double, user struct<id: int, name: string, "
    "tier: string>, items array<struct<sku: string, qty: bigint>>, tags array<string>",
    "id string, user struct<name: string, extra: struct<since: int>>, items array<struct<sku: string>>, "
    "price double",
    "kind variant, user variant, tags array<variant>",
]


@pytest.fixture(scope="module")
def mixed_tables(spark: SparkSession, tmp_path_factory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("random_variant")
    truth = mixed_variants(spark, 400, 21, "random_truth")

    def gather(name: str, write: Callable[[Any, str, int], None]) -> Path:
        table = base / name
        table.mkdir()
        for i in range(3):
            part = str(base / f"{name}{i}")
            write(truth.where(f"id % 3 = {i}"), part, i)
            for f in Path(part).glob("*.parquet"):
                shutil.move(str(f), str(table / f"{i}-{f.name}"))
        return table

    def draft(df, path: str, i: int) -> None:
        pyspark_ext.shred(df, "v", DRAFT_SCHEMAS[i]).coalesce(1).write.parquet(path)

    def spec(df, path: str, i: int) -> None:
        if i < 2:
            write_spec(spark, df, path, [FULL, CONFLICTING][i])
        else:  # Spark infers this file's shredding schema
            with confs(spark, spark_shredding(True)):
                df.coalesce(1).write.parquet(path)

    spark.read.schema("id bigint, v variant").parquet(str(gather("draft", draft))) \
        .createOrReplaceTempView("random_draft")
    return {"draft": "random_draft", "spec": f"parquet.`{gather('spec', spec)}`"}


@pytest.mark.parametrize("sql,ansi", _cases(variant.query))
def test_random_variant_query(spark: SparkSession, mixed_tables, sql: str, ansi: str) -> None:
    with confs(spark, {"spark.sql.ansi.enabled": ansi}):
        want = _outcome(spark, sql.format(t="random_truth"))
        for layout, table in mixed_tables.items():
            got = _outcome(spark, sql.format(t=table))
            if got[0] == want[0] == "error":
                assert "INTERNAL" not in got[1], (layout, sql.format(t=table), got)
            else:
                assert got == want, (layout, sql.format(t=table))
