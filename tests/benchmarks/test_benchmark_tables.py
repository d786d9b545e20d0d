"""The `tables` suite's report: ratios from synthetic results, no Spark."""
import json

from benchmarks import tables


def _result(suite: str, stock: float, ext: float, plan_ms: float, stock_bytes: int, ext_bytes: int) -> dict:
    return {"suite": suite, "query": "q", "seconds": {"stock": stock, "extension": ext},
            "plan_ms": {"stock": plan_ms, "extension": plan_ms},
            "input_bytes": {"stock": stock_bytes, "extension": ext_bytes},
            "row_groups_read": {"stock": 4, "extension": 2}}


def test_execution_ratio_leaves_out_planning(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "OUT", tmp_path)
    (tmp_path / "delta").mkdir()
    # 0.5 s of the table format's planning in each run: total 1.0 / 1.5, execution 0.5 / 1.0
    nested = [_result("delta", 1.5, 1.0, 500, 100, 25), _result("parquet", 1.0, 0.5, 0, 100, 20)]
    (tmp_path / "delta" / "results.json").write_text(json.dumps(
        {"product": "delta", "spark": "4.2.1", "nested": nested, "variant": []}))
    rows = [line.split(" | ") for line in tables.report().read_text().splitlines()[2:]]
    by_suite = {row[1]: row for row in rows}
    assert by_suite["nested: delta"][2:6] == ["0.67", "0.67", "0.50", "0.0 → 0.0"]
    assert by_suite["nested: delta"][6:] == ["0.250", "4 → 2 |"]
    assert by_suite["nested: parquet"][4] == "0.50"
