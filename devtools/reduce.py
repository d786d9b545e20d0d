"""Shrink a failing query: keep removing and simplifying parts of its AST while it still fails.

Each pass tries, node by node from the root down: dropping a clause (WHERE, ORDER BY, LIMIT,
HAVING, joins, laterals, CTEs), dropping an element of a list (a projection, a function
argument, a grouping key), and replacing a node by one of its children (a function by an
argument, ``a AND b`` by ``a``, a set operation by one side, a subquery by its query). A
candidate is kept when ``still_fails`` says it fails the same way; a candidate that is no longer
valid SQL fails the same way on both sides, so it is not a mismatch and is dropped. Passes repeat
until none shrinks the query or the budget of tries is spent.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

import sqlglot
from sqlglot import exp

CLAUSES = ("where", "order", "limit", "having", "with", "joins", "laterals", "qualify", "distinct")


def _edits(node: exp.Expression) -> Iterator[Callable[[exp.Expression], exp.Expression | None]]:
    """Edits of ``node``; each takes the node's counterpart in a copy of the tree, changes the
    copy in place and returns the new root if the root itself was replaced."""
    for key in CLAUSES:
        if node.args.get(key):
            def drop(n: exp.Expression, key: str = key) -> None:
                n.set(key, None)
            yield drop
    parent = node.parent
    if parent is not None and isinstance(parent.args.get(node.arg_key), list) and len(parent.args[node.arg_key]) > 1:
        def pop(n: exp.Expression) -> None:
            n.pop()
        yield pop
    for i, child in enumerate(_liftable(node)):
        def lift(n: exp.Expression, i: int = i) -> exp.Expression | None:
            new = _liftable(n)[i].copy()
            if isinstance(new, exp.Lambda):
                new = new.this
            if n.parent is None:
                return new
            n.replace(new)
            return None
        yield lift


#: Nodes that are not values: they are never replaced by a child nor lifted in place of another.
STRUCTURE = (exp.Table, exp.From, exp.Join, exp.Lateral, exp.TableAlias, exp.Identifier, exp.Group, exp.Order,
             exp.Ordered, exp.Limit, exp.With, exp.CTE, exp.Where, exp.Having, exp.Literal, exp.DataType)


def _liftable(node: exp.Expression) -> list[exp.Expression]:
    """Children that may take ``node``'s place: a query's queries (a set operation's sides),
    a value's values."""
    if isinstance(node, STRUCTURE) or isinstance(node, exp.Select):
        return []
    kids = [c for c in node.iter_expressions() if not isinstance(c, STRUCTURE)]
    if isinstance(node, (exp.SetOperation, exp.Subquery)) and node.parent is None:
        return [c for c in kids if isinstance(c, exp.Query)]
    return [c for c in kids if not isinstance(c, exp.Query)]


def candidates(ast: exp.Expression) -> Iterator[exp.Expression]:
    nodes = list(ast.bfs())
    for i, node in enumerate(nodes):
        for edit in _edits(node):
            tree = ast.copy()
            target = list(tree.bfs())[i]
            root = edit(target)
            yield root if root is not None else tree


def reduce(ast: exp.Expression, still_fails: Callable[[exp.Expression], bool], budget: int = 80,
           size: Callable[[exp.Expression], int] | None = None) -> exp.Expression:
    """The smallest query found, within ``budget`` calls of ``still_fails``."""
    size = size or (lambda e: len(e.sql(dialect="spark")))
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for candidate in candidates(ast):
            if size(candidate) >= size(ast):
                continue
            try:  # an edit may leave a tree that is no longer SQL
                sqlglot.parse_one(candidate.sql(dialect="spark"), dialect="spark")
            except Exception:  # noqa: BLE001
                continue
            tries += 1
            if still_fails(candidate):
                ast, progress = candidate, True
                break
            if tries >= budget:
                break
    return ast
