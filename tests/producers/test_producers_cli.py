"""``python -m pyspark_ext producers run|update|status|vacuum`` on a pipeline defined in a module."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyspark_ext.__main__ import main
from pyspark_ext.producers import Pipeline

PATH_ENV = "PYSPARK_EXT_TEST_PRODUCERS_CLI"


def make(spark, path=None):
    p = Pipeline(spark, path or os.environ[PATH_ENV], rows_per_row_group=2, rows_per_file=4)
    p.stage("by_parity", lambda k, vs: ((v % 2, v) for v in vs), p.source("numbers"),
            key_type="int", value_type="int")
    return p


@pytest.mark.slow
def test_cli_run_update_status_vacuum(spark, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(PATH_ENV, str(tmp_path / "p"))
    spark.createDataFrame([(i, i) for i in range(10)], "key int, value int").write.parquet(
        str(tmp_path / "in"))
    spark.createDataFrame([("Delete", 3, None), ("Update", 4, 41)],
                          "type string, key int, value int").write.parquet(str(tmp_path / "ch"))
    spec = ["producers", "--pipeline", "tests.producers.test_producers_cli:make"]
    assert main([*spec[:1], "run", *spec[1:], "--input", f"numbers={tmp_path / 'in'}"]) == 0
    out = capsys.readouterr().out
    assert "committed version 1" in out and "by_parity" in out
    assert main([*spec[:1], "update", *spec[1:], "--input", f"numbers={tmp_path / 'ch'}"]) == 0
    out = capsys.readouterr().out
    assert "committed version 2" in out
    line = next(x for x in out.splitlines() if x.startswith("by_parity"))
    assert line.split()[1:3] == ["9", "9"]  # rows; update rows: both parities re-derived in full
    assert main([*spec[:1], "status", *spec[1:]]) == 0
    assert "versions [1, 2]" in capsys.readouterr().out
    assert main([*spec[:1], "vacuum", *spec[1:]]) == 0
    assert '"versions_dropped": 1' in capsys.readouterr().out
    assert main([*spec[:1], "update", "--pipeline", "tests.producers.test_producers_cli:make",
                 "--input", f"nope={tmp_path / 'ch'}"]) == 1
    assert "'nope' is not a source" in one_error_line(capsys)
    # version 1 was vacuumed: nothing to build on
    assert main([*spec[:1], "update", *spec[1:], "--input", f"numbers={tmp_path / 'ch'}",
                 "--based-on-version", "1"]) == 1
    assert "cannot update based on version 1, which is not committed" in one_error_line(capsys)
    assert main([*spec[:1], "status", *spec[1:], "--version", "1"]) == 1
    assert "has no version 1" in one_error_line(capsys)


def one_error_line(capsys) -> str:
    """What the CLI printed for a user's error: one line on stderr, nothing on stdout."""
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    return lines[0]


@pytest.mark.parametrize("args, message", [
    (["run", "--pipeline", "tests.no_such_module:make", "--input", "numbers=."],
     "cannot import 'tests.no_such_module'"),
    (["run", "--pipeline", "tests.producers.test_producers_cli:nothing", "--input", "numbers=."],
     "module 'tests.producers.test_producers_cli' has no attribute 'nothing'"),
    (["run", "--pipeline", "tests.producers.test_producers_cli", "--input", "numbers=."],
     "expected module:attribute"),
    (["run", "--pipeline", "tests.producers.test_producers_cli:make", "--input", "numbers=/no/such/dir"],
     "--input 'numbers=/no/such/dir': /no/such/dir does not exist"),
    (["run", "--pipeline", "tests.producers.test_producers_cli:make", "--input", "numbers"],
     "expected SOURCE=PATH"),
    (["status"], "--pipeline module:attribute is required"),
])
def test_cli_user_errors_are_one_line_on_stderr(capsys, args, message):
    assert main(["producers", *args]) == 1
    assert message in one_error_line(capsys)
    assert not capsys.readouterr().out


def test_cli_input_that_spark_cannot_read(spark, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(PATH_ENV, str(tmp_path / "p"))
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "x.parquet").write_text("not parquet")
    assert main(["producers", "run", "--pipeline", "tests.producers.test_producers_cli:make",
                 "--input", f"numbers={tmp_path / 'in'}"]) == 1
    assert f"--input numbers={tmp_path / 'in'}: cannot be read as Parquet" in one_error_line(capsys)


#: ``status`` in a fresh interpreter where starting a JVM exits with status 42
NO_JVM = """
import sys
import pyspark.java_gateway as gateway
def refuse(*args, **kwargs):
    print("a JVM was started", file=sys.stderr)
    sys.exit(42)
gateway.launch_gateway = refuse
from pyspark_ext.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.subprocess
def test_cli_status_reads_the_manifest_without_starting_spark(spark, tmp_path):
    path = str(tmp_path / "p")
    p = make(spark, path)
    p.run({"numbers": spark.createDataFrame([(i, i) for i in range(5)], "key int, value int")})
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, PATH_ENV: path, "PYTHONPATH": str(root)}
    for args in (["--pipeline", "tests.producers.test_producers_cli:make"], ["--path", path]):
        proc = subprocess.run([sys.executable, "-c", NO_JVM, "producers", "status", *args],
                              capture_output=True, text=True, env=env, cwd=root, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert f"pipeline {path}: versions [1]" in proc.stdout
        assert "by_parity" in proc.stdout and "rows            5" in proc.stdout
    proc = subprocess.run([sys.executable, "-c", NO_JVM, "producers", "status", "--path", path,
                           "--version", "7"], capture_output=True, text=True, env=env, cwd=root,
                          timeout=120)
    assert proc.returncode == 1 and proc.stderr.strip().splitlines() == [
        f"error: pipeline {path} has no version 7 (committed versions: [1])"]
