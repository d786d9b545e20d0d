"""The older lines' share-out of a battery: every case on exactly one line of its group, an equal
share each, and every case on 3.5 and outside the group."""
from __future__ import annotations

import pytest

from tests.support import line_share


@pytest.mark.parametrize("group", [line_share.PRUNING, ("4.2", "3.5"), ("4.1", "3.5")])
def test_each_case_runs_on_exactly_one_line_of_its_group(monkeypatch, group):
    monkeypatch.delenv(line_share.FULL_MATRIX_ENV, raising=False)
    dealt = {line: [p for p in range(90) if line_share.runs_here(p, group, line)] for line in group}
    shared = [line for line in group if line not in line_share.EVERY_CASE]
    for position in range(90):
        assert sum(position in dealt[line] for line in shared) <= 1
        assert any(position in dealt[line] for line in group)
    assert {len(dealt[line]) for line in shared} == {90 // len(group)}
    for line in (*line_share.EVERY_CASE, "4.3"):
        assert all(line_share.runs_here(p, group, line) for p in range(90))


def test_full_matrix_runs_every_case_on_every_line(monkeypatch):
    monkeypatch.setenv(line_share.FULL_MATRIX_ENV, "1")
    assert all(line_share.runs_here(p, line_share.PRUNING, "4.0") for p in range(9))


def test_each_value_runs_every_value_of_every_parameter_in_fewer_cases(monkeypatch):
    monkeypatch.delenv(line_share.FULL_MATRIX_ENV, raising=False)
    two = [{"query": q, "layout": layout} for q in range(7) for layout in ("draft", "spec")]
    kept = line_share.each_value(two)
    assert sorted(two[p]["query"] for p in kept) == list(range(7))  # each query once
    assert {two[p]["layout"] for p in kept} == {"draft", "spec"}  # both layouts, dealt in turn
    assert sum(two[p]["layout"] == "draft" for p in kept) == 4
    four = [{"a": a, "b": b, "c": c, "d": d} for a in "xyz" for b in "pt" for c in "cm" for d in "co"]
    kept = line_share.each_value(four)
    for name in "abcd":
        assert {four[p][name] for p in kept} == {case[name] for case in four}
    assert len(kept) < len(four) // 4
    one = [{"query": q} for q in range(5)]
    assert line_share.each_value(one) == set(range(5))
    monkeypatch.setenv(line_share.FULL_MATRIX_ENV, "1")
    assert line_share.each_value(two) == set(range(len(two)))
