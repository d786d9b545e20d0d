"""Whether the extension is there: its jar, and its rules in a session.

Spark starts a session without an extension it cannot load, or when a session was already
running, and says so only in a log line; queries then run without the extension's rules. These
checks make that an error where it is cheap to see: in ``configure`` and ``python -m pyspark_ext
conf`` (the jar) and in every Python entry point that needs the extension (the session).
"""
from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from .jar import EXTENSION_CLASS
from .java_classes import java_class

SPARK_UTILS = "org.apache.spark.util.Utils"
_CLASS_FILE = EXTENSION_CLASS.replace(".", "/") + ".class"
HOW_TO_FIX = ("Start the session with pyspark_ext.configure(SparkSession.builder).getOrCreate(), "
              "after stopping any session already running (spark.stop()), or pass the settings "
              "`python -m pyspark_ext conf` prints to spark-submit or pyspark as --conf key=value.")


class ExtensionNotLoadedError(RuntimeError):
    """The extension's jar is unusable, or a session runs without the extension."""


def check_jar(path: Path) -> Path:
    """``path`` if it is a jar holding the extension; otherwise an error saying how to rebuild."""
    try:
        with zipfile.ZipFile(path) as jar:
            jar.getinfo(_CLASS_FILE)
    except (OSError, zipfile.BadZipFile, KeyError) as e:
        raise ExtensionNotLoadedError(
            f"the pyspark-ext jar {path} is missing or does not hold {EXTENSION_CLASS} ({e}); "
            "rebuild it with: python -m pyspark_ext build --force") from None
    return path


def _is_classic(spark: Any) -> bool:
    """Spark Connect sessions have no JVM here: their server is checked where it starts."""
    return hasattr(spark, "_jvm") and not type(spark).__module__.startswith("pyspark.sql.connect")


def missing_reason(spark: Any) -> str | None:
    """Why ``spark`` runs without the extension, or None when it runs with it."""
    extensions = [e.strip() for e in (spark.conf.get("spark.sql.extensions", None) or "").split(",")]
    if EXTENSION_CLASS not in extensions:
        return f"spark.sql.extensions does not name {EXTENSION_CLASS}"
    if not java_class(spark._jvm, SPARK_UTILS).classIsLoadable(EXTENSION_CLASS):
        jars = spark.conf.get("spark.jars", None) or "(not set)"
        return f"{EXTENSION_CLASS} is not on the driver's classpath (spark.jars: {jars})"
    return None


def require_extension(spark: Any, entry: str) -> None:
    """Fail ``entry`` (the API call being made) clearly when ``spark`` lacks the extension."""
    if not _is_classic(spark):
        return
    reason = missing_reason(spark)
    if reason:
        raise ExtensionNotLoadedError(
            f"{entry}: the pyspark-ext extension is not loaded in this session ({reason}). {HOW_TO_FIX}")


def running_session() -> Any | None:
    """The classic session a builder's ``getOrCreate`` would return, if one is running."""
    from pyspark.sql import SparkSession
    session = getattr(SparkSession, "_instantiatedSession", None)
    if session is None or getattr(session._sc, "_jsc", None) is None:
        return None
    return session


def refuse_running_session_without_extension() -> None:
    """A builder cannot add an extension to a running session: ``getOrCreate`` would hand it back
    unchanged, with only a log warning. Nor can a new session load the jar in a JVM started
    without it: ``spark.jars`` reaches the driver's classpath only when the JVM starts. Say so
    before either happens."""
    session = running_session()
    if session is not None:
        reason = missing_reason(session)
        if reason:
            raise ExtensionNotLoadedError(
                "configure: a SparkSession is already running without the pyspark-ext extension "
                f"({reason}), and getOrCreate() would return it unchanged. Stop it first "
                "(spark.stop()), then call pyspark_ext.configure(SparkSession.builder).getOrCreate(); "
                "or create the first session of the process with configure.")
        return
    from pyspark import SparkContext
    jvm = SparkContext._jvm
    if jvm is not None and not java_class(jvm, SPARK_UTILS).classIsLoadable(EXTENSION_CLASS):
        raise ExtensionNotLoadedError(
            "configure: this process's JVM was started by an earlier session without the "
            "pyspark-ext jar, and a new session cannot add a jar to it. Call "
            "pyspark_ext.configure(SparkSession.builder).getOrCreate() for the first session of a "
            "new Python process.")
