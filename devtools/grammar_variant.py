"""Random path reads of a VARIANT column (``data.variant_json`` events; tables ``variant_*``).

Paths follow the events' shape and stray from it: through arrays and arrays of arrays, into
values whose type changes from row to row, past the end of arrays, into scalars as if they were
objects, to keys no row has. Each read is cast to a random type (scalars of every kind, decimals
of every width, dates, binaries, arrays, structs, maps, VARIANT), with ``variant_get`` (fails on
a bad cast under either ANSI setting), ``try_variant_get``, ``CAST`` of a VARIANT read, or is
tested for JSON null, rendered as JSON, nested reads of reads, and higher-order functions over
``array<variant>`` reads. Queries put them in projections, filters, aggregates, windows,
self-joins, correlated subqueries, unions, sorts and limits.

Each query is judged on one table: ``variant_spec`` (Spark's spec layout, one shredding schema
per file) and ``variant_truth`` (unshredded) against stock Spark on the same files;
``variant_draft`` (draft layout, which only the extension reads) against stock Spark on
``variant_truth``, the same events unshredded.
"""
from __future__ import annotations

import random

from sqlglot import exp

from .build import binary, col, fn, lam, lit, ordered, paren, table, window
from .case import Case

# key -> subtree (None: a leaf); "[]" is an array's element.
SHAPE: dict = {
    "id": None, "kind": None, "price": None, "score": None, "when": None, "flag": None, "big": None,
    "user": {"id": None, "name": None, "tier": None, "extra": {"since": None}},
    "items": {"[]": {"sku": None, "qty": None}},
    "tags": {"[]": {"k": None}},
    "matrix": {"[]": {"[]": None}},
    "events": {"[]": {"t": None, "p": {"x": None, "y": None}}},
    "nope": {"deeper": None},
}
SCALARS = ["int", "bigint", "smallint", "tinyint", "double", "float", "decimal(10,2)", "decimal(4,1)",
           "decimal(38,10)", "decimal(5,0)", "string", "boolean", "date", "timestamp", "timestamp_ntz",
           "binary"]
COMPLEX = ["variant", "array<string>", "array<bigint>", "array<variant>", "array<array<bigint>>",
           "struct<sku: string, qty: int>", "struct<id: bigint, name: string>", "map<string, string>",
           "map<string, variant>", "struct<x: double, y: variant>", "array<struct<t: bigint>>"]
NUMERIC = ["int", "bigint", "double", "decimal(10,2)", "decimal(38,10)", "float", "smallint"]
#: Types Python cannot compare or hash alike on both sides are rendered to text first.
AS_TEXT = ("map", "struct", "array", "variant", "binary")


def path(rnd: random.Random) -> str:
    """A JSONPath: mostly along ``SHAPE``, sometimes past it."""
    out, node = "$", SHAPE
    for _ in range(rnd.randrange(0, 5)):
        if rnd.random() < 0.1:  # stray: an index into an object, a key into an array or scalar
            out += rnd.choice(["[0]", "[1]", ".a", ".nope", "[9]"])
            node = None
            continue
        if node is None:
            break
        key = rnd.choice(list(node))
        if key == "[]":
            out += f"[{rnd.choice([0, 0, 1, 2, 5])}]"
        else:
            out += f".{key}" if rnd.random() < 0.9 else f"['{key}']"
        node = node[key]
    return out


def target(rnd: random.Random) -> str:
    return rnd.choice(SCALARS) if rnd.random() < 0.7 else rnd.choice(COMPLEX)


def comparable(e: exp.Expression, to: str) -> exp.Expression:
    if to.startswith(AS_TEXT):
        return fn("to_json", e) if not to.startswith("binary") else fn("hex", e)
    return e


def read(rnd: random.Random, v: exp.Expression, safe: bool = False, to: str | None = None) -> exp.Expression:
    """One path read of ``v``, cast to ``to`` (random by default), rendered comparable."""
    to = to or target(rnd)
    p = path(rnd)
    how = rnd.random()
    if safe or how < 0.4:
        e = fn("try_variant_get", v, lit(p), lit(to))
    elif how < 0.65:
        e = fn("variant_get", v, lit(p), lit(to))
    elif how < 0.75:
        e = exp.Cast(this=fn("variant_get", v, lit(p), lit("variant")), to=exp.DataType.build(to, dialect="spark"))
    elif how < 0.82:  # a read of a read
        inner = fn("try_variant_get", v, lit(path(rnd)), lit("variant"))
        e = fn("try_variant_get" if safe or rnd.random() < 0.5 else "variant_get", inner, lit(p), lit(to))
    elif how < 0.88:
        return fn("is_variant_null", fn("try_variant_get", v, lit(p), lit("variant")))
    elif how < 0.92:
        return fn("schema_of_variant", fn("try_variant_get", v, lit(p), lit("variant")))
    else:  # a higher-order function over the elements of an array read
        x = f"x{rnd.randrange(100)}"
        arr = fn("try_variant_get", v, lit(rnd.choice(["$.items", "$.tags", "$.events", "$.matrix", "$"])),
                 lit("array<variant>"))
        el_to = rnd.choice(["string", "bigint", "double", "variant"])
        body = fn("try_variant_get" if safe or rnd.random() < 0.6 else "variant_get", col(x),
                  lit(rnd.choice(["$.sku", "$.qty", "$.t", "$.p.x", "$", "$[0]", "$.k"])), lit(el_to))
        if rnd.random() < 0.5:
            return fn("to_json", fn("transform", arr, lam(body, x)))
        test = exp.Not(this=exp.Is(this=body, expression=exp.Null()))
        return fn(rnd.choice(["exists", "forall"]), arr, lam(test, x)) if rnd.random() < 0.5 else \
            fn("size", fn("filter", arr, lam(test, x)))
    return comparable(e, to)


