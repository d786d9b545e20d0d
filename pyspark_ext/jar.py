"""Build the extension jar with the Scala compiler shipped inside pyspark.

No sbt or Maven is needed: pyspark's ``jars/`` directory holds ``scala-compiler`` and every Spark
jar, so the extension compiles against exactly the jars it runs in. The jar is cached under a name
keyed by a hash of the sources and the Spark version, and rebuilt when either changes. After a
build, the cache keeps the jars of each Spark version last used and removes older ones that no
process holds (``prune_cache``).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import IO

import pyspark

try:
    import fcntl
except ImportError:  # Windows: no advisory locks here, so the cache is never pruned
    fcntl = None  # type: ignore[assignment]

EXTENSION_CLASS = "pysparkext.PySparkExtSessionExtensions"
# A checkout (or an editable install) compiles the repository's sources; a wheel carries a copy
# of them as package data (setup.py), since a non-editable install has no repository beside it.
# Either root holds `scala/` (shared by every Spark line) and `scala-spark-<from>[-<to>]/` folders
# (what differs between lines, in the manner of Delta's shims).
_CHECKOUT_SOURCES = Path(__file__).resolve().parent.parent / "extension" / "src" / "main"
_PACKAGED_SOURCES = Path(__file__).resolve().parent / "_scala"
SOURCES_DIR = _CHECKOUT_SOURCES if (_CHECKOUT_SOURCES / "scala").is_dir() else _PACKAGED_SOURCES
#: Files of the Python package the jar carries as resources, at the same path as in the package:
#: the producers' settings, declared once beside the Python that reads them (``ExtConf`` registers
#: them with Spark). The package holds them in a checkout and in a wheel alike.
_PACKAGE = Path(__file__).resolve().parent
RESOURCES = ("pyspark_ext/producers/settings.tsv",)
CACHE_ENV = "PYSPARK_EXT_CACHE"
SUPPORTED_LINES = ("3.5", "4.0", "4.1", "4.2", "4.3")
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
    Spark 3.5 has no VARIANT, so its jar leaves the variant half out; Spark 4.0 reads and writes
    shredding differently, so there it is off (docs/spark-versions.md)."""
    return spark_line(version) not in ("3.5", "4.0")


def runs_producers(version: str | None = None) -> bool:
    """Whether ``pyspark_ext.producers`` runs beside this pyspark: it uses ``pyspark.sql.conversion``,
    which pyspark 3.5 lacks (the command line says so from the import error itself)."""
    return spark_line(version) != "3.5"


