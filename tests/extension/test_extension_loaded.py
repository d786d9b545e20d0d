"""A session without the extension is an error where it shows, never a silent stock plan or a
`TypeError: 'JavaPackage' object is not callable`; the jar is checked before a session uses it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pyspark_ext
from pyspark_ext import jar, loaded

ROOT = Path(__file__).resolve().parents[2]

# One JVM for every case that needs a session of its own (the test session has the extension):
# each case prints one JSON line.
SCRIPT = textwrap.dedent('''
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from pyspark.sql import SparkSession
    import pyspark_ext
    from pyspark_ext import verify
    from types import SimpleNamespace
    from pyspark_ext.advisor.cli import _write

    def outcome(name, call):
        try:
            call()
            result = "no error"
        except Exception as e:
            result = f"{type(e).__name__}: {e}"
        print(json.dumps({name: result}), flush=True)

    def session(**confs):
        b = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
        for k, v in confs.items():
            b = b.config(k, v)
        return b

    if sys.argv[3] == "without":
        spark = session().getOrCreate()
        df = spark.sql("SELECT parse_json('1') AS v")
        outcome("configure_over_running_session", lambda: pyspark_ext.configure(SparkSession.builder))
        outcome("explain", lambda: pyspark_ext.explain_read_schema(spark.range(3)))
        outcome("shred", lambda: pyspark_ext.shred(df, "v", "a bigint"))
        outcome("verify", lambda: verify.verify(spark, ["SELECT 1"], progress=False))
        outcome("advise_write", lambda: _write(df, "v", SimpleNamespace(
            schema="a bigint", spec_schema="a bigint", bloom_filters=[], sort_by=[], cluster_by=[]),
            "draft", sys.argv[2] + "/out"))
        spark.stop()
        SparkSession.builder._options.clear()  # a class-level dict: builders share it
        outcome("configure_in_a_jvm_without_the_jar", lambda: pyspark_ext.configure(SparkSession.builder))
        spark = session(**{"spark.sql.extensions": pyspark_ext.EXTENSION_CLASS,
                           "spark.jars": sys.argv[2] + "/no-such.jar"}).getOrCreate()
        outcome("explain_wrong_jar_path", lambda: pyspark_ext.explain_read_schema(spark.range(3)))
    else:
        spark = pyspark_ext.configure(session(**{"spark.pyspark_ext.strcit": "true"})).getOrCreate()
        spark.sql("SELECT 1").collect()
        warnings = spark._jvm.pysparkext.ExtConf.unknownKeyWarnings().mkString(" || ")
        print(json.dumps({"builder_unknown_key": warnings}), flush=True)
        outcome("explain_with_extension", lambda: pyspark_ext.explain_read_schema(spark.range(3)))
        spark.stop()
        SparkSession.builder._options.clear()
        outcome("builder_bad_value", lambda: pyspark_ext.configure(
            session(**{"spark.pyspark_ext.variant.specLayout.enabled": "1"})).getOrCreate())
''')


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, str]:
    pyspark_ext.build_jar()
    tmp = tmp_path_factory.mktemp("loaded")
    results = {}
    for case in ("without", "with"):
        out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT), str(tmp), case], capture_output=True,
                             text=True, timeout=600, env={**os.environ, "PYSPARK_PYTHON": sys.executable})
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                results.update(json.loads(line))
        last = "explain_wrong_jar_path" if case == "without" else "builder_bad_value"
        assert last in results, out.stdout[-3000:] + out.stderr[-3000:]
    return results


NOT_LOADED = "the pyspark-ext extension is not loaded in this session"


@pytest.mark.subprocess
@pytest.mark.parametrize("entry,name", [("explain", "explain_read_schema"), ("shred", "shred"),
                                        ("verify", "verify"), ("advise_write", "advise --apply")])
def test_entry_points_say_the_extension_is_not_loaded(outcomes, entry, name):
    message = outcomes[entry]
    assert message.startswith(f"ExtensionNotLoadedError: {name}: {NOT_LOADED}"), message
    assert "spark.sql.extensions does not name" in message
    assert "pyspark_ext.configure(SparkSession.builder).getOrCreate()" in message


@pytest.mark.subprocess
def test_a_wrong_jar_path_is_named(outcomes):
    message = outcomes["explain_wrong_jar_path"]
    assert NOT_LOADED in message and "no-such.jar" in message, message


@pytest.mark.subprocess
def test_configure_over_a_running_session_without_the_extension_fails(outcomes):
    message = outcomes["configure_over_running_session"]
    assert message.startswith("ExtensionNotLoadedError: configure: a SparkSession is already running "
                              "without the pyspark-ext extension"), message
    assert "spark.stop()" in message


@pytest.mark.subprocess
def test_configure_in_a_jvm_started_without_the_jar_fails(outcomes):
    message = outcomes["configure_in_a_jvm_without_the_jar"]
    assert message.startswith("ExtensionNotLoadedError: configure: this process's JVM was started by an "
                              "earlier session without the pyspark-ext jar"), message


@pytest.mark.subprocess
def test_a_session_made_by_configure_passes_the_check(outcomes):
    assert outcomes["explain_with_extension"] == "no error"


@pytest.mark.subprocess
def test_unknown_key_given_to_the_builder_is_warned_about(outcomes):
    warnings = outcomes["builder_unknown_key"]
    assert "unknown setting spark.pyspark_ext.strcit is ignored" in warnings
    assert "nearest known setting is spark.pyspark_ext.strict " in warnings


@pytest.mark.subprocess
def test_bad_value_given_to_the_builder_fails_naming_it(outcomes):
    message = outcomes["builder_bad_value"]
    assert message.startswith("ValueError: configure: spark.pyspark_ext.variant.specLayout.enabled is '1', "
                              "which is not a boolean: use true or false"), message


def test_a_corrupt_jar_is_refused_with_how_to_rebuild(tmp_path, monkeypatch):
    monkeypatch.setenv(jar.CACHE_ENV, str(tmp_path))
    jar.jar_path().write_bytes(b"not a jar")
    with pytest.raises(loaded.ExtensionNotLoadedError, match="python -m pyspark_ext build --force"):
        pyspark_ext.extension_confs()


def test_conf_command_fails_on_a_corrupt_jar(tmp_path, monkeypatch, capsys):
    from pyspark_ext.__main__ import main
    monkeypatch.setenv(jar.CACHE_ENV, str(tmp_path))
    jar.jar_path().write_bytes(b"not a jar")
    assert main(["conf"]) == 1
    assert "does not hold pysparkext.PySparkExtSessionExtensions" in capsys.readouterr().err


def test_compiling_says_so_on_stderr(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(jar.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(jar.subprocess, "run",
                        lambda *a, **k: subprocess.CompletedProcess(a, 1, "", "stopped by the test"))
    with pytest.raises(RuntimeError, match="stopped by the test"):
        jar.build_jar()
    err = capsys.readouterr().err
    assert "pyspark-ext: compiling the extension jar for Spark" in err
    assert "once per Spark version and source change" in err
