"""The fuzzer's tables, generated into a directory: the nested event log and VARIANT events in
three storage forms.

- ``nested``: ``pyspark_ext.data.adtech`` events (structs in arrays in structs, a map of
  structs, a sparse payload struct), several files.
- ``variant_truth``: ``variant_json`` events as unshredded VARIANT (``parse_json``), the ground
  truth for the draft layout, which stock Spark cannot read.
- ``variant_draft``: the same events in the draft layout (``pyspark_ext.write_shredded``), one
  file per shredding schema in ``DRAFT_SCHEMAS``.
- ``variant_spec``: the same events in the Parquet spec layout written by Spark's own shredding
  writer, one file per entry of ``SPEC_SCHEMAS`` (forced schemas, Spark's inferred one,
  unshredded), so the files of one table are shredded differently.

The shredded tables are written for Parquet's skipping (``SKIPPING``): row groups of
``GROUP_ROWS`` rows with pages of ``PAGE_ROWS`` rows (page indexes are on by default), bloom
filters on the typed leaves of ``BLOOM_PATHS`` (the paths the variant grammar compares by
equality), and each file's rows ordered by ``SORT_BY``: rows whose ``id`` is a number first, then
those whose ``kind`` is a string, then by id, so that most row groups and pages hold no ``id``,
and many no ``kind``, in a residual: the condition under which a filter on a path may skip them. Their rows are the same; only where they lie in the files differs.

Queries name the files directly (``parquet.`path```): a temp view would keep the plan analyzed
when the view was made, so "extension off" would not be stock Spark.
"""
from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from pyspark_ext.data import adtech
from pyspark_ext.shredding import shredded_leaf, write_shredded
from pyspark_ext.spark_shredding import spark_shredding

TABLES = ("nested", "variant_truth", "variant_draft", "variant_spec")

DRAFT_SCHEMAS = [
    "id bigint, kind string, price decimal(10,2), score double, user struct<id: int, name: string, "
    "tier: string>, items array<struct<sku: string, qty: bigint>>, tags array<string>, "
    "when date, flag boolean",
    "id string, user struct<name: string, extra: struct<since: int>>, items array<struct<sku: string>>, "
    "price double, matrix array<array<bigint>>",
    "kind variant, user variant, tags array<variant>, events array<struct<t: bigint, p: variant>>",
    "big bigint, score decimal(38,10), events array<struct<t: string, p: struct<x: double, y: string>>>",
]
SPEC_SCHEMAS: list[str | None] = [
    "struct<id: bigint, kind: string, price: decimal(10,2), score: double, "
    "user: struct<id: int, name: string, tier: string>, items: array<struct<sku: string, qty: bigint>>, "
    "tags: array<string>, flag: boolean>",
    "struct<id: string, user: struct<name: string>, items: array<struct<sku: string>>, when: date>",
    "struct<tags: array<bigint>, matrix: array<array<bigint>>, big: int, "
    "events: array<struct<t: bigint, p: struct<x: double>>>>",
    "inferred",
    None,
]

GROUP_ROWS, PAGE_ROWS = 16, 4
#: Paths the variant grammar filters by ``=`` and ``<=>`` (``grammar_variant.compare``) that files
#: shred as primitives; each gets a bloom filter where a file's schema shreds it so.
BLOOM_PATHS = ["id", "kind", "price", "score", "big", "when", "user.id", "user.name"]
SORT_BY = ["schema_of_variant(try_variant_get(v, '$.id', 'variant')) <> 'BIGINT'",
           "schema_of_variant(try_variant_get(v, '$.kind', 'variant')) <> 'STRING'", "id"]
SKIPPING = {"parquet.block.row.count.limit": str(GROUP_ROWS), "parquet.page.row.count.limit": str(PAGE_ROWS),
            # check page sizes after every row, so that pages end at PAGE_ROWS rows
            "parquet.page.size.row.check.min": "1", "parquet.page.size.check.estimate": "false"}


