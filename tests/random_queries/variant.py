"""Random path reads of a VARIANT column (``tests.test_draft_variant.mixed_json`` events): every
function and syntax, paths that exist, are missing, go through arrays or through non-objects, target
types of every kind, in projections, filters, aggregates, joins, limits and null tests."""
from __future__ import annotations

import random

PATHS = [
    "$", "$.id", "$.kind", "$.price", "$.score", "$.user", "$.user.id", "$.user.name", "$.user.tier",
    "$.user.extra", "$.user.extra.since", "$.items", "$.items[0]", "$.items[1].sku", "$.items[0].qty",
    "$.items[5].sku", "$.tags", "$.tags[0]", "$.tags[2].k", "$.nope", "$.user.nope", "$[0]", "$[2].a",
    "$.kind.x",
]
TYPES = [
    "int", "bigint", "smallint", "double", "float", "decimal(10,2)", "decimal(4,1)", "decimal(38,10)",
    "string", "boolean", "date", "timestamp", "variant", "array<string>", "array<bigint>",
    "struct<sku: string, qty: int>", "map<string, string>", "array<variant>", "binary",
]
# Python cannot compare these directly; they are compared as text.
AS_TEXT = {"variant", "array<variant>", "map<string, string>", "struct<sku: string, qty: int>",
           "array<string>", "array<bigint>"}


def _colon(path: str, alias: str) -> str:
    return alias if path == "$" else f"{alias}:{path[2:] if path.startswith('$.') else path[1:]}"


def expr(rnd: random.Random, alias: str = "v", safe: bool = False) -> str:
    """A path read; ``safe`` ones never fail (try_variant_get)."""
    path, to, how = rnd.choice(PATHS), rnd.choice(TYPES), rnd.random()
    if safe or how < 0.4:
        e = f"try_variant_get({alias}, '{path}', '{to}')"
    elif how < 0.7:
        e = f"variant_get({alias}, '{path}', '{to}')"
    else:
        e = f"{_colon(path, alias)}::{to}"
    if to == "binary":
        return f"hex({e})"
    return f"to_json({e})" if to in AS_TEXT else e


def query(rnd: random.Random) -> str:
    e1, e2 = expr(rnd), expr(rnd)
    path = rnd.choice(["$.id", "$.user.id", "$.price", "$.score", "$.items[0].qty"])
    to = rnd.choice(["int", "bigint", "double", "decimal(10,2)", "string"])
    compare = f"try_variant_get(v, '{path}', '{to}') {rnd.choice(['=', '<', '>=', '<>', '<=>'])} " \
              f"{rnd.choice(['10', '100', chr(39) + '5' + chr(39), '2.5', '300'])}"
    shapes = [
        lambda: f"SELECT id, {e1}, {e2} FROM {{t}}",
        lambda: f"SELECT id FROM {{t}} WHERE {e1} IS NOT NULL AND {e2} IS NULL",
        lambda: f"SELECT {e1} AS g, count(*), count({e2}) FROM {{t}} GROUP BY 1",
        lambda: f"SELECT id, {e1} FROM {{t}} WHERE {compare}",
        lambda: f"SELECT id, {e1} FROM (SELECT * FROM {{t}} ORDER BY id LIMIT 150) WHERE {e2} IS NOT NULL",
        # Spark may compute a join's projected columns below it, so on rows the join then drops
        # (stock Spark does it too): a failing read there fails or not by which side ran first.
        lambda: f"SELECT a.id, {expr(rnd, 'a.v', safe=True)} FROM {{t}} a JOIN {{t}} b ON a.id = b.id + 1 "
                f"WHERE {expr(rnd, 'b.v')} IS NOT NULL",
        lambda: f"SELECT id, {e1} FROM {{t}} WHERE v IS NOT NULL AND id % 7 = 3",
        lambda: f"SELECT count(v), count_if(v IS NULL), max({e1}) FROM {{t}}",
    ]
    return rnd.choice(shapes)()
