"""Lint the extension's Scala sources with Scalastyle, the linter Apache Spark and Delta Lake run.

``python -m devtools.scalastyle`` checks ``extension/src`` (main and test, every Spark line's
folder) against ``scalastyle-config.xml`` and exits non-zero on any error, printing each as
``file:line: message``. Scalastyle's jars (and its own Scala 2.12 runtime) are fetched once with
Maven from ``deps/scalastyle/pom.xml`` into the cache (``devtools.maven``); the check itself takes
a few seconds and needs no Spark. CI runs it beside ``ruff``.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from devtools import maven

REPO = Path(__file__).resolve().parent.parent
CONFIG = REPO / "scalastyle-config.xml"
SOURCES = REPO / "extension" / "src"

_ERROR = re.compile(r"^(?P<level>error|warning) file=(?P<file>\S+) message=(?P<message>.*?)"
                    r"(?: line=(?P<line>\d+))?(?: column=\d+)?$")


def findings(output: str) -> list[str]:
    """Scalastyle's errors and warnings as ``path:line: message``, paths relative to the checkout."""
    found = []
    for raw in output.splitlines():
        match = _ERROR.match(raw.strip())
        if match:
            path = Path(match["file"])
            shown = path.relative_to(REPO) if path.is_relative_to(REPO) else path
            found.append(f"{shown}:{match['line'] or 1}: {match['level']}: {match['message']}")
    return found


def run(sources: Path = SOURCES) -> int:
    java = shutil.which("java")
    if java is None:
        print("scalastyle needs Java (java on PATH)", file=sys.stderr)
        return 2
    classpath = str(maven.fetch("scalastyle") / "*")
    result = subprocess.run(
        # `--quiet true` would also silence the errors themselves, so they are picked from the report.
        [java, "-cp", classpath, "org.scalastyle.Main", "--config", str(CONFIG), str(sources)],
        capture_output=True, text=True)
    found = findings(result.stdout + result.stderr)
    for line in found:
        print(line)
    if result.returncode != 0 and not found:
        print(result.stdout + result.stderr, file=sys.stderr)
    if result.returncode == 0 and not found:
        print(f"scalastyle: no errors in {sources.relative_to(REPO)}")
    return 1 if found or result.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(run())
