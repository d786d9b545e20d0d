"""Times configurations of one query alternately, after a warm-up round, keeping medians. Every
run's rows must equal the first run's, or the timing fails loudly. The benchmarks and ``verify``
time with it: the warm-up round keeps the JVM's first-run costs (class loading, code generation,
JIT compilation) out of every configuration's times, and alternating the order spreads what is
left of them over all configurations alike."""
from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from .outcome import canonical_rows, same_rows

__all__ = ["ResultMismatch", "Run", "alternate", "canonical_rows", "same_rows"]


class ResultMismatch(AssertionError):
    pass


# A run: the canonical rows, the seconds it took and the bytes it read, by measure.
Run = tuple[list[Any], float, dict[str, int]]


def alternate(configs: list[str], repeat: int, run: Callable[[str], Run], label: str,
              group: Callable[[str], str] | None = None,
              ) -> tuple[list[Any], dict[str, float], dict[str, dict[str, int]]]:
    """Medians per configuration: of seconds, and of each byte measure. ``group`` names each
    configuration's group (say, its engine): rows are checked against the first rows of the
    same group, so groups may differ (their rows are compared by the caller); the rows returned
    are ``configs[0]``'s."""
    key = group or (lambda config: "")
    first: dict[str, tuple[str, list[Any]]] = {}
    seconds: dict[str, list[float]] = {c: [] for c in configs}
    nbytes: dict[str, list[dict[str, int]]] = {c: [] for c in configs}
    for i in range(repeat + 1):  # round 0 warms every configuration
        for config in (configs if i % 2 == 0 else list(reversed(configs))):
            rows, elapsed, read = run(config)
            owner, reference = first.setdefault(key(config), (config, rows))
            if not same_rows(rows, reference):
                raise ResultMismatch(f"{label}: {config} returns other rows than {owner}")
            if i > 0:
                seconds[config].append(elapsed)
                nbytes[config].append(read)
    reference = first[key(configs[0])][1] if configs else []
    return (reference, {c: statistics.median(v) for c, v in seconds.items()},
            {c: {k: int(statistics.median(r[k] for r in v)) for k in v[0]} for c, v in nbytes.items()})