#: The type each compared path is shredded as in the fuzzer's files (``data.DRAFT_SCHEMAS``,
#: ``data.SPEC_SCHEMAS``): a comparison at that type is one the extension pushes to Parquet as a
#: skip predicate, so drawing it often makes the files' bloom filters, dictionaries, statistics and
#: page indexes skip under the queries.
SHREDDED_AS = {"$.id": "bigint", "$.user.id": "int", "$.price": "decimal(10,2)", "$.score": "double",
               "$.items[0].qty": "bigint", "$.big": "bigint", "$.when": "date", "$.flag": "boolean",
               "$.events[0].t": "bigint", "$.matrix[0][0]": "bigint", "$.kind": "string", "$.user.name": "string"}


def compare(rnd: random.Random, v: exp.Expression) -> exp.Expression:
    to = rnd.choice(NUMERIC + ["string", "date", "boolean"])
    p = rnd.choice(list(SHREDDED_AS))
    if rnd.random() < 0.5:
        to = SHREDDED_AS[p]
    e = fn("try_variant_get" if rnd.random() < 0.7 else "variant_get", v, lit(p), lit(to))
    text = rnd.choice(["view", "u3", "5", "2024-01-02", "click", f"u{rnd.randrange(40)}"])
    value = {"string": text, "date": "2024-01-02",
             "boolean": rnd.choice([True, False])}.get(to, rnd.choice([0, 10, 100, 2.5, 300, 70000]))
    if to == "date":
        value = exp.Cast(this=lit(value), to=exp.DataType.build("date"))
    op = rnd.choice([exp.EQ, exp.LT, exp.GTE, exp.NEQ, exp.NullSafeEQ])
    return binary(op, e, lit(value))


def pred(rnd: random.Random, v: exp.Expression) -> exp.Expression:
    how = rnd.random()
    if how < 0.5:
        p = compare(rnd, v)
    elif how < 0.75:
        test = exp.Is(this=read(rnd, v), expression=exp.Null())
        p = test if rnd.random() < 0.5 else exp.Not(this=test)
    elif how < 0.85:
        p = exp.Not(this=exp.Is(this=v, expression=exp.Null()))
    else:
        p = binary(exp.EQ, fn("pmod", col("id", v.table or None), lit(rnd.choice([3, 7]))), lit(1))
    if rnd.random() < 0.25:
        p = binary(rnd.choice([exp.And, exp.Or]), paren(p), paren(pred(rnd, v)))
    return p


def query(rnd: random.Random) -> Case:
    shape = rnd.choice(SHAPES)
    ast, order = shape(rnd)
    t = rnd.choice(["variant_spec", "variant_spec", "variant_draft", "variant_draft", "variant_truth"])
    ast = ast.transform(lambda n: table(t, n.alias or None) if isinstance(n, exp.Table) and n.name == "T" else n)
    return Case(ast=ast, kind="variant", table=t, order=order,
                reference="variant_truth" if t == "variant_draft" else None, notes={"shape": shape.__name__})


V = col("v")


def project(rnd: random.Random):
    q = exp.select(col("id"), *[read(rnd, V) for _ in range(rnd.randrange(1, 4))]).from_(table("T"))
    if rnd.random() < 0.5:
        q = q.where(pred(rnd, V))
    return q, None


def filtered(rnd: random.Random):
    q = exp.select(col("id"), read(rnd, V, safe=rnd.random() < 0.5)).from_(table("T")).where(pred(rnd, V))
    if rnd.random() < 0.3:
        return q.order_by(ordered(col("id"), desc=rnd.random() < 0.5)).limit(rnd.randrange(1, 30)), []
    return q, None


def grouped(rnd: random.Random):
    key = read(rnd, V, to=rnd.choice(SCALARS[:12]))
    aggs = [fn("count", exp.Star()), fn("count", read(rnd, V)),
            fn(rnd.choice(["max", "min", "sum"]), fn("try_variant_get", V, lit(rnd.choice(["$.price", "$.id", "$.user.id"])),
                                                     lit(rnd.choice(NUMERIC))))]
    q = exp.select(exp.alias_(key, "g"), *aggs[: rnd.randrange(1, 4)]).from_(table("T")).group_by(col("g"))
    if rnd.random() < 0.3:
        q = q.where(pred(rnd, V))
    return q, None


