"""Jars the tests need beside Spark's own, fetched once with Maven from ``deps/<name>/pom.xml``,
or ``deps/<name>/spark-<line>/pom.xml`` for a product published per Spark line.

Each pom lists one product (ScalaTest; Delta Lake, Iceberg, DataFusion Comet for one Spark line
each). ``jars("delta", "4.2")``
runs ``mvn dependency:copy-dependencies`` into the cache the first time (and again when the pom
changes), then returns the jars to put on ``spark.jars``. Jars that pyspark already ships under
another version (Hadoop, Parquet, Jackson, log4j...) are left out: two copies of a class on one
classpath is how a table-format test would end up testing the wrong Parquet reader.
"""
from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from pyspark_ext import jar

REPO = Path(__file__).resolve().parent.parent
DEPS = REPO / "deps"

# "parquet-hadoop-1.16.0.jar" -> "parquet-hadoop"; "zstd-jni-1.5.7-3.jar" -> "zstd-jni"
_ARTIFACT = re.compile(r"^(?P<name>.+?)-\d[^-]*(?:-[^-]+)*\.jar$")


def pom(name: str, line: str | None = None) -> Path:
    """``deps/<name>/pom.xml``, or with ``line`` the pom of the release built for that Spark line."""
    path = DEPS / name / (f"spark-{line}" if line else "") / "pom.xml"
    if not path.is_file():
        raise ValueError(f"no pom for {name!r}" + (f" on Spark {line}" if line else "") + f": expected {path}")
    return path


def _folder(name: str, line: str | None) -> Path:
    digest = hashlib.sha256(pom(name, line).read_bytes()).hexdigest()[:16]
    return jar.cache_dir() / "maven" / (f"{name}-spark-{line}-{digest}" if line else f"{name}-{digest}")


def ready(name: str, line: str | None = None) -> bool:
    """Whether the jars are already in the cache (no Maven run needed)."""
    return _folder(name, line).is_dir()


def fetch(name: str, line: str | None = None) -> Path:
    """The folder holding every jar the pom resolves to, copied there by Maven on first use."""
    target = _folder(name, line)
    if target.is_dir():
        return target
    if shutil.which("mvn") is None:
        raise RuntimeError(f"fetching {name}'s jars needs Maven (mvn on PATH), as {pom(name, line)} lists them")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f"{name}_", dir=target.parent))
    try:
        result = subprocess.run(
            ["mvn", "-q", "-B", "-f", str(pom(name, line)), "dependency:copy-dependencies",
             "-DincludeScope=runtime", f"-DoutputDirectory={partial}"],
            capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"fetching {name}'s jars with Maven ({pom(name, line)}) failed:\n"
                               + result.stdout[-4000:] + result.stderr[-4000:])
        partial.rename(target)  # atomic: a concurrent run never sees half the jars
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return target


def artifact_name(jar_file: str) -> str:
    match = _ARTIFACT.match(jar_file)
    return match.group("name") if match else jar_file.removesuffix(".jar")


def jars(name: str, line: str | None = None) -> list[Path]:
    """The product's jars that pyspark does not already ship, for ``spark.jars``."""
    shipped = {artifact_name(p.name) for p in jar.pyspark_jars_dir().glob("*.jar")}
    return sorted(p for p in fetch(name, line).glob("*.jar") if artifact_name(p.name) not in shipped)


def spark_jars(name: str, line: str | None = None) -> str:
    """``jars(name, line)`` as the comma-separated value of ``spark.jars``."""
    return ",".join(str(p) for p in jars(name, line))
