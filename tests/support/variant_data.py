"""Variant test data both layouts' tests read: JSON events with every kind of mismatch, the
schemas they are shredded by, Spark's spec-layout writer, and the path queries both layouts run
against an unshredded truth."""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession

from pyspark_ext.spark_shredding import spark_shredding

ANSI = "spark.sql.ansi.enabled"


def mixed_json(n: int, seed: int = 7) -> list[str | None]:
    """Events with type mismatches, missing fields, partial objects, arrays of objects, arrays of
    mixed elements, JSON nulls, SQL NULLs and non-object top-level values."""
    rnd = random.Random(seed)
    out: list[str | None] = []
    for i in range(n):
        r = rnd.random()
        if r < 0.03:
            out.append(None)
            continue
        if r < 0.06:
            out.append(rnd.choice(['[1, 2, {"a": 3}]', '"just a string"', "42", "null", "true"]))
            continue
        e: dict = {"id": i, "kind": rnd.choice(["view", "click", "buy"])}
        if rnd.random() < 0.9:
            e["user"] = {"id": rnd.randrange(1000), "name": f"u{rnd.randrange(50)}",
                         "tier": rnd.choice(["gold", "silver", None])}
            if rnd.random() < 0.2:
                e["user"]["extra"] = {"since": 2000 + rnd.randrange(25)}
        elif rnd.random() < 0.5:
            e["user"] = rnd.choice(["anonymous", 17, [1, 2]])
        e["price"] = rnd.choice([round(rnd.random() * 100, 2), rnd.randrange(100), "12.5", None])
        if rnd.random() < 0.8:
            e["items"] = [{"sku": f"s{rnd.randrange(30)}", "qty": rnd.choice([1, 2, "3", 4.5])}
                          for _ in range(rnd.randrange(4))]
        if rnd.random() < 0.3:
            e["tags"] = [rnd.choice(["a", 1, None, {"k": "v"}, 2.5]) for _ in range(3)]
        if rnd.random() < 0.2:
            e["score"] = rnd.choice([1e300, 2.5e-3, -7.25e10])
        out.append(json.dumps(e))
    return out


def mixed_truth(spark: SparkSession, n: int, seed: int) -> DataFrame:
    """``mixed_json`` events as (id, VARIANT) rows, parsed by ``parse_json``: unshredded."""
    return spark.createDataFrame(list(enumerate(mixed_json(n, seed=seed))), "id bigint, j string") \
        .selectExpr("id", "parse_json(j) AS v")


def mixed_variants(spark: SparkSession, n: int, seed: int, view: str):
    """``mixed_json`` events as (id, VARIANT) rows, also registered as temp view ``view``."""
    truth = mixed_truth(spark, n, seed)
    truth.createOrReplaceTempView(view)
    return truth


SHRED_SCHEMA = ("id bigint, kind string, price decimal(10,2), score double, "
                "user struct<id: int, name: string, tier: string>, "
                "items array<struct<sku: string, qty: bigint>>, tags array<string>")


FULL = ("struct<id: bigint, kind: string, price: decimal(10,2), score: double, "
        "user: struct<id: int, name: string, tier: string>, "
        "items: array<struct<sku: string, qty: bigint>>, tags: array<string>>")
CONFLICTING = "struct<id: string, user: struct<name: string>, items: array<struct<sku: string>>>"


def write_spec(spark: SparkSession, df, path: str, schema: str | None) -> None:
    with spark_shredding(spark, schema is not None, schema):
        df.coalesce(1).write.mode("overwrite").parquet(path)


def write_spec_three_ways(spark: SparkSession, truth: DataFrame, base: Path) -> str:
    """``truth``'s rows as spec-layout files shredded three ways, as Spark's writer does per file
    (``id % 3`` picks ``FULL``, ``CONFLICTING`` or no shredding), gathered in one table
    ``base/table``; returns the table as a query source."""
    table = base / "table"
    table.mkdir()
    for i, schema in enumerate([FULL, CONFLICTING, None]):
        part = str(base / f"part{i}")
        write_spec(spark, truth.where(f"id % 3 = {i}"), part, schema)
        for f in (base / f"part{i}").glob("*.parquet"):
            shutil.move(str(f), str(table / f"{i}-{f.name}"))
    return source(table)


