"""Random queries over the nested event log (``data`` table ``nested``).

Expressions come from a typed random walk over the table's schema: field reads through structs,
arrays (subscripts, ``element_at``, field reads of arrays of structs) and maps, whole structs,
arrays and maps, and functions by type, higher-order ones (``transform``, ``filter``,
``exists``, ``aggregate``, ``zip_with``, ``map_filter``, ...) walking their lambda variables in
turn. Queries put them in projections, filters, aggregates, rollups, windows, generators,
self-joins of every kind, correlated and uncorrelated subqueries, unions, CTEs, DISTINCT and
sorts on structs. A top-level ORDER BY always ends in a unique key, so the order is total.
"""
from __future__ import annotations

import random

from sqlglot import exp

from .build import Type, binary, col, field, fn, hashable, index, lam, lit, orderable, ordered, paren, pick, \
    table, window
from .case import Case

ITEM: Type = ("struct", (("item_id", "long"), ("cpc", "double"), ("clicked", "boolean"),
                         ("tags", ("array", "string"))))
VIEW: Type = ("struct", (("ts", "long"), ("ref", "string"), ("items", ("array", ITEM))))
COLUMNS: list[tuple[str, Type]] = [
    ("id", "long"),
    ("user", ("struct", (("user_id", "string"),
                         ("geo", ("struct", (("country", "string"), ("city", "string"), ("lat", "double"),
                                             ("lon", "double")))),
                         ("segments", ("array", "string"))))),
    ("page", ("struct", (("url", "string"), ("views", ("array", VIEW))))),
    ("attrs", ("map", "string", ("struct", (("score", "double"), ("label", "string"))))),
    ("payload", ("struct", tuple((f"f{i:04d}", ["long", "string", "double", "boolean"][i % 4])
                                 for i in range(16)))),
]
LITERALS = {
    "long": [0, 1, 3, 7, 100, 599, 1700000000500, 1700000600000],
    "string": ["US", "GB", "IL", "city3", "u1234", "l1", "rpm", "t3", "sponsored", ""],
    "double": [0.0, 0.3, 0.5, 2.5, -45.0, 1.0],
}
MAP_KEYS = ["ctr", "rpm", "x"]


