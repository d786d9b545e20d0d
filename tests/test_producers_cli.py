"""``python -m pyspark_ext producers run|update|status|vacuum`` on a pipeline defined in a module."""
from __future__ import annotations

import os

from pyspark_ext.__main__ import main
from pyspark_ext.producers import Pipeline

PATH_ENV = "PYSPARK_EXT_TEST_PRODUCERS_CLI"


def make(spark):
    p = Pipeline(spark, os.environ[PATH_ENV], rows_per_row_group=2, rows_per_file=4)
    p.stage("by_parity", lambda k, vs: ((v % 2, v) for v in vs), p.source("numbers"),
            key_type="int", value_type="int")
    return p


def test_cli_run_update_status_vacuum(spark, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(PATH_ENV, str(tmp_path / "p"))
    spark.createDataFrame([(i, i) for i in range(10)], "key int, value int").write.parquet(
        str(tmp_path / "in"))
    spark.createDataFrame([("Delete", 3, None), ("Update", 4, 41)],
                          "type string, key int, value int").write.parquet(str(tmp_path / "ch"))
    spec = ["producers", "--pipeline", "tests.test_producers_cli:make"]
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
    assert main([*spec[:1], "update", "--pipeline", "tests.test_producers_cli:make",
                 "--input", f"nope={tmp_path / 'ch'}"]) == 1
    assert "'nope' is not a source" in capsys.readouterr().out
