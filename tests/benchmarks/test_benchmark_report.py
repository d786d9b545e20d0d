"""The benchmark report: summary ratios, Markdown and charts, from synthetic results (no Spark)."""
import json

import pytest

from benchmarks import report
from benchmarks.runner import QueryResult

pytestmark = pytest.mark.benchmark


def _result(name, stock_s, ext_s, stock_b, ext_b):
    r = QueryResult("nested", name, rows=1)
    r.seconds = {"stock": stock_s, "extension": ext_s}
    r.plan_ms = {"stock": 10.0, "extension": 12.0}
    r.input_bytes = {"stock": stock_b, "extension": ext_b}
    r.column_bytes = {"stock": stock_b, "extension": ext_b}
    r.read_leaves = {"stock": 10, "extension": 2}
    r.task_input_bytes = {"stock": stock_b // 2, "extension": ext_b // 2}
    r.row_groups_read = {"stock": 12, "extension": 3}
    r.row_groups_skipped = {"stock": 0, "extension": 9}
    r.limit_bytes = ext_b
    return r


def test_summary_and_outputs(tmp_path):
    results = [_result("a", 4.0, 1.0, 1000, 100), _result("b", 2.0, 2.0, 1000, 500)]
    summary = report.summarise(results)["nested"]
    assert summary["median_time_ratio"] == 0.625
    assert summary["median_bytes_ratio"] == 0.3
    assert summary["total_bytes_ratio"] == 0.3
    assert summary["median_added_plan_ms"] == 2.0
    meta = {"command": "python -m benchmarks run", "rows": 10, "repeat": 1, "machine": "test",
            "spark": "3.5.9"}
    report.write(tmp_path, meta, results, [], [{"rows": 10, "query": "a",
                                                "seconds": {"stock": 1.0, "extension": 0.5}}])
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["queries"][0]["time_ratio"] == 0.25
    md = (tmp_path / "results.md").read_text()
    assert "| nested | a | 4.00 | 1.00 | 0.25 |" in md
    assert "extension-on over stock Spark 3.5.9," in md  # the release measured, on every line
    assert "| 12 (0) → 3 (9) |" in md
    assert data["queries"][0]["row_groups_skipped"] == {"stock": 0, "extension": 9}
    assert data["queries"][0]["task_input_bytes"] == {"stock": 500, "extension": 50}
    for png in ("time_per_query.png", "bytes_per_query.png", "scaling.png"):
        assert (tmp_path / png).stat().st_size > 1000


def test_rows_compare_doubles_to_a_relative_tolerance():
    from pyspark.sql import Row

    from benchmarks.alternating import canonical_rows, same_rows

    def same(a, b):
        return same_rows(canonical_rows(a), canonical_rows(b))
    # Measured: sum(item.cpc) over the 20M-row nested log, stock Spark against the extension.
    stock, extension = 9599993.259999663, 9599993.26000643
    assert same([Row(c="a", s=stock, nested=Row(x=[1e16 + 2.0]))],
                [Row(c="a", s=extension, nested=Row(x=[1e16]))])
    assert same([Row(s=float("nan"))], [Row(s=float("nan"))])
    assert not same([Row(c="a", s=9599993.25)], [Row(c="a", s=stock)])  # one 0.01 row dropped
    assert not same([Row(c="a", s=0.3001)], [Row(c="a", s=0.3)])
    assert not same([Row(n=1)], [Row(n=1.0)])
    assert not same([Row(n=1)], [Row(n=1), Row(n=1)])
    # Order does not matter, and rows differing only in a double's last bits still pair up.
    assert same([(2, "b", 0.1 + 0.2), (1, None, 5.0)], [(1, None, 5.0), (2, "b", 0.3)])
    assert canonical_rows([(2, "b"), (1, None)]) == [(1, None), (2, "b")]


def test_variant_ratios_against_both_flat_tables(tmp_path):
    from benchmarks import variant_queries
    from benchmarks.variant_runner import VariantResult, _sql

    r = VariantResult("sorted", "one_path_sum")
    r.seconds = {"draft_ext": 0.3, "flat": 0.25, "flat_narrow": 0.15}
    r.input_bytes = {c: 1 for c in r.seconds}
    d = r.as_dict()
    assert round(d["draft_ext_vs_flat"], 6) == 1.2 and round(d["draft_ext_vs_flat_narrow"], 6) == 2.0
    assert "spec_ext_vs_flat" not in d
    md = report.variant_markdown([r], {})
    assert "draft_ext / flat_narrow" in md and "| sorted | one_path_sum | 0.30 | 0.25 | 0.15 | 1.20 |" in md
    q = variant_queries.queries(1000)["selective_filter"]
    assert _sql(q, "flat") == "SELECT count(*), max(user_name) FROM flat WHERE id BETWEEN 500 AND 501"
    assert _sql(q, "flat_narrow").endswith("FROM flat_narrow WHERE id BETWEEN 500 AND 501")
    assert "FROM v_draft WHERE variant_get(v, '$.id', 'bigint')" in _sql(q, "draft_ext")


def test_stock_parity_names_the_slowest_extension_run(tmp_path):
    from benchmarks.variant_runner import VariantResult

    fast, slow = VariantResult("unsorted", "two_strings"), VariantResult("unsorted", "one_path_sum")
    fast.seconds = {"variant": 2.0, "variant_ext": 1.0, "spec_stock": 4.0, "spec_ext": 1.0, "flat": 0.5}
    slow.seconds = {"variant": 2.0, "variant_ext": 2.2, "spec_stock": 4.0, "spec_ext": 4.0, "flat": 0.5}
    for r in (fast, slow):
        r.input_bytes = {c: 1 for c in r.seconds}
    parity = report.stock_parity([fast, slow])
    assert {(p["query"], p["form"]): round(p["ratio"], 6) for p in parity} == {
        ("two_strings", "variant_ext"): 0.5, ("two_strings", "spec_ext"): 0.25,
        ("one_path_sum", "variant_ext"): 1.1, ("one_path_sum", "spec_ext"): 1.0}
    slow.row_groups_read, slow.row_groups_skipped = {"spec_ext": 1}, {"spec_ext": 7}
    md = report.variant_markdown([fast, slow], {})
    assert "| unsorted | one_path_sum | spec_ext | 4.00 | 0.00 | n/a | 1 (7) |" in md
    assert "slowest extension / stock: 1.10 (unsorted/one_path_sum, variant_ext); 1 above 1.05." in md
    assert "| unsorted | variant_ext | 1.10 | 0.50 |" in md
    report.write(tmp_path, {"command": "c", "rows": 1, "repeat": 1, "machine": "m"}, [], [], [], [fast, slow])
    assert len(json.loads((tmp_path / "results.json").read_text())["stock_parity"]) == 4


def test_alternate_keeps_the_median_of_every_byte_measure():
    import pytest

    from benchmarks.alternating import ResultMismatch, alternate

    runs = iter([([1], 9.0, {"storage": 9, "task_input": 0})]  # warm-up, not kept
                + [([1], float(s), {"storage": s * 10, "task_input": s}) for s in (3, 1, 2)])
    rows, seconds, nbytes = alternate(["only"], 3, lambda c: next(runs), "q")
    assert rows == [1] and seconds == {"only": 2.0}
    assert nbytes == {"only": {"storage": 20, "task_input": 2}}
    answers = iter([[1], [2]])
    with pytest.raises(ResultMismatch, match="q: b returns other rows than a"):
        alternate(["a", "b"], 1, lambda c: (next(answers), 1.0, {"storage": 0}), "q")


def test_scan_totals_sum_row_groups_only_where_scans_report_them():
    from benchmarks.metrics import scan_totals

    parquet = {"bytes_read": 100, "read_leaves": 2, "row_groups": 10, "row_groups_read": 1,
               "row_groups_skipped": 9}
    orc = {"bytes_read": None, "read_leaves": 3}
    assert scan_totals([parquet, orc, dict(parquet)]) == {
        "column_bytes": 200, "read_leaves": 7, "row_groups_read": 2, "row_groups_skipped": 18}
    assert scan_totals([orc])["row_groups_read"] is None


def test_alternate_checks_rows_within_each_group():
    import pytest

    from benchmarks.alternating import ResultMismatch, alternate
    answers = {"a/x": [1], "a/y": [1], "b/x": [2], "b/y": [2]}
    engine = lambda config: config.split("/")[0]  # noqa: E731
    rows, seconds, _ = alternate(list(answers), 1, lambda c: (answers[c], 1.0, {}), "q", group=engine)
    assert rows == [1] and set(seconds) == set(answers)
    with pytest.raises(ResultMismatch, match="q: b/x returns other rows than a/x"):
        alternate(list(answers), 1, lambda c: (answers[c], 1.0, {}), "q")
    answers["b/y"] = [3]
    with pytest.raises(ResultMismatch, match="q: b/y returns other rows than b/x"):
        alternate(list(answers), 1, lambda c: (answers[c], 1.0, {}), "q", group=engine)
