"""Build the extension jar with the Scala compiler shipped inside pyspark.

No sbt or Maven is needed: pyspark's ``jars/`` directory holds ``scala-compiler`` and every Spark
jar, so the extension compiles against exactly the jars it runs in. The jar is cached under a name
keyed by a hash of the sources and the Spark version, and rebuilt when either changes.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pyspark

EXTENSION_CLASS = "pysparkext.PySparkExtSessionExtensions"
# A checkout (or an editable install) compiles the repository's sources; a wheel carries a copy
# of them as package data (setup.py), since a non-editable install has no repository beside it.
# Either root holds `scala/` (shared by every Spark line) and `scala-spark-<from>[-<to>]/` folders
# (what differs between lines, in the manner of Delta's shims).
_CHECKOUT_SOURCES = Path(__file__).resolve().parent.parent / "extension" / "src" / "main"
_PACKAGED_SOURCES = Path(__file__).resolve().parent / "_scala"
SOURCES_DIR = _CHECKOUT_SOURCES if (_CHECKOUT_SOURCES / "scala").is_dir() else _PACKAGED_SOURCES
CACHE_ENV = "PYSPARK_EXT_CACHE"
SUPPORTED_LINES = ("4.0", "4.1", "4.2", "4.3")
_SHIM_FOLDER = re.compile(r"scala-spark-(\d+\.\d+)(?:-(\d+\.\d+))?")


def spark_line(version: str | None = None) -> str:
    """The Spark line (``4.2``) of a Spark version (``4.2.1``), checked to be supported."""
    version = version or pyspark.__version__
    line = ".".join(version.split(".")[:2])
    if line not in SUPPORTED_LINES:
        raise RuntimeError(
            f"pyspark-ext supports Spark {', '.join(SUPPORTED_LINES)}; this Python environment "
            f"has pyspark {version}")
    return line


def carries_variant(version: str | None = None) -> bool:
    """Whether the extension's variant half (shredded reads and writes) runs on this Spark line.
    Spark 4.0 reads and writes shredding differently, so there it is off (docs/spark-versions.md)."""
    return spark_line(version) != "4.0"


def _as_tuple(line: str) -> tuple[int, ...]:
    return tuple(int(part) for part in line.split("."))


def source_folders(version: str | None = None) -> list[Path]:
    """The shared `scala/` folder and the shim folders whose range holds the running Spark line."""
    line = _as_tuple(spark_line(version))
    folders = [SOURCES_DIR / "scala"]
    for folder in sorted(SOURCES_DIR.glob("scala-spark-*")):
        match = _SHIM_FOLDER.fullmatch(folder.name)
        if match:
            low = _as_tuple(match.group(1))
            high = _as_tuple(match.group(2) or match.group(1))
            if low <= line <= high:
                folders.append(folder)
    return folders


def pyspark_jars_dir() -> Path:
    return Path(pyspark.__file__).resolve().parent / "jars"


def scala_sources(version: str | None = None) -> list[Path]:
    sources = sorted(s for folder in source_folders(version) for s in folder.rglob("*.scala"))
    if not sources:
        raise FileNotFoundError(
            f"no Scala sources under {SOURCES_DIR}: this pyspark-ext install has neither a source "
            "checkout beside it nor the sources packaged in its wheel; reinstall it with pip")
    return sources


def source_hash() -> str:
    digest = hashlib.sha256(pyspark.__version__.encode())
    for path in scala_sources():
        digest.update(str(path.relative_to(SOURCES_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    root = os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "pyspark_ext"
    return Path(root)


def jar_path() -> Path:
    return cache_dir() / f"pyspark-ext_spark-{pyspark.__version__}_{source_hash()}.jar"


def build_jar(force: bool = False) -> Path:
    """Return the path of an up-to-date extension jar, compiling it if needed."""
    target = jar_path()
    if target.exists() and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # A compile is the one slow step of a first session: say what the wait is.
    print(f"pyspark-ext: compiling the extension jar for Spark {pyspark.__version__} (once per "
          "Spark version and source change)...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="pyspark_ext_build_") as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        compile_scala(scala_sources(), classes)
        partial = Path(tmp) / target.name
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as jar:
            jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: pyspark_ext\n")
            for cls in sorted(classes.rglob("*")):
                if cls.is_file():
                    jar.write(cls, cls.relative_to(classes).as_posix())
        shutil.move(str(partial), target)  # atomic within one filesystem: readers never see half a jar
    return target


def compile_scala(sources: list[Path], classes: Path, classpath: tuple[Path, ...] = ()) -> None:
    """Compile ``sources`` into ``classes`` with pyspark's Scala compiler, against pyspark's jars
    and ``classpath`` (the Scala rule suites add the extension jar and ScalaTest)."""
    cp = os.pathsep.join([str(pyspark_jars_dir() / "*"), *[str(c) for c in classpath]])
    # One short compile in a cold JVM: C1 alone reaches speed sooner than tiered C2, the serial
    # collector costs least at this heap size, and class files are written in parallel. Measured
    # on 2 cores: 23 s with the JVM's defaults, 12 s so.
    cmd = [
        _java(), "-Xss8m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", cp,
        "scala.tools.nsc.Main", "-Ybackend-parallelism", str(min(4, os.cpu_count() or 1)),
        "-usejavacp", "-release", "17", "-d", str(classes),
        *[str(s) for s in sources],
    ]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(
            "compiling the pyspark-ext Scala sources failed:\n" + result.stdout + result.stderr)


def _java() -> str:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if not found:
        raise RuntimeError("pyspark-ext needs a JDK (java on PATH or JAVA_HOME) to build its jar")
    return found
