"""Times configurations of one query alternately, after a warm-up round, keeping medians. Every
run's rows must equal the first run's, or the benchmark fails loudly."""
from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from typing import Any


def canonical_rows(rows: Iterable[Any]) -> list[str]:
    """Rows as sorted strings, doubles to 12 significant digits: a sum of doubles depends on how
    rows are split into tasks (the extension may run a scan as fewer tasks), in its last bits."""
    def value(v: Any) -> Any:
        if isinstance(v, float):
            return float(f"{v:.12g}")
        if isinstance(v, tuple):  # nested structs (Rows) too
            return tuple(value(i) for i in v)
        if isinstance(v, list):
            return [value(i) for i in v]
        return v
    return sorted(repr(value(r)) for r in rows)


class ResultMismatch(AssertionError):
    pass


# A run: the canonical rows, the seconds it took and the bytes it read.
Run = tuple[list[str], float, int]


def alternate(configs: list[str], repeat: int, run: Callable[[str], Run],
              label: str) -> tuple[list[str], dict[str, float], dict[str, int]]:
    reference: list[str] | None = None
    seconds: dict[str, list[float]] = {c: [] for c in configs}
    nbytes: dict[str, list[int]] = {c: [] for c in configs}
    for i in range(repeat + 1):  # round 0 warms every configuration
        for config in (configs if i % 2 == 0 else list(reversed(configs))):
            rows, elapsed, read = run(config)
            if reference is None:
                reference = rows
            elif rows != reference:
                raise ResultMismatch(f"{label}: {config} returns other rows than {configs[0]}")
            if i > 0:
                seconds[config].append(elapsed)
                nbytes[config].append(read)
    return (reference or [], {c: statistics.median(v) for c, v in seconds.items()},
            {c: int(statistics.median(v)) for c, v in nbytes.items()})