class Walk:
    """Typed random expressions over ``roots`` (expressions with their types)."""

    def __init__(self, rnd: random.Random, roots: list[tuple[exp.Expression, Type]]) -> None:
        self.rnd = rnd
        self.roots = roots
        self.lambdas = 0

    def path(self, roots: list[tuple[exp.Expression, Type]] | None = None) -> tuple[exp.Expression, Type]:
        """A root, then a few steps down into it."""
        e, t = self.rnd.choice(roots or self.roots)
        for _ in range(self.rnd.randrange(5)):
            stepped = self.step(e, t)
            if stepped is None:
                break
            e, t = stepped
        return e, t

    def step(self, e: exp.Expression, t: Type) -> tuple[exp.Expression, Type] | None:
        rnd = self.rnd
        if isinstance(t, str):
            return None
        if t[0] == "struct":
            name, ft = rnd.choice(t[1])
            return field(e, name), ft
        if t[0] == "map":
            if rnd.random() < 0.8:
                return index(e, rnd.choice(MAP_KEYS)), t[2]
            return fn("map_values", e), ("array", t[2])
        elem = t[1]
        how = rnd.random()
        if how < 0.45:
            return index(e, rnd.randrange(4)), elem
        if how < 0.55:
            return fn("element_at", e, lit(rnd.choice([-1, 1, 2]))), elem
        if how < 0.6:
            return fn("try_element_at", e, lit(rnd.choice([2, 5]))), elem
        if how < 0.75 and not isinstance(elem, str) and elem[0] == "struct":
            name, ft = rnd.choice(elem[1])  # a field of every element: an array of it
            return field(e, name), ("array", ft)
        if how < 0.8 and orderable(elem):
            return index(fn(rnd.choice(["sort_array", "array_sort"]), e), 0), elem
        if how < 0.85:
            return index(fn("reverse", e), 0), elem
        if how < 0.9 and not isinstance(elem, str) and elem[0] == "array":
            return fn("flatten", e), elem
        return None

    def expr(self, depth: int = 0) -> tuple[exp.Expression, Type]:
        """A path, maybe wrapped in a function of its type."""
        e, t = self.path()
        if depth < 2 and self.rnd.random() < 0.6:
            return self.wrap(e, t, depth)
        return e, t

    def scalar(self, depth: int = 0) -> tuple[exp.Expression, Type]:
        for _ in range(20):
            e, t = self.expr(depth)
            if isinstance(t, str):
                return e, t
        return self.roots[0]

    def wrap(self, e: exp.Expression, t: Type, depth: int) -> tuple[exp.Expression, Type]:
        rnd = self.rnd
        if t == "long":
            return pick(rnd, [(1, (binary(exp.Add, e, lit(1)), "long")), (1, (fn("pmod", e, lit(7)), "long")),
                              (1, (exp.Cast(this=e, to=exp.DataType.build("string")), "string"))])
        if t == "string":
            return pick(rnd, [(1, (fn("upper", e), "string")), (1, (fn("length", e), "long")),
                              (1, (fn("concat", e, lit("~")), "string")), (1, (fn("substr", e, lit(1), lit(4)), "string"))])
        if t == "double":
            return pick(rnd, [(1, (fn("round", e, lit(3)), "double")), (1, (binary(exp.Mul, e, lit(2)), "double"))])
        if t == "boolean":
            return pick(rnd, [(1, (exp.Not(this=e), "boolean")), (1, (fn("coalesce", e, lit(False)), "boolean"))])
        if t[0] == "struct":
            options = [(1, (fn("to_json", e), "string")), (1, (exp.Is(this=e, expression=exp.Null()), "boolean")),
                       (1, (fn("named_struct", lit("w"), e, lit("n"), lit(1)), ("struct", (("w", t), ("n", "long"))))),
                       (1, (fn("array", e, e), ("array", t))), (1, (fn("coalesce", e, e), t))]
            if hashable(t):
                options.append((1, (fn("hash", e), "long")))
            return pick(rnd, options)
        if t[0] == "map":
            k, v = t[1], t[2]
            a, b = self._vars(2)
            inner = Walk(rnd, [(col(b), v)])
            return pick(rnd, [
                (1, (fn("cardinality", e), "long")), (1, (fn("map_keys", e), ("array", k))),
                (1, (fn("to_json", e), "string")),
                (1, (fn("map_filter", e, lam(self.pred(inner), a, b)), t)),
                (1, (lambda x: (fn("transform_values", e, lam(x[0], a, b)), ("map", k, x[1])))(inner.expr(depth + 1))),
                (0.5, (fn("map_contains_key", e, lit(rnd.choice(MAP_KEYS))), "boolean")),
            ])
        return self.wrap_array(e, t, depth)

    def wrap_array(self, e: exp.Expression, t: Type, depth: int) -> tuple[exp.Expression, Type]:
        rnd, elem = self.rnd, t[1]
        v, acc = self._vars(2)
        inner = Walk(rnd, [(col(v), elem)] + ([] if rnd.random() < 0.7 else self.roots))
        options: list[tuple[float, tuple[exp.Expression, Type]]] = [
            (1, (fn("size", e), "long")),
            (1, (fn("slice", e, lit(1), lit(2)), t)),
            (1, (fn("concat", e, e), t)),
            (1, (fn("to_json", e), "string")),
            (1, (fn("filter", e, lam(self.pred(inner), v)), t)),
            (1, (fn(rnd.choice(["exists", "forall"]), e, lam(self.pred(inner), v)), "boolean")),
        ]
        body, bt = inner.expr(depth + 1)
        options.append((2, (fn("transform", e, lam(body, v)), ("array", bt))))
        if rnd.random() < 0.3:
            options.append((1, (fn("transform", e, lam(body, v, acc)), ("array", bt))))
        ln, _ = Walk(rnd, [(col(v), elem)]).numeric()
        options.append((1, (fn("aggregate", e, exp.Cast(this=lit(0), to=exp.DataType.build("double")),
                                lam(binary(exp.Add, col(acc), fn("coalesce", ln, lit(0))), acc, v)), "double")))
        if orderable(elem):
            options += [(1, (fn(rnd.choice(["sort_array", "array_sort", "array_distinct"]), e), t)),
                        (1, (fn(rnd.choice(["array_max", "array_min"]), e), elem))]
        if rnd.random() < 0.3:
            other, ot = self.path()
            if not isinstance(ot, str) and ot[0] == "array":
                x, y = self._vars(2)
                options.append((1, (fn("zip_with", e, other, lam(fn("named_struct", lit("x"), col(x), lit("y"), col(y)), x, y)),
                                    ("array", ("struct", (("x", elem), ("y", ot[1])))))))
        return pick(rnd, options)

    def numeric(self) -> tuple[exp.Expression, Type]:
        for _ in range(30):
            e, t = self.path()
            if t in ("long", "double"):
                return e, t
            if not isinstance(t, str) and t[0] in ("array", "map"):
                return fn("size" if t[0] == "array" else "cardinality", e), "long"
        return lit(1), "long"

    def pred(self, walk: "Walk | None" = None) -> exp.Expression:
        w = walk or self
        rnd = self.rnd
        e, t = w.expr(1)
        if t == "boolean":
            return e
        if t in LITERALS and rnd.random() < 0.7:
            op = rnd.choice([exp.EQ, exp.NEQ, exp.LT, exp.GTE, exp.NullSafeEQ])
            if t == "string" and rnd.random() < 0.3:
                return exp.Like(this=e, expression=lit(rnd.choice(["%a%", "c%", "%1"])))
            return binary(op, e, lit(rnd.choice(LITERALS[t])))
        if t == "long" or t == "double":
            return binary(exp.EQ, fn("pmod", e, lit(3)), lit(0))
        test = exp.Is(this=e, expression=exp.Null())
        return test if rnd.random() < 0.5 else exp.Not(this=test)

    def where(self) -> exp.Expression:
        p = self.pred()
        if self.rnd.random() < 0.3:
            p = binary(self.rnd.choice([exp.And, exp.Or]), paren(p), paren(self.pred()))
        return p

    def _vars(self, n: int) -> list[str]:
        self.lambdas += 1
        return [f"{c}{self.lambdas}_{self.rnd.randrange(100)}" for c in "vwxyz"[:n]]