def carries_connect_plugin(version: str | None = None) -> bool:
    """Whether the jar holds the Spark Connect relation plugin (``explain_read_schema`` for Connect
    clients). pyspark 3.5 ships no ``spark-connect`` jar to compile it against, so its jar has none;
    a Spark 3.5 Connect server still loads the extension's rules."""
    return spark_line(version) != "3.5"


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
    for name, path in resources():
        digest.update(name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def resources() -> list[tuple[str, Path]]:
    """Each resource of the jar: its name in the jar and the file it is read from."""
    return [(name, _PACKAGE.parent / name) for name in RESOURCES]


def cache_dir() -> Path:
    root = os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "pyspark_ext"
    return Path(root)


def jar_path() -> Path:
    return cache_dir() / f"pyspark-ext_spark-{pyspark.__version__}_{source_hash()}.jar"


#: Jars of one Spark version the cache keeps, the most recently used first: a few branches'
#: jars each, so that switching between them does not recompile.
KEEP_PER_SPARK_VERSION = 3
#: A jar used (returned by ``build_jar``) this recently is kept whatever the count: it may be on
#: the classpath of a JVM that no Python process holds it for (a path from ``python -m pyspark_ext
#: conf`` given to spark-submit or a Connect server).
KEEP_USED_WITHIN_SECONDS = 24 * 3600
#: A Spark version none of whose jars was used this long is one upgraded from: its jars go too
#: (an environment that still has it recompiles once).
DROP_VERSION_UNUSED_SECONDS = 30 * 24 * 3600
_JAR_NAME = re.compile(r"pyspark-ext_spark-(?P<version>[^_]+)_(?P<hash>[0-9a-f]{16})\.jar")
_PARTIAL_PREFIX = ".pyspark-ext-build-"
#: The jars this process holds a shared lock on, open for as long as the process runs.
_held: dict[Path, IO[bytes]] = {}


def build_jar(force: bool = False) -> Path:
    """Return the path of an up-to-date extension jar, compiling it if needed. This process holds
    the jar (``hold``) from then on, so that no other process's pruning removes it."""
    target = jar_path()
    while not force and target.exists():
        if hold(target):
            return target
        # removed between exists() and the lock (pruned as unused): build it again
    target.parent.mkdir(parents=True, exist_ok=True)
    # A compile is the one slow step of a first session: say what the wait is.
    print(f"pyspark-ext: compiling the extension jar for Spark {pyspark.__version__} (once per "
          "Spark version and source change)...", file=sys.stderr, flush=True)
    # The jar is written beside its final name and renamed into place, atomic within one
    # filesystem: readers never see half a jar, and concurrent builds of it each rename a whole one.
    fd, partial_name = tempfile.mkstemp(prefix=_PARTIAL_PREFIX, suffix=".jar", dir=target.parent)
    os.close(fd)
    partial = Path(partial_name)
    try:
        with tempfile.TemporaryDirectory(prefix="pyspark_ext_build_") as tmp:
            classes = Path(tmp) / "classes"
            classes.mkdir()
            compile_scala(scala_sources(), classes)
            with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as jar:
                jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: pyspark_ext\n")
                for cls in sorted(classes.rglob("*")):
                    if cls.is_file():
                        jar.write(cls, cls.relative_to(classes).as_posix())
                for name, path in resources():
                    jar.write(path, name)
        os.chmod(partial, 0o644)  # mkstemp's file is private to its owner; cached jars never were
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    hold(target)  # just built, so the newest of its version: no pruning removes it before this
    prune_cache()
    return target


def hold(path: Path) -> bool:
    """Mark ``path`` used now and hold a shared lock on it for the life of this process: a JVM
    this process starts reads it later (the driver at session start, local-cluster executors
    when they fetch it from the driver). False if the file was removed before the lock was taken.

    Why a lock on the jar itself: ``prune_cache`` removes a jar only under an exclusive lock taken
    without waiting, so it skips every jar a live process holds, and the kernel drops a process's
    locks when it ends, however it ends: no lock files or process ids to clean up. A process that
    waited for its lock while a pruner removed the file sees that the path no longer names the
    file it locked, and builds the jar again."""
    if fcntl is None:  # nothing is pruned without locks, and an open file there blocks its rebuild
        _touch(path)
        return path.exists()
    held = _held.pop(path, None)
    if held is not None:
        if _names(path, held):
            _held[path] = held
            _touch(path)
            return True
        held.close()  # replaced (build --force) or removed: hold the file the path names now
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
    except OSError:  # a filesystem without locks: the pruner cannot lock there either, so keeps all
        pass
    if not _names(path, handle):
        handle.close()
        return False
    _held[path] = handle
    _touch(path)
    return True


def _names(path: Path, handle: IO[bytes]) -> bool:
    """Whether ``path`` still names the file ``handle`` has open."""
    try:
        return os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
    except FileNotFoundError:
        return False


def _touch(path: Path) -> None:
    try:
        os.utime(path)  # a jar's modification time is when it was last used
    except OSError:
        pass  # a cache this user cannot write: it is not pruned by this user either


def prune_cache(now: float | None = None) -> list[Path]:
    """Remove the cached jars of each Spark version beyond the ``KEEP_PER_SPARK_VERSION`` most
    recently used (all of a version none of whose jars was used in
    ``DROP_VERSION_UNUSED_SECONDS``), if last used more than ``KEEP_USED_WITHIN_SECONDS`` ago and
    held by no process (``hold``), and builds that never finished as long ago; return what was
    removed. Other files in the cache (Maven downloads, the Scala suites, environments) are not
    touched."""
    if fcntl is None:
        return []
    now = time.time() if now is None else now
    old = now - KEEP_USED_WITHIN_SECONDS
    by_version: dict[str, list[tuple[float, Path]]] = {}
    removed = []
    try:  # pruning never fails a build: what cannot be read or removed stays
        entries = list(cache_dir().iterdir())
    except OSError:
        return []
    for path in entries:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue
        match = _JAR_NAME.fullmatch(path.name)
        if match is not None and path.is_file():
            by_version.setdefault(match.group("version"), []).append((mtime, path))
        elif path.name.startswith(_PARTIAL_PREFIX) and mtime < old and _remove_unheld(path, old):
            removed.append(path)
    for jars in by_version.values():
        jars.sort(reverse=True)
        keep = 0 if jars[0][0] < now - DROP_VERSION_UNUSED_SECONDS else KEEP_PER_SPARK_VERSION
        for mtime, path in jars[keep:]:
            if mtime < old and _remove_unheld(path, old):
                removed.append(path)
    return removed


def _remove_unheld(path: Path, old: float) -> bool:
    """Remove ``path`` if no process holds it and it was not used since ``old``."""
    try:
        handle = open(path, "rb")
    except OSError:
        return False
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # held: a live process may yet start a JVM with it
        try:
            # rebuilt or used between the listing and the lock: keep it
            if not _names(path, handle) or path.stat().st_mtime >= old:
                return False
            path.unlink()
        except OSError:
            return False
        return True  # closing the handle drops the lock, on a file no longer in the cache


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
