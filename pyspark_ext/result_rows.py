"""Query results compared across engines and configurations: rows in a canonical order, equal
to a tolerance on doubles, since a sum's last bits depend on how its rows are split into tasks."""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any


# A sum of 20M doubles depends, in its last bits, on how the rows are split into tasks (the
# extension may run a scan as fewer tasks): 7e-13 relative was seen on the nested log at 20M rows.
RELATIVE_TOLERANCE = 1e-10


def _normal(v: Any) -> Any:
    if isinstance(v, (tuple, list)):  # nested structs (Rows) and arrays
        return tuple(_normal(i) for i in v)
    return v


def _sort_key(v: Any) -> str:
    def rounded(x: Any) -> Any:
        if isinstance(x, float):
            return float(f"{x:.6g}")
        if isinstance(x, tuple):
            return tuple(rounded(i) for i in x)
        return x
    return repr(rounded(v))


def canonical_rows(rows: Iterable[Any]) -> list[Any]:
    """Rows as nested tuples in an order that does not depend on the last bits of doubles."""
    return sorted((_normal(r) for r in rows), key=_sort_key)


def same_rows(a: list[Any], b: list[Any]) -> bool:
    """Equal rows, doubles to a relative tolerance (see RELATIVE_TOLERANCE), all else exactly."""
    def same(x: Any, y: Any) -> bool:
        if isinstance(x, float) and isinstance(y, float):
            return (x == y or math.isclose(x, y, rel_tol=RELATIVE_TOLERANCE)
                    or (math.isnan(x) and math.isnan(y)))
        if isinstance(x, tuple) and isinstance(y, tuple):
            return len(x) == len(y) and all(same(i, j) for i, j in zip(x, y))
        return type(x) is type(y) and x == y
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