def source(path) -> str:
    # Queries name the files directly: a temp view keeps the plan analyzed when it was created,
    # so "extension off" would not really be stock Spark.
    return f"parquet.`{path}`"


QUERIES = [
    "SELECT id, to_json(v) FROM {t}",
    "SELECT id, v FROM {t}",
    "SELECT id, variant_get(v, '$.id', 'bigint'), variant_get(v, '$.kind', 'string') FROM {t}",
    "SELECT id, try_variant_get(v, '$.price', 'decimal(10,2)'), try_variant_get(v, '$.price', 'double') FROM {t}",
    "SELECT id, try_variant_get(v, '$.price', 'int'), try_variant_get(v, '$.price', 'string') FROM {t}",
    "SELECT id, v:user.name::string, v:user.id::bigint, v:user.tier::string FROM {t}",
    "SELECT id, try_variant_get(v, '$.user.id', 'smallint'), v:user.extra.since::int FROM {t}",
    "SELECT id, v:user FROM {t}",
    "SELECT id, to_json(v:user), schema_of_variant(v:user.extra) FROM {t}",
    "SELECT id, v:items[0].sku::string, try_variant_get(v, '$.items[1].qty', 'int'), v:items[5] FROM {t}",
    "SELECT id, to_json(v:items), to_json(v:tags), try_variant_get(v, '$.tags[1]', 'string') FROM {t}",
    "SELECT id, v:missing.field::string, v:kind.nested::string, v:[0]::string, v:id[0] FROM {t}",
    "SELECT id, variant_get(v, '$.score', 'double'), try_variant_get(v, '$.score', 'float') FROM {t}",
    "SELECT id, is_variant_null(v:user.tier), is_variant_null(v) FROM {t}",
    "SELECT id, try_cast(v AS int), cast(v:kind AS string), try_cast(v:user AS map<string, string>) FROM {t}",
    "SELECT id FROM {t} WHERE v:kind::string = 'buy' AND try_variant_get(v, '$.price', 'double') > 50",
    "SELECT id FROM {t} WHERE v:user.tier::string IS NULL OR v:user.id::int BETWEEN 100 AND 200",
    "SELECT id FROM {t} WHERE v:user.name::string IN ('u1', 'u2') OR startswith(v:kind::string, 'cl')",
    "SELECT v:kind::string AS k, count(*), sum(try_variant_get(v, '$.price', 'double')), "
    "max(v:user.id::int) FROM {t} GROUP BY 1",
    "SELECT count(DISTINCT v:user.name::string), avg(v:id::bigint) FROM {t}",
    "SELECT a.id, b.id FROM {t} a JOIN {t} b ON a.v:user.id::int = b.v:id::int",
    "SELECT id, rank() OVER (PARTITION BY v:kind::string ORDER BY v:id::bigint) FROM {t}",
    "SELECT id, pos, to_json(item), item:sku::string FROM {t} "
    "LATERAL VIEW posexplode(try_cast(v:items AS array<variant>)) x AS pos, item",
    "SELECT id, key, to_json(value) FROM {t}, LATERAL variant_explode(v:user)",
    "SELECT id, to_json(v) FROM {t} ORDER BY v:id::bigint DESC NULLS LAST, id LIMIT 25",
    "SELECT id, transform(try_cast(v:items AS array<variant>), i -> i:qty::string) FROM {t}",
]


FAILING = [
    "SELECT variant_get(v, '$.user.name', 'int') FROM {t}",
    "SELECT v:price::int FROM {t}",
    "SELECT cast(v:items[0].sku AS int) FROM {t}",
]