def variant_json(n: int, seed: int) -> list[str | None]:
    """Events whose values change type from row to row: numbers as ints, decimals, doubles and
    strings; objects that are sometimes strings or arrays; arrays of mixed elements and of
    arrays; dates as strings; JSON nulls, SQL NULLs and non-object top-level values."""
    rnd = random.Random(seed)

    def number() -> Any:
        return rnd.choice([rnd.randrange(-5, 300), round(rnd.uniform(-50, 500), 2), str(rnd.randrange(99)),
                           rnd.choice([1e300, -2.5e-3, 3.0e10]), 2**40 + rnd.randrange(9), None, True])

    out: list[str | None] = []
    for i in range(n):
        r = rnd.random()
        if r < 0.03:
            out.append(None)
            continue
        if r < 0.07:
            out.append(rnd.choice(['[1, 2, {"a": 3}]', '"just a string"', "42", "null", "true", "2.5", "[]", "{}"]))
            continue
        e: dict[str, Any] = {"id": rnd.choice([i, i, i, str(i)]), "kind": rnd.choice(["view", "click", "buy", 7])}
        if rnd.random() < 0.85:
            e["user"] = {"id": rnd.choice([rnd.randrange(1000), str(rnd.randrange(9)), 70000, 2.5]),
                         "name": f"u{rnd.randrange(40)}", "tier": rnd.choice(["gold", "silver", None, 1])}
            if rnd.random() < 0.25:
                e["user"]["extra"] = {"since": rnd.choice([2000 + rnd.randrange(25), "2010"])}
        elif rnd.random() < 0.6:
            e["user"] = rnd.choice(["anonymous", 17, [1, 2], None])
        e["price"] = number()
        if rnd.random() < 0.8:
            e["items"] = [{"sku": rnd.choice([f"s{rnd.randrange(20)}", 5]), "qty": rnd.choice([1, 2, "3", 4.5, None])}
                          for _ in range(rnd.randrange(4))]
        if rnd.random() < 0.4:
            e["tags"] = [rnd.choice(["a", 1, None, {"k": "v"}, 2.5, [1]]) for _ in range(rnd.randrange(4))]
        if rnd.random() < 0.3:
            e["score"] = number()
        if rnd.random() < 0.3:
            e["matrix"] = [[rnd.choice([1, 2, "x", None, 3.5]) for _ in range(rnd.randrange(3))]
                           for _ in range(rnd.randrange(3))]
        if rnd.random() < 0.3:
            e["events"] = [{"t": rnd.choice([rnd.randrange(10**6), "late"]),
                            "p": rnd.choice([{"x": number(), "y": "b"}, {"x": 1.5}, "flat", None])}
                           for _ in range(rnd.randrange(3))]
        if rnd.random() < 0.3:
            e["when"] = rnd.choice(["2024-01-02", "2024-13-40", "2023-06-30T10:00:00", 20240102])
        if rnd.random() < 0.3:
            e["flag"] = rnd.choice([True, False, "true", 0])
        if rnd.random() < 0.2:
            e["big"] = rnd.choice([2**31 + 5, -(2**63), 12, "9" * 25])
        out.append(json.dumps(e))
    return out


def _one_table(base: Path, name: str, parts: list[Callable[[str], None]]) -> Path:
    """Write each part into its own directory, then gather their files into ``base/name``."""
    table = base / name
    table.mkdir(parents=True)
    for i, write in enumerate(parts):
        part = base / f"{name}.part{i}"
        write(str(part))
        for f in part.glob("*.parquet"):
            shutil.move(str(f), str(table / f"{i}-{f.name}"))
        shutil.rmtree(part)
    return table


def bloom_paths(spark: SparkSession, schema: str, layout: str) -> dict[str, str]:
    """``BLOOM_PATHS`` that ``schema`` shreds as primitives -> their Parquet leaf in ``layout``."""
    struct = spark.createDataFrame([], schema if schema.startswith("struct<") else f"struct<{schema}>").schema
    out = {}
    for dotted in BLOOM_PATHS:
        try:
            out[dotted] = shredded_leaf("v", struct, dotted, layout)
        except ValueError:  # not a primitive of this schema: no typed leaf to filter
            continue
    return out


def _spark_writer(spark: SparkSession, df: DataFrame, path: str, schema: str | None,
                  options: dict[str, str] | None = None, sort_by: list[str] | None = None) -> None:
    df = df.coalesce(1)
    if sort_by:
        df = df.sortWithinPartitions(*[F.expr(e) for e in sort_by])
    with spark_shredding(spark, schema is not None, None if schema == "inferred" else schema):
        df.write.options(**(options or {})).parquet(path)


def write_tables(spark: SparkSession, directory: str | Path, rows: int = 1200, seed: int = 7,
                 variant: bool = True) -> dict[str, str]:
    """Write every table under ``directory``; return logical name -> Parquet directory. Without
    ``variant``, the nested table only (Spark 3.5 has no VARIANT to write the others with)."""
    base = Path(directory)
    paths = {"nested": str(base / "nested")}
    adtech.write_events(spark, paths["nested"], rows=rows, payload_width=16, seed=seed, partitions=3)
    if not variant:
        return paths

    variant_rows = max(rows // 3, 50)
    truth = spark.createDataFrame(list(enumerate(variant_json(variant_rows, seed))), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v")
    paths["variant_truth"] = str(base / "variant_truth")
    _spark_writer(spark, truth.repartition(2, "id"), paths["variant_truth"], None)

    def part(i: int, count: int) -> DataFrame:
        return truth.where(f"id % {count} = {i}")

    draft = [lambda p, i=i, s=s: write_shredded(part(i, len(DRAFT_SCHEMAS)).coalesce(1), p, {"v": s}, "draft",
                                                bloom_filters={"v": list(bloom_paths(spark, s, "draft"))},
                                                bloom_ndv=GROUP_ROWS, sort_by=SORT_BY, **SKIPPING)
             for i, s in enumerate(DRAFT_SCHEMAS)]
    paths["variant_draft"] = str(_one_table(base, "variant_draft", draft))
    # Spark's writer takes Parquet's bloom options as they are; the inferred schema shreds these
    # paths under the same names where it types them as primitives
    spec_options = dict(SKIPPING)
    for schema in [s for s in SPEC_SCHEMAS if s not in (None, "inferred")]:
        for leaf in bloom_paths(spark, schema, "spec").values():
            spec_options[f"parquet.bloom.filter.enabled#{leaf}"] = "true"
            spec_options[f"parquet.bloom.filter.expected.ndv#{leaf}"] = str(GROUP_ROWS)
    spec = [lambda p, i=i, s=s: _spark_writer(spark, part(i, len(SPEC_SCHEMAS)), p, s, spec_options, SORT_BY)
            for i, s in enumerate(SPEC_SCHEMAS)]
    paths["variant_spec"] = str(_one_table(base, "variant_spec", spec))
    return paths
