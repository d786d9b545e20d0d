"""Compile and run the Scala rule suites (``extension/src/test/scala``) with ScalaTest.

``python -m devtools.scala_suites [ScalaTest Runner arguments]`` builds the extension
jar (cached, see ``pyspark_ext.jar``), fetches ScalaTest once with Maven from
``deps/scalatest/pom.xml`` into the cache (``devtools.maven``), compiles the suites against pyspark's jars (cached by
a hash of the suites and the jar) and runs them. Arguments go to ScalaTest's Runner, e.g.
``-s pysparkext.pruning.WholePlanSchemaPruningSuite`` for one suite, ``-z "pads"`` for the tests
whose name holds a word. The exit code is non-zero when a suite fails.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pyspark_ext import jar
from devtools import maven

REPO = Path(__file__).resolve().parent.parent
TEST_SOURCES = REPO / "extension" / "src" / "test" / "scala"
LOG_CONFIG = REPO / "extension" / "src" / "test" / "resources" / "log4j2.properties"

# What Spark's launcher passes to a JVM on Java 17 (org.apache.spark.launcher.JavaModuleOptions):
# a local SparkSession started by plain `java` needs it as much as one started by spark-submit.
JAVA_MODULE_OPTIONS = [
    "-XX:+IgnoreUnrecognizedVMOptions",
    "--add-modules=jdk.incubator.vector",
    *[f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in (
        "java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio",
        "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "jdk.internal.ref",
        "sun.nio.ch", "sun.nio.cs", "sun.security.action", "sun.util.calendar")],
    "-Djdk.reflect.useDirectMethodHandle=false",
    "-Dio.netty.tryReflectionSetAccessible=true",
]


def scalatest_ready() -> bool:
    return maven.ready("scalatest")


def scalatest_jars() -> Path:
    """The folder of ScalaTest's jars, copied there by Maven on first use."""
    return maven.fetch("scalatest")


def suite_sources() -> list[Path]:
    return sorted(TEST_SOURCES.rglob("*.scala"))


def compile_suites(extension_jar: Path, scalatest: Path) -> Path:
    """The suites' classes, compiled unless the suites and the extension jar are unchanged."""
    digest = hashlib.sha256(extension_jar.name.encode())
    for path in suite_sources():
        digest.update(str(path.relative_to(TEST_SOURCES)).encode())
        digest.update(path.read_bytes())
    target = jar.cache_dir() / "scala-suites" / digest.hexdigest()[:16]
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix="classes_", dir=target.parent))
    try:
        jar.compile_scala(suite_sources(), partial, (extension_jar, scalatest / "*"))
        partial.rename(target)  # atomic: a concurrent run never sees half the classes
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return target


def run(args: list[str]) -> int:
    extension_jar = jar.build_jar()
    scalatest = scalatest_jars()
    classes = compile_suites(extension_jar, scalatest)
    classpath = os.pathsep.join(
        [str(classes), str(extension_jar), str(jar.pyspark_jars_dir() / "*"), str(scalatest / "*")])
    # D: each test's duration; W: no colour codes when the report goes to a file or pytest.
    report = "-oD" if sys.stdout.isatty() else "-oDW"
    cmd = [jar._java(), "-Xss8m", *JAVA_MODULE_OPTIONS, f"-Dlog4j2.configurationFile={LOG_CONFIG}",
           "-cp", classpath, "org.scalatest.tools.Runner", "-R", str(classes), report, *args]
    return subprocess.run(cmd).returncode


def main() -> None:
    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