def aggregates_only(rnd: random.Random):
    return exp.select(fn("count", V), fn("count_if", exp.Is(this=V, expression=exp.Null())),
                      fn(rnd.choice(["max", "min"]), read(rnd, V, to=rnd.choice(SCALARS[:12]))),
                      fn("sum", fn("try_variant_get", V, lit("$.price"), lit(rnd.choice(NUMERIC))))).from_(table("T")), None


def limited(rnd: random.Random):
    inner = exp.select("*").from_(table("T")).order_by(ordered(col("id"))).limit(rnd.choice([20, 150]))
    q = exp.select(col("id"), read(rnd, V)).from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("s"))))
    return q.where(pred(rnd, V)), None


def self_join(rnd: random.Random):
    a, b = col("v", "a"), col("v", "b")
    kind = rnd.choice(["inner", "left", "full outer", "left semi", "left anti"])
    on = binary(exp.EQ, col("id", "a"), binary(exp.Add, col("id", "b"), lit(rnd.choice([0, 1]))))
    if rnd.random() < 0.5:
        on = exp.And(this=on, expression=paren(binary(exp.NullSafeEQ, fn("try_variant_get", a, lit("$.kind"), lit("string")),
                                                      fn("try_variant_get", b, lit("$.kind"), lit("string")))))
    # Spark may compute a join's projections below it, on rows the join then drops (stock Spark
    # too), so a read that can fail would fail or not by plan: projections here never fail.
    items = [col("id", "a"), read(rnd, a, safe=True)]
    semi = "semi" in kind or "anti" in kind
    if not semi:
        items += [col("id", "b"), read(rnd, b, safe=True)]
    q = exp.select(*items).from_(table("T", "a")).join(table("T", "b"), on=on, join_type=kind)
    if rnd.random() < 0.4:
        q = q.where(pred(rnd, a))
    return q, None


def windowed(rnd: random.Random):
    part = read(rnd, V, safe=True, to=rnd.choice(["string", "bigint", "boolean"]))
    num = fn("try_variant_get", V, lit(rnd.choice(["$.price", "$.user.id", "$.score"])), lit(rnd.choice(NUMERIC)))
    funcs = [window(fn("row_number"), [part], [ordered(col("id"))]),
             window(fn(rnd.choice(["sum", "max", "count"]), num), [part], [ordered(col("id"))]),
             window(fn("lag", read(rnd, V, safe=True), lit(1)), [], [ordered(col("id"))])]
    return exp.select(col("id"), *rnd.sample(funcs, rnd.randrange(1, 3))).from_(table("T")), None


def correlated(rnd: random.Random):
    e, x = col("v", "e"), col("v", "x")
    link = binary(exp.EQ, col("id", "x"), binary(exp.Add, col("id", "e"), lit(1)))
    if rnd.random() < 0.4:  # a correlated scalar subquery
        op = rnd.choice([exp.EQ, exp.LT, exp.GTE])
        num = fn("try_variant_get", x, lit(rnd.choice(["$.price", "$.id", "$.user.id"])), lit(rnd.choice(NUMERIC)))
        sub = exp.select(fn(rnd.choice(["max", "count", "sum"]), num)).from_(table("T", "x")).where(
            binary(op, col("id", "x"), col("id", "e")))
        q = exp.select(col("id", "e"), read(rnd, e, safe=True), exp.alias_(exp.Subquery(this=sub), "s")) \
            .from_(table("T", "e"))
        return (q.where(pred(rnd, e)) if rnd.random() < 0.3 else q), None
    sub = exp.select(lit(1)).from_(table("T", "x")).where(link).where(pred(rnd, x))
    cond = exp.Exists(this=sub)
    q = exp.select(col("id", "e"), read(rnd, e)).from_(table("T", "e"))
    return q.where(exp.Not(this=cond) if rnd.random() < 0.3 else cond), None


def union(rnd: random.Random):
    item = read(rnd, V)
    left = exp.select(col("id"), item).from_(table("T")).where(binary(exp.LT, col("id"), lit(60)))
    right = exp.select(col("id"), item.copy()).from_(table("T")).where(pred(rnd, V))
    return exp.Union(this=left, expression=right, distinct=False), None


def exploded(rnd: random.Random):
    arr = fn("try_variant_get", V, lit(rnd.choice(["$", "$.user", "$.items", "$.events[0]", "$.user.extra"])),
             lit("variant"))
    lateral = exp.Lateral(this=fn(rnd.choice(["variant_explode", "variant_explode_outer"]), arr),
                          alias=exp.TableAlias(this=exp.to_identifier("e")))
    q = exp.select(col("id"), col("pos", "e"), col("key", "e"), read(rnd, col("value", "e"))).from_(table("T"))
    if rnd.random() < 0.4:
        q = q.where(pred(rnd, V))
    return q.join(lateral), None


SHAPES = [project, project, filtered, filtered, grouped, aggregates_only, limited, self_join, windowed,
          correlated, union, exploded]
