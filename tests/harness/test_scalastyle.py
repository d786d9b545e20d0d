"""The Scala lint's report parsing (``devtools.scalastyle``): CI fails on what it finds, so a
finding it misses would pass a violation silently. No JVM: the report lines are Scalastyle's."""
from __future__ import annotations

from devtools import scalastyle


def test_each_error_becomes_a_path_line_and_message() -> None:
    source = scalastyle.REPO / "extension" / "src" / "main" / "scala" / "pysparkext" / "ExtConf.scala"
    report = "\n".join([
        "Processed 1 file(s)",
        f"error file={source} message=File line length exceeds 120 characters line=224",
        f"error file={source} message=Expression should come before ExprId. line=3 column=49",
        f"warning file={source} message=Use toUpperCase(Locale.ROOT)",
        "Found 2 errors",
    ])
    assert scalastyle.findings(report) == [
        "extension/src/main/scala/pysparkext/ExtConf.scala:224: error: File line length exceeds 120 characters",
        "extension/src/main/scala/pysparkext/ExtConf.scala:3: error: Expression should come before ExprId.",
        "extension/src/main/scala/pysparkext/ExtConf.scala:1: warning: Use toUpperCase(Locale.ROOT)",
    ]


def test_a_clean_report_has_no_findings() -> None:
    assert scalastyle.findings("Processed 120 file(s)\nFound 0 errors\nFound 0 warnings\nFinished in 2800 ms") == []


def test_the_config_names_the_rules_the_docs_promise() -> None:
    config = scalastyle.CONFIG.read_text()
    for rule in ("FileLineLengthChecker", "ImportOrderChecker", "FileTabChecker", "caselocale", "println"):
        assert rule in config