def roots(alias: str | None = None) -> list[tuple[exp.Expression, Type]]:
    return [(col(name, alias), t) for name, t in COLUMNS]


def _select(rnd: random.Random, walk: Walk, id_col: exp.Expression, n: int | None = None) -> list[exp.Expression]:
    n = n or rnd.randrange(1, 4)
    return [id_col] + [walk.expr()[0] for _ in range(n)]


def query(rnd: random.Random) -> Case:
    shape = rnd.choice(SHAPES)
    ast, order = shape(rnd)
    return Case(ast=ast, kind="nested", table="nested", order=order, notes={"shape": shape.__name__})


def plain(rnd: random.Random):
    w = Walk(rnd, roots())
    q = exp.select(*_select(rnd, w, col("id"))).from_(table("nested"))
    if rnd.random() < 0.7:
        q = q.where(w.where())
    if rnd.random() < 0.3:
        return q.order_by(ordered(col("id"), desc=rnd.random() < 0.5)).limit(rnd.randrange(1, 40)), []
    return q, None


def sort_on_structs(rnd: random.Random):
    w = Walk(rnd, roots())
    key = None
    for _ in range(20):
        key, t = w.path()
        if orderable(t) and not isinstance(t, str):
            break
    q = exp.select(*_select(rnd, w, col("id"))).from_(table("nested"))
    q = q.order_by(ordered(key, desc=rnd.random() < 0.5, nulls_first=rnd.random() < 0.5), ordered(col("id")))
    return q.limit(rnd.randrange(5, 60)), []


def aggregate(rnd: random.Random):
    w = Walk(rnd, roots())
    key, t = w.expr()
    for _ in range(20):
        if hashable(t):
            break
        key, t = w.expr()
    num, _ = w.numeric()
    aggs = [fn("count", exp.Star()), fn(rnd.choice(["max", "min", "sum", "count"]), num)]
    other, ot = w.scalar()
    if rnd.random() < 0.5:
        aggs.append(fn(rnd.choice(["max", "min", "count"]), other))
    if rnd.random() < 0.3:
        aggs.append(fn("count", exp.Distinct(expressions=[other])))
    q = exp.select(exp.alias_(key, "g"), *aggs).from_(table("nested"))
    if rnd.random() < 0.5:
        q = q.where(w.where())
    if rnd.random() < 0.2 and isinstance(t, str):
        second, st = w.scalar()
        return q.select(exp.alias_(second, "h")).group_by(exp.Rollup(expressions=[key, second])), None
    q = q.group_by(key)
    if rnd.random() < 0.2:
        q = q.having(binary(exp.GT, fn("count", exp.Star()), lit(1)))
    return q, None


