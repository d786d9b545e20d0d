"""A bad value of an extension setting given with ``--conf`` or to the builder of a new session
fails the session's start with the extension's own message, on every Spark line. Without that
check Spark reports it only when the session's state is first built, and on Spark 4.1 PySpark then
never returns (docs/troubleshooting.md), so each case runs in a subprocess with a timeout: a hang
fails the test instead of blocking the run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyspark
import pytest

import pyspark_ext
from pyspark_ext import settings

ROOT = Path(__file__).resolve().parents[2]
# Seconds for all builder cases: four JVM-backed session starts; a hang takes all of it.
TIMEOUT = 300

# Each case sets one bad value on a builder that starts a new Spark context (so the value is in
# the context's SparkConf, where --conf puts it), without configure, which would refuse it first.
# It prints whether the start or the first query failed, and with what. The context is stopped
# after each case: a context keeps the settings it started with.
SCRIPT = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from pyspark import SparkContext
    from pyspark.sql import SparkSession
    import pyspark_ext

    for key, value in json.loads(sys.argv[2]):
        b = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
        for k, v in {**pyspark_ext.extension_confs(), key: value}.items():
            b = b.config(k, v)
        stage = "start"
        try:
            spark = b.getOrCreate()
            stage = "query"
            spark.sql("SELECT 1").collect()
            result = "no error"
        except Exception as e:
            result = str(e)
        print(json.dumps({"key": key, "stage": stage, "error": result}), flush=True)
        if SparkContext._active_spark_context is not None:
            SparkContext._active_spark_context.stop()
        SparkSession.builder._options.clear()  # a class-level dict: builders share it
''')

OLD_KEY = next(iter(settings.RENAMED))
CASES = [(settings.ENABLED, "maybe"), (settings.STRICT, "yes"), (OLD_KEY, "maybe"),
         (settings.PRODUCERS_ROWS_PER_FILE, "many"), (settings.PRODUCERS_ROWS_PER_ROW_GROUP, "-5")]
EXPECTED = {
    settings.ENABLED: "spark.pyspark_ext.enabled is 'maybe', which is not a boolean: use true or false",
    settings.STRICT: "spark.pyspark_ext.strict is 'yes', which is not a boolean: use true or false",
    OLD_KEY: f"{OLD_KEY} (the older name of {settings.RENAMED[OLD_KEY]}) is 'maybe', which is not a "
             "boolean: use true or false",
    settings.PRODUCERS_ROWS_PER_FILE: "spark.pyspark_ext.producers.rowsPerFile is 'many', which is not a "
                                      "long: use a whole number of at least 1",
    settings.PRODUCERS_ROWS_PER_ROW_GROUP: "spark.pyspark_ext.producers.rowsPerRowGroup is '-5', which is below "
                                           "its minimum 1: use a whole number of at least 1",
}
START_FAILED = "pyspark-ext: the session cannot start: "


def _env() -> dict[str, str]:
    return {**os.environ, "PYSPARK_PYTHON": sys.executable}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, dict[str, str]]:
    pyspark_ext.build_jar()
    try:
        out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT), json.dumps(CASES)], capture_output=True,
                             text=True, timeout=TIMEOUT, env=_env())
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the driver hung on a bad setting (no answer in {TIMEOUT} s); output so far: "
                    f"{(e.stdout or b'')[-2000:]!r}")
    found = {}
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            case = json.loads(line)
            found[case["key"]] = case
    assert len(found) == len(CASES), out.stdout[-3000:] + out.stderr[-3000:]
    return found


@pytest.mark.subprocess
@pytest.mark.parametrize("key", [key for key, _ in CASES])
def test_bad_value_for_a_new_session_fails_its_start_with_our_message(outcomes, key):
    case = outcomes[key]
    assert case["stage"] == "start", case
    # the context keeps the earlier cases' values too: the message names every bad one
    assert START_FAILED in case["error"] and EXPECTED[key] in case["error"], case["error"].splitlines()[:2]


@pytest.mark.subprocess
def test_bad_value_given_with_spark_submit_conf_fails_at_start(tmp_path):
    """The reported case: ``spark-submit --conf spark.pyspark_ext.enabled=maybe app.py``."""
    confs = {**pyspark_ext.extension_confs(), settings.ENABLED: "maybe", "spark.ui.enabled": "false"}
    app = tmp_path / "app.py"
    app.write_text("from pyspark.sql import SparkSession\n"
                   "spark = SparkSession.builder.getOrCreate()\n"
                   "print('started', flush=True)\n"
                   "spark.sql('SELECT 1').collect()\n")
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    args = [str(submit), "--master", "local[1]"]
    for k, v in confs.items():
        args += ["--conf", f"{k}={v}"]
    try:
        out = subprocess.run([*args, str(app)], capture_output=True, text=True, timeout=TIMEOUT / 2, env=_env())
    except subprocess.TimeoutExpired:
        pytest.fail(f"spark-submit hung on a bad setting (no answer in {TIMEOUT / 2} s)")
    assert out.returncode != 0
    assert "started" not in out.stdout
    # spark-submit passes the driver's traceback to its own stdout or stderr, by line
    said = out.stdout + out.stderr
    assert START_FAILED in said and EXPECTED[settings.ENABLED] in said, \
        [line for line in said.splitlines() if "pyspark-ext:" in line]
