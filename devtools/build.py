"""Small constructors over sqlglot's expression builder, and the types the grammars walk.

Functions are built as ``exp.Anonymous`` so that they render exactly as named: sqlglot's typed
function classes drop arguments they do not model (``SIZE(x, 1)`` renders ``SIZE(x)``), which
would silently change a generated query.
"""
from __future__ import annotations

import random
from typing import Any, Union

from sqlglot import exp

#: A type: "long", "string", "double", "boolean", "variant", ("struct", ((name, type), ...)),
#: ("array", type) or ("map", key type, value type).
Type = Union[str, tuple]


def fn(name: str, *args: exp.Expression) -> exp.Expression:
    return exp.Anonymous(this=name, expressions=list(args))


def col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(name, table=table)


def field(e: exp.Expression, name: str) -> exp.Dot:
    return exp.Dot(this=e, expression=exp.to_identifier(name))


def index(e: exp.Expression, key: Any) -> exp.Bracket:
    return exp.Bracket(this=e, expressions=[lit(key)])


def lit(v: Any) -> exp.Expression:
    if isinstance(v, exp.Expression):
        return v
    if v is None:
        return exp.Null()
    if isinstance(v, bool):
        return exp.Boolean(this=v)
    if isinstance(v, (int, float)):
        return exp.Literal.number(v)
    return exp.Literal.string(str(v))


def lam(body: exp.Expression, *names: str) -> exp.Lambda:
    return exp.Lambda(this=body, expressions=[exp.to_identifier(n) for n in names])


def ordered(e: exp.Expression, desc: bool = False, nulls_first: bool | None = None) -> exp.Ordered:
    return exp.Ordered(this=e, desc=desc, nulls_first=(not desc) if nulls_first is None else nulls_first)


def window(f: exp.Expression, partition: list[exp.Expression], order: list[exp.Ordered],
           frame: exp.WindowSpec | None = None) -> exp.Window:
    return exp.Window(this=f, partition_by=partition, order=exp.Order(expressions=order) if order else None,
                      spec=frame)


def table(name: str, alias: str | None = None) -> exp.Table:
    t = exp.to_table(name)
    return t.as_(alias) if alias else t


def binary(kind: type[exp.Expression], a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return kind(this=a, expression=b)


def paren(e: exp.Expression) -> exp.Paren:
    return exp.Paren(this=e)


def orderable(t: Type) -> bool:
    """Spark can sort and compare it (no map or variant inside)."""
    if isinstance(t, str):
        return t != "variant"
    if t[0] == "map":
        return False
    if t[0] == "array":
        return orderable(t[1])
    return all(orderable(ft) for _, ft in t[1])


hashable = orderable  # hash() and GROUP BY / DISTINCT refuse maps and variants alike


def pick(rnd: random.Random, weighted: list[tuple[float, Any]]) -> Any:
    total = sum(w for w, _ in weighted)
    r = rnd.random() * total
    for w, item in weighted:
        r -= w
        if r <= 0:
            return item
    return weighted[-1][1]
