"""The Scala rule suites (``extension/src/test/scala``): each rule of the extension tested alone on
in-memory plans by ScalaTest, run through ``python -m devtools.scala_suites`` (see
docs/development.md). ScalaTest's report is shown when a suite fails."""
from __future__ import annotations

import shutil

import pytest

from devtools import scala_suites


# A JVM of its own (ScalaTest's runner): `python -m devtools.scala_suites` is the fast way
@pytest.mark.subprocess
@pytest.mark.skipif(shutil.which("mvn") is None and not scala_suites.scalatest_ready(),
                    reason="ScalaTest is fetched with Maven once, and mvn is not on PATH")
def test_scala_rule_suites_pass() -> None:
    assert scala_suites.run([]) == 0, "a Scala rule suite failed: ScalaTest's report is above"
