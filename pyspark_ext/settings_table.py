"""The settings table of docs/configuration.md, generated from the jar's own declarations
(``ExtConf.listing`` in ``ExtConf.scala``), so the docs cannot drift from what Spark checks."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .java_classes import java_class


@dataclass(frozen=True)
class Declared:
    key: str
    type: str
    default: str
    doc: str
    alternatives: tuple[str, ...]
    public: bool


def declared(spark: Any) -> list[Declared]:
    """Every setting the jar in ``spark``'s JVM declares, in declaration order."""
    rows = []
    for line in java_class(spark._jvm, "pysparkext.ExtConf").listing().split("\n"):
        key, type_, default, doc, alternatives, visibility = line.split("\t")
        rows.append(Declared(key, type_, default, doc, tuple(a for a in alternatives.split(",") if a),
                             visibility == "public"))
    return rows


def markdown_table(settings: list[Declared]) -> str:
    """One row per public setting; testing-only settings are left out, as ``SET -v`` leaves them."""
    rows = ["| setting | type | default | meaning |", "|---|---|---|---|"]
    for s in settings:
        if not s.public:
            continue
        rows.append(f"| `{s.key}` | {s.type} | {f'`{s.default}`' if s.default else '(empty)'} | {s.doc} |")
    return "\n".join(rows)


def running_or_local_session() -> Any:
    """The running session, or a small local one started with the extension."""
    from .loaded import running_session
    from .session import local_session
    spark = running_session()
    if spark is None:
        spark = local_session("pyspark-ext conf", master="local[1]", shuffle_partitions=None, log_level=None)
    return spark


def generate() -> str:
    """The table, read from a local session started with the extension."""
    return markdown_table(declared(running_or_local_session()))
