"""The features × formats table of docs/table-formats.md, generated from the jar's own answers
(``TableFormats.listing`` in ``formats/TableFormats.scala``): the rules ask the same code whether a
feature applies to a scan, so the docs cannot drift from what the rules do."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .java_classes import java_class


@dataclass(frozen=True)
class Support:
    format: str
    feature: str
    setting: str
    status: str
    detail: str


def declared(spark: Any) -> list[Support]:
    """Every (format, feature) answer the jar in ``spark``'s JVM declares, in the docs' order."""
    listing = java_class(spark._jvm, "pysparkext.formats.TableFormats").listing()
    return [Support(*line.split("\t")) for line in listing.split("\n")]


def _unique(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


def markdown_table(rows: list[Support]) -> str:
    """A yes/partly/no matrix, features by formats, then what each partly and no means."""
    formats = _unique([r.format for r in rows])
    features = _unique([r.feature for r in rows])
    by = {(r.format, r.feature): r for r in rows}
    lines = ["| feature | setting | " + " | ".join(formats) + " |",
             "|---|---|" + "---|" * len(formats)]
    for feature in features:
        setting = by[(formats[0], feature)].setting
        lines.append(f"| {feature} | {f'`{setting}`' if setting else '(none)'} | "
                     + " | ".join(by[(f, feature)].status for f in formats) + " |")
    lines += ["", "| format | feature | status | where it applies, or why not |", "|---|---|---|---|"]
    lines += [f"| {r.format} | {r.feature} | {r.status} | {r.detail} |" for r in rows if r.detail]
    return "\n".join(lines)


def generate() -> str:
    """The tables, read from a local session started with the extension."""
    from .settings_table import running_or_local_session
    return markdown_table(declared(running_or_local_session()))
