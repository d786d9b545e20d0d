"""The table of wired rules in docs/architecture.md, generated from the jar's own wiring
(``WiredRules.listing``: the entry class applied to a fresh ``SparkSessionExtensions``, each
stage's rules built as Spark builds them), so the docs cannot drift from what Spark runs."""
from __future__ import annotations

from typing import Any

from .java_classes import java_class


def wired(spark: Any) -> list[tuple[str, str]]:
    """(stage, rule) for every rule and SQL function the extension wires in ``spark``'s JVM, in
    the order Spark runs them."""
    listing = java_class(spark._jvm, "org.apache.spark.sql.pysparkext.WiredRules").listing(
        spark._jsparkSession)
    return [(stage, name) for stage, name in (line.split("\t") for line in listing.split("\n") if line)]


def markdown_table(rules: list[tuple[str, str]]) -> str:
    """One row per stage, its rules numbered in the order they run."""
    stages: dict[str, list[str]] = {}
    for stage, name in rules:
        stages.setdefault(stage, []).append(name)
    rows = ["| stage | the extension's rules, in the order they run |", "|---|---|"]
    for stage, names in stages.items():
        rows.append(f"| {stage} | " + ", ".join(f"{i}. `{n}`" if len(names) > 1 else f"`{n}`"
                                              for i, n in enumerate(names, 1)) + " |")
    return "\n".join(rows)


def generate() -> str:
    """The table, read from a local session started with the extension."""
    from .settings_table import running_or_local_session
    return markdown_table(wired(running_or_local_session()))