def generator(rnd: random.Random):
    w = Walk(rnd, roots())
    for _ in range(20):
        arr, t = w.path()
        if not isinstance(t, str) and t[0] in ("array", "map"):
            break
    else:
        arr, t = field(col("page"), "views"), ("array", VIEW)
    if t[0] == "map":
        names, fn_name = ["k", "m"], "explode"
        new_roots = [(col("k"), t[1]), (col("m"), t[2])]
    elif rnd.random() < 0.4:
        names, fn_name = ["p", "x"], "posexplode"
        new_roots = [(col("p"), "long"), (col("x"), t[1])]
    else:
        names, fn_name = ["x"], "explode"
        new_roots = [(col("x"), t[1])]
    lateral = exp.Lateral(this=fn(fn_name, arr), view=True, outer=rnd.random() < 0.4,
                          alias=exp.TableAlias(this=exp.to_identifier("e"), columns=[exp.to_identifier(n) for n in names]))
    inner = Walk(rnd, new_roots + roots())
    q = exp.select(*_select(rnd, Walk(rnd, new_roots), col("id"), 1), inner.expr()[0]).from_(table("nested"))
    q.append("laterals", lateral)
    if rnd.random() < 0.5:
        q = q.where(inner.where())
    return q, None


def windows(rnd: random.Random):
    w = Walk(rnd, roots())
    part, pt = w.scalar()
    num, _ = w.numeric()
    funcs = [
        window(fn("row_number"), [part], [ordered(col("id"))]),
        window(fn(rnd.choice(["sum", "max", "count"]), num), [part], [ordered(col("id"))]),
        window(fn(rnd.choice(["lag", "lead"]), w.expr()[0], lit(1)), [], [ordered(col("id"))]),
        window(fn("rank"), [part], [ordered(w.scalar()[0]), ordered(col("id"))]),
        window(fn("max", num), [part], []),
    ]
    picked = rnd.sample(funcs, rnd.randrange(1, 3))
    q = exp.select(*_select(rnd, w, col("id"), 1), *picked).from_(table("nested"))
    if rnd.random() < 0.3:
        q = q.where(w.where())
    if rnd.random() < 0.3:  # a window over a filtered, pruned subquery
        q = exp.select("*").from_(exp.Subquery(this=q, alias=exp.TableAlias(this=exp.to_identifier("s"))))\
            .where(binary(exp.LT, col("id"), lit(rnd.choice([50, 400]))))
    return q, None


def self_join(rnd: random.Random):
    kind = rnd.choice(["inner", "left", "right", "full outer", "left semi", "left anti"])
    a, b = Walk(rnd, roots("a")), Walk(rnd, roots("b"))
    on = binary(exp.EQ, col("id", "a"), binary(exp.Add, col("id", "b"), lit(rnd.choice([0, 1, 3]))))
    if rnd.random() < 0.6:
        both = Walk(rnd, roots("a") + roots("b"))
        on = exp.And(this=on, expression=paren(both.pred()))
    semi = "semi" in kind or "anti" in kind
    projections = [col("id", "a")] + [a.expr()[0] for _ in range(rnd.randrange(1, 3))]
    if not semi:
        projections += [col("id", "b")] + [b.expr()[0] for _ in range(rnd.randrange(0, 2))]
    q = exp.select(*projections).from_(table("nested", "a")).join(table("nested", "b"), on=on, join_type=kind)
    if rnd.random() < 0.4:
        q = q.where((a if semi or rnd.random() < 0.5 else b).where())
    if rnd.random() < 0.3:
        keys = [ordered(col("id", "a"))] + ([] if semi else [ordered(col("id", "b"))])
        return q.order_by(*keys).limit(rnd.randrange(3, 50)), []
    return q, None


