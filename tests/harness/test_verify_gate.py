"""``verify``'s gate without Spark: how a query's two outcomes are classified, the exit codes, and
workload files that cannot be read (the queries' runs are stubbed; tests/harness/test_verify.py runs them
in Spark)."""
import json

import pytest

from pyspark_ext import verify
from pyspark_ext.__main__ import main
from pyspark_ext.testing.outcome import Outcome

#: What each stubbed query returns: (off, on)
OUTCOMES = {
    "SELECT 1": (Outcome(rows=[(1,)]), Outcome(rows=[(1,)])),
    "SELECT 2": (Outcome(rows=[(2,)]), Outcome(rows=[(3,)])),
    "SELECT x FROM evnets": (
        Outcome(error="TABLE_OR_VIEW_NOT_FOUND", message="The table or view `evnets` cannot be found."),
        Outcome(error="TABLE_OR_VIEW_NOT_FOUND", message="The table or view `evnets` cannot be found.")),
    "SELECT bad_cast": (Outcome(error="INVALID_VARIANT_CAST"), Outcome(error="CAST_INVALID_INPUT")),
}


@pytest.fixture
def stubbed(monkeypatch):
    monkeypatch.setattr(verify, "session", lambda confs, master: None)
    monkeypatch.setattr(verify, "run", lambda spark, sql, enabled, scans: OUTCOMES[sql][enabled])


def run_verify(capsys, tmp_path, sql: str, *flags: str) -> tuple[int, str, str]:
    path = tmp_path / "w.sql"
    path.write_text(sql)
    code = main(["verify", "--queries", str(path), "--no-progress", *flags])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_both_ways_failures_are_their_own_result():
    same, different, typo, row_errors = (verify.classify(*OUTCOMES[q], None) for q in OUTCOMES)
    assert same == ("same", "same rows")
    assert different[0] == "different"
    assert typo == ("failed both ways",
                    "failed both ways: TABLE_OR_VIEW_NOT_FOUND: The table or view `evnets` cannot be found.")
    # errors of a row's value agree whichever bad row each plan met first
    assert row_errors == ("failed both ways",
                          "failed both ways: INVALID_VARIANT_CAST (extension on: CAST_INVALID_INPUT)")


def test_a_typo_fails_the_gate_with_exit_3(stubbed, capsys, tmp_path):
    code, out, err = run_verify(capsys, tmp_path, "SELECT 1; SELECT x FROM evnets")
    assert code == 3
    lines = out.splitlines()
    assert lines[2].startswith("  2  FAILED ") and lines[3].strip().startswith("failed both ways: TABLE_OR_VIEW")
    assert lines[-1].startswith("verify: 2 queries, 1 same, 0 different, 1 failed both ways;")
    assert err.startswith("verify: 1 query failed both ways") and "--allow-failing-queries" in err


def test_allowed_failures_pass_and_stay_in_the_report(stubbed, capsys, tmp_path):
    code, out, err = run_verify(capsys, tmp_path, "SELECT 1; SELECT x FROM evnets", "--allow-failing-queries",
                                "--format", "json")
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert [(q["result"], q["same"]) for q in report["queries"]] == [("same", True), ("failed both ways", False)]
    assert report["totals"]["failed_both_ways"] == 1


def test_a_difference_exits_1_even_with_failures(stubbed, capsys, tmp_path):
    code, out, _ = run_verify(capsys, tmp_path, "SELECT 2; SELECT x FROM evnets")
    assert code == 1 and "0 same, 1 different, 1 failed both ways" in out


def test_all_same_exits_0(stubbed, capsys, tmp_path):
    assert run_verify(capsys, tmp_path, "SELECT 1")[:1] == (0,)


def test_missing_workload_file_is_one_line_and_exit_2(stubbed, capsys, tmp_path):
    missing = tmp_path / "nope.sql"
    assert main(["verify", "--queries", str(missing), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"verify: --queries {missing}: no such file\n"


def test_non_utf8_workload_file_is_named_and_exit_2(stubbed, capsys, tmp_path):
    path = tmp_path / "w.sql"
    path.write_bytes("SELECT 'café'".encode("latin-1"))
    assert main(["verify", "--queries", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"verify: --queries {path}: not UTF-8 text (byte 0xe9 at line 1") and err.count("\n") == 1
