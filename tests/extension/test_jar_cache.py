"""The jar cache: a build keeps the jars of each Spark version last used and removes older ones,
never one another process holds. Every test uses a cache of its own (``PYSPARK_EXT_CACHE``) with
stand-in jars, and no compile: the real cache is never pruned here."""
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pyspark
import pytest

from pyspark_ext import jar

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the cache is pruned only where flock exists")

ROOT = Path(__file__).resolve().parents[2]
DAY = 24 * 3600


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(jar.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(jar, "_held", {}, raising=False)  # this process's holds on the real cache stay as they are
    yield tmp_path
    for handle in jar._held.values():
        handle.close()


def stand_in(cache: Path, version: str, n: int, days_ago: float) -> Path:
    """A cached jar's name and last use, without its classes."""
    path = cache / f"pyspark-ext_spark-{version}_{n:016x}.jar"
    path.write_bytes(b"stand-in")
    used = time.time() - days_ago * DAY
    os.utime(path, (used, used))
    return path


def names(cache: Path) -> set[str]:
    return {p.name for p in cache.iterdir()}


def test_keeps_the_most_recently_used_jars_of_each_spark_version(cache):
    # more jars used today than the count keeps: a JVM may yet read any of them, so all stay
    recent = [stand_in(cache, "4.3.0", n, days_ago=0.1 * n) for n in range(1, jar.KEEP_PER_SPARK_VERSION + 2)]
    old = [stand_in(cache, "4.3.0", n, days_ago=10 + n) for n in range(10, 13)]
    other_line = [stand_in(cache, "4.1.4", n, days_ago=20 + n) for n in range(5)]
    # a version upgraded from: none of its jars used for longer than the version is kept
    upgraded = [stand_in(cache, "4.2.0", n, days_ago=40 + n) for n in range(2)]
    (cache / "maven").mkdir()
    (cache / "notes.jar").write_bytes(b"not ours")
    unfinished = cache / f"{jar._PARTIAL_PREFIX}x1.jar"
    unfinished.write_bytes(b"half")
    os.utime(unfinished, (time.time() - 2 * DAY,) * 2)

    removed = jar.prune_cache()

    kept = [*recent, *other_line[:jar.KEEP_PER_SPARK_VERSION]]
    assert names(cache) == {p.name for p in kept} | {"maven", "notes.jar"}
    assert sorted(removed) == sorted([*old, *other_line[jar.KEEP_PER_SPARK_VERSION:], *upgraded,
                                      unfinished])


def test_a_jar_another_process_holds_is_not_removed(cache):
    held = stand_in(cache, "4.3.0", 0, days_ago=20)
    for n in range(1, jar.KEEP_PER_SPARK_VERSION + 1):
        stand_in(cache, "4.3.0", n, days_ago=1 + n)
    # the other process holds the jar as build_jar does: a session's JVM may read it at any time
    other = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; from pyspark_ext import jar; "
                               "assert jar.hold(Path(sys.argv[1])); print('held', flush=True); sys.stdin.read()",
         str(held)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline() == "held\n"
        os.utime(held, (time.time() - 20 * DAY,) * 2)  # its last use long ago: only the lock keeps it
        assert jar.prune_cache() == [] and held.exists()
    finally:
        other.communicate("")
    assert jar.prune_cache() == [held]  # the process has ended: its lock went with it
    assert not held.exists()


def test_a_jar_this_process_holds_is_not_removed(cache):
    held = stand_in(cache, "4.3.0", 0, days_ago=20)
    for n in range(1, jar.KEEP_PER_SPARK_VERSION + 1):
        stand_in(cache, "4.3.0", n, days_ago=1 + n)
    assert jar.hold(held)
    os.utime(held, (time.time() - 20 * DAY,) * 2)
    assert jar.prune_cache() == [] and held.exists()


def test_holding_a_jar_marks_it_used(cache):
    path = stand_in(cache, "4.3.0", 0, days_ago=20)
    assert jar.hold(path)
    assert time.time() - path.stat().st_mtime < 60
    assert not jar.hold(cache / "pyspark-ext_spark-4.3.0_00000000000000ff.jar")  # no such file


def fake_compile(sources, classes, classpath=()):
    (classes / "pysparkext").mkdir(parents=True)
    (classes / "pysparkext" / "PySparkExtSessionExtensions.class").write_bytes(b"\xca\xfe\xba\xbe")


def test_a_build_prunes_the_cache_and_holds_its_jar(cache, monkeypatch):
    monkeypatch.setattr(jar, "compile_scala", fake_compile)
    version = pyspark.__version__
    old = [stand_in(cache, version, n, days_ago=5 + n) for n in range(5)]

    built = jar.build_jar()

    assert built == jar.jar_path()
    with zipfile.ZipFile(built) as z:
        assert "pysparkext/PySparkExtSessionExtensions.class" in z.namelist()
    # the new jar and the two most recently used before it; no unfinished build left behind
    assert names(cache) == {built.name, old[0].name, old[1].name}
    assert built in jar._held
    os.utime(built, (time.time() - 20 * DAY,) * 2)
    for n in range(10, 10 + jar.KEEP_PER_SPARK_VERSION):
        stand_in(cache, version, n, days_ago=0)
    assert built not in jar.prune_cache() and built.exists()  # held by this process


def test_a_failed_build_leaves_no_partial_jar(cache, monkeypatch):
    def fail(sources, classes, classpath=()):
        raise RuntimeError("stopped by the test")
    monkeypatch.setattr(jar, "compile_scala", fail)
    with pytest.raises(RuntimeError, match="stopped by the test"):
        jar.build_jar()
    assert names(cache) == set()


def test_a_cache_without_locks_is_used_and_never_pruned(cache, monkeypatch):
    """On a filesystem without flock (some network mounts) jars are still used; none is removed."""
    def no_locks(fd, operation):
        raise OSError(37, "No locks available")
    monkeypatch.setattr(jar.fcntl, "flock", no_locks)
    old = [stand_in(cache, "4.3.0", n, days_ago=10 + n) for n in range(jar.KEEP_PER_SPARK_VERSION + 2)]
    assert jar.hold(old[-1])
    os.utime(old[-1], (time.time() - 30 * DAY,) * 2)
    assert jar.prune_cache() == []
    assert names(cache) == {p.name for p in old}
