"""The fuzzer's command line on an older Spark line, in the session of that line's differential
subset (``.ci/run-lines``): 30 random queries against the line's own stock Spark, drawn at a seed
of the line's own (the version with its dots removed: 359 for 3.5.9), so the lines try different
queries. It runs in the subset's JVM rather than a process of its own because a fresh JVM spends
its first minute compiling Spark's hot code: on 4.2 the subset and the fuzzer took 105 s together,
where they took 100 and 55 s apart (docs/development.md).
The newest line's sample is ``test_fuzz.py``'s, in the full suite.
"""
from __future__ import annotations

import pyspark
import pytest

from pyspark_ext import jar
from devtools import fuzz
from devtools.table_formats import ci_spark_lines

QUERIES = 30


def test_this_lines_fuzzer_finds_no_mismatch(spark, tmp_path, capsys) -> None:
    version = pyspark.__version__
    if version not in ci_spark_lines():
        pytest.skip(f"pyspark {version} is not one of .ci/spark-lines: the newest line's random "
                    "queries are tests/harness/test_fuzz.py's")
    kind = "all" if jar.carries_variant() else "nested"
    code = fuzz.main(["--queries", str(QUERIES), "--seed", version.replace(".", ""), "--kind", kind,
                      "--no-progress", "--dir", str(tmp_path), "--save", str(tmp_path / "regressions")])
    out = capsys.readouterr().out
    print(out)  # the counts, shown with -rA or on a failure
    assert code == 0, out
    assert f"fuzz: {QUERIES} queries, 0 mismatches" in out