def correlated(rnd: random.Random):
    outer, inner = Walk(rnd, roots("e")), Walk(rnd, roots("x"))
    link = binary(exp.EQ, col("id", "x"), binary(exp.Add, col("id", "e"), lit(rnd.choice([0, 1, 2]))))
    how = rnd.random()
    if how < 0.4:
        sub = exp.select(lit(1)).from_(table("nested", "x")).where(link).where(inner.where())
        cond = exp.Exists(this=sub)
        cond = exp.Not(this=cond) if rnd.random() < 0.3 else cond
        q = exp.select(*_select(rnd, outer, col("id", "e"))).from_(table("nested", "e")).where(cond)
    elif how < 0.7:
        key, t = inner.scalar()
        sub = exp.select(key).from_(table("nested", "x")).where(
            binary(exp.LT, col("id", "x"), lit(rnd.choice([30, 300])))).where(inner.where())
        okey = _same_path(key, "x", "e")
        q = exp.select(*_select(rnd, outer, col("id", "e"))).from_(table("nested", "e")).where(
            # a predicate as IN's operand (`page IS NULL IN (...)`) needs parentheses in Spark's SQL
            exp.In(this=paren(okey) if isinstance(okey, exp.Predicate) else okey, query=exp.Subquery(this=sub)))
    else:
        num, _ = inner.numeric()
        country = field(field(col("user", "x"), "geo"), "country")
        sub = exp.select(fn(rnd.choice(["max", "count", "sum"]), num)).from_(table("nested", "x")).where(
            binary(exp.EQ, country, _same_path(country, "x", "e"))).where(
            binary(exp.LT, col("id", "x"), col("id", "e")))
        q = exp.select(*_select(rnd, outer, col("id", "e")), exp.alias_(exp.Subquery(this=sub), "s")) \
            .from_(table("nested", "e")).where(binary(exp.LT, col("id", "e"), lit(rnd.choice([40, 200]))))
    return q, None


def _same_path(e: exp.Expression, old: str, new: str) -> exp.Expression:
    return e.copy().transform(lambda n: col(n.name, new) if isinstance(n, exp.Column) and n.table == old else n)


def set_operation(rnd: random.Random):
    w = Walk(rnd, roots())
    kind, distinct = rnd.choice([exp.Union, exp.Union, exp.Intersect, exp.Except]), rnd.random() < 0.4
    items = [e for e, t in (w.expr() for _ in range(rnd.randrange(1, 3)))
             if hashable(t) or (kind is exp.Union and not distinct)]
    left = exp.select(col("id"), *items).from_(table("nested")).where(binary(exp.LT, col("id"), lit(rnd.choice([50, 300]))))
    right = exp.select(col("id"), *[i.copy() for i in items]).from_(table("nested")).where(
        binary(exp.GT, col("id"), lit(rnd.choice([30, 900]))))
    if rnd.random() < 0.5:
        right = right.where(w.where())
    return kind(this=left, expression=right, distinct=distinct), None


def cte(rnd: random.Random):
    w = Walk(rnd, roots())
    keep = [col(n) for n, _ in COLUMNS if n == "id" or rnd.random() < 0.7]
    inner = exp.select(*keep).from_(table("nested"))
    if rnd.random() < 0.5:
        inner = inner.where(w.where())
    if rnd.random() < 0.3:
        inner = inner.order_by(ordered(col("id"))).limit(rnd.choice([100, 700]))
    names = {k.name for k in keep}
    outer = Walk(rnd, [(col(n), t) for n, t in COLUMNS if n in names])
    q = exp.select(*_select(rnd, outer, col("id"))).from_(table("c")).with_("c", as_=inner)
    if rnd.random() < 0.4:
        q = q.where(outer.where())
    return q, None


def distinct(rnd: random.Random):
    w = Walk(rnd, roots())
    items = []
    for _ in range(rnd.randrange(1, 3)):
        e, t = w.expr()
        if hashable(t):
            items.append(e)
    return exp.select(*(items or [col("id")])).from_(table("nested")).distinct(), None


SHAPES = [plain, plain, sort_on_structs, aggregate, aggregate, generator, windows, self_join, self_join,
          correlated, correlated, set_operation, cte, distinct]
