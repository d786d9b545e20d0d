"""Random queries over the nested ad-tech event log (``pyspark_ext.adtech_data``): scalar leaves,
whole structs, arrays and maps used whole, higher-order functions, and the operators the pruning
walks through (joins of every kind, aggregates, rollups, windows, generators, unions, subqueries,
sorts on structs, CTEs, limits)."""
from __future__ import annotations

import random

SCALARS = [
    "id", "user.user_id", "user.geo.country", "user.geo.city", "round(user.geo.lat, 3)", "page.url",
    "page.views[0].ts", "page.views[1].ref", "element_at(page.views, -1).items[0].cpc",
    "attrs['ctr'].score", "attrs['x'].label", "payload.f0003", "payload.f0005", "size(page.views)",
    "size(user.segments)", "user.segments[0]", "page.views[0].items[1].tags[0]", "cardinality(attrs)",
    "isnull(user.geo)", "isnotnull(page.views[2])", "coalesce(page.views[3].ref, user.geo.city)",
]
WHOLE = [
    "user.geo", "page.views[0]", "attrs['ctr']", "user", "payload", "page.views", "attrs",
    "page.views[0].items", "named_struct('a', user.geo, 'b', page.url)", "array(user.geo, user.geo)",
    "struct(page.views[0].items[0])",
]
HIGHER_ORDER = [
    "transform(page.views, v -> v.ts)", "filter(page.views, v -> v.ref IS NOT NULL)",
    "exists(page.views, v -> v.items[0].clicked)", "aggregate(page.views, 0L, (a, v) -> a + size(v.items))",
    "transform(page.views, v -> named_struct('t', v.ts, 'n', size(v.items)))", "map_values(attrs).label",
    "transform(filter(page.views, v -> v.ts % 2 = 0), v -> v.items.cpc)", "forall(page.views, v -> v.ts > 0)",
    "filter(page.views, v -> v.ts > 0)[0].items", "map_filter(attrs, (k, v) -> v.score > 0.5)",
    "transform_values(attrs, (k, v) -> v.label)", "page.views.items.item_id", "flatten(page.views.items).cpc",
    "array_sort(transform(page.views, v -> v.ref))",
    "zip_with(page.views, user.segments, (v, s) -> concat(s, v.ref))",
    "transform(page.views, (v, i) -> v.items[i].tags)", "array_distinct(page.views.ref)",
    "sort_array(page.views)[0].ts", "reverse(page.views)[0]", "slice(page.views, 1, 2).ts",
    "concat(page.views, page.views)[1].ref", "array_max(transform(page.views, v -> v.ts))",
    "try_element_at(page.views, 2).items",
]
PREDICATES = [
    "user.geo.country = 'US'", "page.views[0].ts % 3 = 0", "size(page.views) > 1",
    "exists(page.views, v -> v.ref LIKE '%a%')", "attrs['ctr'].score > 0.3", "payload.f0003",
    "user.geo IS NOT NULL", "id % 5 = 1", "page.views[0].items[0].clicked", "true",
]
JOINS = ["JOIN", "LEFT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN"]


def _qualified(expr: str, alias: str) -> str:
    if expr == "id":
        return f"{alias}.id"
    for column in ("user", "page", "attrs", "payload"):
        expr = expr.replace(column, f"{alias}.{column}")
    return expr


def query(rnd: random.Random) -> str:
    def expr(kind: str | None = None) -> str:
        kind = kind or rnd.choice("sswhh")
        if kind == "s":
            return rnd.choice(SCALARS)
        if kind == "h":
            return rnd.choice(HIGHER_ORDER)
        whole = rnd.choice(WHOLE)
        uses = [whole, f"to_json({whole})", f"{whole} IS NULL"]
        if not whole.startswith("attrs") or "[" in whole:  # maps cannot be hashed
            uses.append(f"hash({whole})")
        return rnd.choice(uses)

    e1, e2, pred = expr(), expr(), rnd.choice(PREDICATES)
    shapes = [
        lambda: f"SELECT id, {e1}, {e2} FROM {{t}} WHERE {pred}",
        lambda: f"SELECT {expr('s')} AS k, count(*), max({expr('s')}) FROM {{t}} WHERE {pred} GROUP BY 1",
        lambda: f"SELECT id, {rnd.choice(['x.ts', 'x.items[0].cpc', 'to_json(x)', 'x.items', 'size(x.items)', 'x'])}, "
                f"{e1} FROM {{t}} LATERAL VIEW {rnd.choice(['', 'OUTER'])} explode(page.views) e AS x WHERE {pred}",
        lambda: f"SELECT id, {e1}, row_number() OVER (PARTITION BY user.geo.country ORDER BY id), "
                f"sum(size(page.views)) OVER (PARTITION BY {expr('s')} ORDER BY id) FROM {{t}}",
        lambda: _join(rnd, e1, e2),
        lambda: f"SELECT id, {e1} FROM {{t}} WHERE id < 100 UNION ALL SELECT id, {e1} FROM {{t}} WHERE id > 1900",
        lambda: f"SELECT id, {e1} FROM {{t}} WHERE user.geo.country IN "
                f"(SELECT user.geo.country FROM {{t}} WHERE id < 20 AND {pred})",
        lambda: f"SELECT id, {e1} FROM {{t}} ORDER BY "
                f"{rnd.choice(['user.geo', 'page.views[0]', 'user.geo.city', 'page.views'])} NULLS FIRST, id LIMIT 25",
        lambda: (lambda g: f"SELECT {g} AS g, count(*), max({expr('s')}) FROM {{t}} GROUP BY {g}")(
            rnd.choice(["user.geo", "page.views[0]", "user.geo.country", "page.views[0].items[0]",
                        "struct(user.geo.city, page.url)"])),
        lambda: f"SELECT DISTINCT {rnd.choice(WHOLE[:3] + SCALARS[:5])} FROM {{t}}",
        lambda: "SELECT id, p, x.ref FROM {t} LATERAL VIEW posexplode(page.views) e AS p, x WHERE p > 0",
        lambda: "SELECT id, k, v.score FROM {t} LATERAL VIEW explode(attrs) e AS k, v",
        lambda: f"WITH c AS (SELECT id, user, page, attrs, payload FROM {{t}} WHERE {pred}) SELECT c.id, {e1} FROM c",
        lambda: "SELECT user.geo.country, user.geo.city, count(*), sum(size(page.views)) FROM {t} "
                "GROUP BY ROLLUP(user.geo.country, user.geo.city)",
        lambda: f"SELECT id, {e1} FROM {{t}} e WHERE EXISTS (SELECT 1 FROM {{t}} x WHERE x.id = e.id + 1 "
                "AND x.user.geo.city = e.user.geo.city)",
        lambda: f"SELECT id, {e1} FROM (SELECT * FROM {{t}} ORDER BY id LIMIT 700) WHERE {pred}",
    ]
    return rnd.choice(shapes)()


def _join(rnd: random.Random, e1: str, e2: str) -> str:
    kind = rnd.choice(JOINS)
    a, b = _qualified(e1, "a"), _qualified(e2, "b")
    if "SEMI" in kind or "ANTI" in kind:
        return (f"SELECT a.id, {a} FROM {{t}} a {kind} {{t}} b "
                "ON a.id = b.id + 1 AND b.user.geo.country = a.user.geo.country")
    return f"SELECT a.id, {a}, {b} FROM {{t}} a {kind} {{t}} b ON a.id = b.id + 1 AND b.user.geo.city <> 'zz'"
