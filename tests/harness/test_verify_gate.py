"""``verify``'s gate without Spark: how a query's two outcomes are classified, the exit codes, and
workload files that cannot be read (the queries' runs are stubbed; tests/harness/test_verify.py runs them
in Spark)."""
import json

import pytest

from pyspark_ext import verify
from pyspark_ext.__main__ import main
from pyspark_ext.outcome import Outcome

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
    assert lines[2].startswith("  2  FAILED ")
    assert lines[3].strip().startswith(f"{tmp_path / 'w.sql'}:1: failed both ways: TABLE_OR_VIEW")
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


def test_times_are_medians_of_warm_runs_alternating_which_goes_first(monkeypatch, capsys, tmp_path):
    """Stock Spark's first run pays the JVM's warm-up: the times compared are of later runs."""
    calls = []
    seconds = {False: iter([12.95, 1.0, 3.0]), True: iter([2.22, 2.0, 4.0])}

    def run(spark, sql, enabled, scans):
        calls.append((enabled, scans))
        return Outcome(rows=[(1,)], seconds=next(seconds[enabled]))

    monkeypatch.setattr(verify, "session", lambda confs, master: None)
    monkeypatch.setattr(verify, "run", run)
    code, out, _ = run_verify(capsys, tmp_path, "SELECT 1", "--repeat", "2", "--format", "json")
    assert code == 0
    # the compared runs (stock Spark first, scans read), then off and on alternating which goes first
    assert calls == [(False, True), (True, True), (True, False), (False, False), (False, False), (True, False)]
    report = json.loads(out)
    assert (report["queries"][0]["off"]["seconds"], report["queries"][0]["on"]["seconds"]) == (2.0, 3.0)
    assert (report["totals"]["seconds_off"], report["totals"]["seconds_on"]) == (2.0, 3.0)
    assert report["totals"]["timing"] == ("median of 2 warm runs each way, alternating which goes first, "
                                          "after one run each way to warm up")


def test_a_query_whose_rows_change_from_run_to_run_is_not_timed(monkeypatch, capsys, tmp_path):
    answers = {False: iter([[(1,)], [(2,)]]), True: iter([[(1,)], [(1,)]])}
    monkeypatch.setattr(verify, "session", lambda confs, master: None)
    monkeypatch.setattr(verify, "run", lambda spark, sql, enabled, scans: Outcome(rows=next(answers[enabled]),
                                                                                   seconds=1.0))
    code, out, _ = run_verify(capsys, tmp_path, "SELECT 1")
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("  1  same ") and "  -/-  " in lines[1]
    assert lines[-1].endswith("; 1 query untimed: rows change from run to run)")


def test_repeat_below_one_is_refused(stubbed, capsys, tmp_path):
    code, out, err = run_verify(capsys, tmp_path, "SELECT 1", "--repeat", "0")
    assert (code, out) == (2, "") and err == "verify: --repeat 0: give 1 or more warm runs to time\n"
