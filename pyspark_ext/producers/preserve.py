"""PreserveKeyValues: the counter a stage's ``preserve`` hook draws surrogate ids from.

``preserve(new_value, previous)`` runs while a stage's content is merged, in target-key order,
once per inserted row. ``previous`` is the first value stored under the same target key before
this version (read before the key's old rows are deleted), or, for a key new to the stage, the
value preserve returned for the key's first row; None only for that first row. A stage with a
preserve hook merges in one task, so ``next_id()`` hands out ids densely, in key order, and the
manifest records where the counter stopped; the next version continues from there.
"""
from __future__ import annotations

_counter = {"next": 1}


def start(value: int) -> None:
    _counter["next"] = value


def current() -> int:
    return _counter["next"]


def next_id() -> int:
    """A new surrogate id, unique across all versions of the stage being merged."""
    value = _counter["next"]
    _counter["next"] = value + 1
    return value
