"""Which older Spark line runs each case of a battery that several lines share out.

The full suite runs every case on the newest line. On the older lines (``.ci/run-lines``) a
shared-out battery runs each case on one line of its group only, dealt in turn by the case's
position in its test's parametrization (the same on every line of the group), so every case still
runs on one older line and each line of the group runs an equal share. Spark 3.5, the line most
clusters run, runs every case it can, even in a group, where its place only thins its partner's
share. A case another line runs is marked ``another_line``, which ``.ci/run-lines`` deselects;
run a module by hand and every case runs. ``PYSPARK_EXT_FULL_MATRIX=1`` leaves every case on
every line.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

FULL_MATRIX_ENV = "PYSPARK_EXT_FULL_MATRIX"
#: The 4.x lines before the newest: their pruning half is the code 3.5 and the newest line run too.
PRUNING = ("4.0", "4.1", "4.2")
#: Lines that run every case of a battery they can run.
EVERY_CASE = ("3.5",)


def full_matrix() -> bool:
    return os.environ.get(FULL_MATRIX_ENV) == "1"


def runs_here(position: int, group: Sequence[str], line: str) -> bool:
    """Whether ``line`` runs the case at ``position`` of its test's parametrization: always outside
    the group (the newest line) and on 3.5, else only on the group's line dealt that position."""
    return full_matrix() or line not in group or line in EVERY_CASE or group[position % len(group)] == line


def each_value(cases: Sequence[Mapping[str, object]]) -> set[int]:
    """Positions of the cases of one test that an older line runs of a battery the newest line runs
    whole: every case of a test with one parameter; for a test with several (a query by a layout
    by a setting), a case for each value of its widest parameter with the other parameters'
    values dealt in turn, then a case for any value of any parameter still not run. So the line
    runs every test and every value of each of its parameters, not every combination."""
    if full_matrix() or not cases or len(cases[0]) < 2:
        return set(range(len(cases)))
    names = list(cases[0])
    values = {name: list(dict.fromkeys(repr(case[name]) for case in cases)) for name in names}
    widest = max(names, key=lambda name: len(values[name]))
    kept = set()
    for turn, value in enumerate(values[widest]):
        same = [position for position, case in enumerate(cases) if repr(case[widest]) == value]
        kept.add(same[turn % len(same)])
    for name in names:
        run = {repr(cases[position][name]) for position in kept}
        for position, case in enumerate(cases):
            if repr(case[name]) not in run:
                kept.add(position)
                run.add(repr(case[name]))
    return kept
