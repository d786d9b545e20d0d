"""The keys of the Spark settings the extension reads, for code that sets them.

Each setting's type, default and doc are declared once: the rules' settings in ``ExtConf.scala``,
the producers pipelines' in ``producers/settings.tsv`` (read here, and registered by
``ExtConf.scala`` from the copy the jar carries). Spark checks values by those types, ``SET -v``
lists the settings with their docs, and the table in ``docs/configuration.md`` is generated from
the declarations (``python -m pyspark_ext conf --markdown``). ``tests/extension/test_switches.py``
checks that these keys, and the types ``value_type`` gives them, are the jar's.
"""
from __future__ import annotations

import re
from importlib import resources
from typing import Iterable, NamedTuple

PREFIX = "spark.pyspark_ext."

ENABLED = PREFIX + "enabled"
NESTED_SCHEMA_PRUNING = PREFIX + "nestedSchemaPruning.enabled"
NARROW_GENERATORS = PREFIX + "nestedSchemaPruning.narrowGenerators.enabled"
ICEBERG_PRUNING = PREFIX + "nestedSchemaPruning.iceberg.enabled"
ICEBERG_VARIANT_READS = PREFIX + "variant.iceberg.enabled"
DELTA_TABLES = PREFIX + "delta.enabled"
SHREDDED_VARIANT = PREFIX + "variant.enabled"
SPEC_VARIANT = PREFIX + "variant.specLayout.enabled"
INFER_DRAFT_LAYOUT = PREFIX + "variant.inferDraftLayout"
VARIANT_SKIPPING = PREFIX + "variant.skipping.enabled"
PATH_READS_BEFORE_AGGREGATES = PREFIX + "variant.pathReadsBeforeAggregates.enabled"
ROW_GROUP_METRICS = PREFIX + "metrics.rowGroups.enabled"
ROW_GROUP_METRICS_ALL_SCANS = PREFIX + "metrics.rowGroups.allScans"
NESTED_LEAVES_AS_COLUMNS = PREFIX + "scan.nestedLeavesAsColumns.enabled"
LEAF_COLUMNS_READER = PREFIX + "scan.leafColumnsReader.enabled"
PACK_NARROW_READS = PREFIX + "scan.packNarrowReads.enabled"
SPEC_LAYOUT_WRITER = PREFIX + "writer.specLayout.enabled"
COLUMNAR_SPEC_WRITER = PREFIX + "writer.columnar.enabled"
STRICT = PREFIX + "strict"


class NumberSetting(NamedTuple):
    """A row of ``producers/settings.tsv``: a setting that takes a whole number (Spark's long)."""
    key: str
    default: int
    minimum: int
    doc: str


# Read as package data, not by path: on a cluster's executors the package is imported from the zip
# ``producers.ship`` sends them, where no file path reaches it.
PRODUCERS_SETTINGS_FILE = resources.files(__package__) / "producers" / "settings.tsv"


def _producers_settings() -> dict[str, NumberSetting]:
    """The producers pipelines' settings by key, in the file's order (its first line names the
    columns: key, type, default, minimum, doc)."""
    rows = PRODUCERS_SETTINGS_FILE.read_text(encoding="utf-8").splitlines()[1:]
    found = {}
    for key, type_, default, minimum, doc in (row.split("\t") for row in rows if row.strip()):
        if type_ != "long":
            raise ValueError(f"{PRODUCERS_SETTINGS_FILE}: {key} is a {type_}; only long settings are read")
        found[key] = NumberSetting(key, int(default), int(minimum), doc)
    return found


PRODUCERS: dict[str, NumberSetting] = _producers_settings()
"""The producers pipelines' settings (``pyspark_ext.producers.Pipeline`` reads them)."""


def _producers_key(name: str) -> str:
    key = PREFIX + "producers." + name
    if key not in PRODUCERS:
        raise KeyError(f"{PRODUCERS_SETTINGS_FILE} declares no {key}")
    return key


PRODUCERS_ROWS_PER_ROW_GROUP = _producers_key("rowsPerRowGroup")
PRODUCERS_ROWS_PER_FILE = _producers_key("rowsPerFile")
PRODUCERS_ROW_GROUP_BYTES = _producers_key("rowGroupBytes")
FORCE_FAILURE = PREFIX + "test.forceRuleFailure"
FAKE_MISSING_INTERNALS = PREFIX + "test.missingSparkInternals"

KEYS: tuple[str, ...] = (
    ENABLED, NESTED_SCHEMA_PRUNING, NARROW_GENERATORS, ICEBERG_PRUNING, ICEBERG_VARIANT_READS, DELTA_TABLES,
    SHREDDED_VARIANT, SPEC_VARIANT, INFER_DRAFT_LAYOUT, VARIANT_SKIPPING,
    PATH_READS_BEFORE_AGGREGATES, ROW_GROUP_METRICS, ROW_GROUP_METRICS_ALL_SCANS, NESTED_LEAVES_AS_COLUMNS,
    LEAF_COLUMNS_READER, PACK_NARROW_READS, SPEC_LAYOUT_WRITER, COLUMNAR_SPEC_WRITER, STRICT,
    *PRODUCERS, FORCE_FAILURE, FAKE_MISSING_INTERNALS)

RENAMED: dict[str, str] = {PREFIX + "variant.draftLayout.enabled": SHREDDED_VARIANT}
"""Older keys, still read when the current key is not set."""


def known_keys() -> list[str]:
    """Every key the extension reads, each followed by the older keys it was renamed from: the
    order of ``ExtConf.knownKeys``, which decides between keys equally near a misspelt one."""
    return [k for key in KEYS for k in (key, *(old for old, new in RENAMED.items() if new == key))]


def distance(a: str, b: str) -> int:
    """Levenshtein distance, the fewest characters inserted, deleted or replaced to turn ``a`` into
    ``b``: a transposed or missing letter is one or two edits. ``UnknownKeys.distance`` in
    ``ExtConf.scala`` computes the same, so both sides name the same nearest key."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j - 1] + (x != y), previous[j] + 1, current[j - 1] + 1))
        previous = current
    return previous[-1]


def nearest(key: str, known: Iterable[str] | None = None) -> str:
    """The known key most like ``key``, to name in an error about a misspelled one; or, given
    ``known`` (not empty), the name in it most like ``key``, such as a column or field name.
    The rule of the jar's unknown-key warning (``UnknownKeys.nearest`` in ``ExtConf.scala``), so
    that both name the same key: the least ``distance`` between the lower-cased names, the
    first such name on a tie; returned as spelt.
    ``tests/extension/fixtures/nearest_setting_keys.txt`` holds misspellings both sides check."""
    wanted = key.lower()
    return min(known_keys() if known is None else known, key=lambda name: distance(wanted, name.lower()))


NUMBERS: tuple[str, ...] = tuple(PRODUCERS)
"""The settings that take a whole number (Spark's ``long``)."""

MINIMUM: dict[str, int] = {key: setting.minimum for key, setting in PRODUCERS.items()}
"""The smallest value each number setting takes (Spark's ``checkValue``, which ``ExtConf.scala``
sets from ``producers/settings.tsv``)."""

TEXTS: tuple[str, ...] = (FAKE_MISSING_INTERNALS,)
"""The settings that take any text; every other setting takes ``true`` or ``false``."""

# Spark's own reading of a long (Java's): an optional sign and decimal digits, in any script.
_LONG = re.compile(r"[+-]?\d+")


def value_type(key: str) -> str:
    """The type of a setting as ``ExtConf.scala`` declares it: boolean, long or string."""
    key = RENAMED.get(key, key)
    return "long" if key in NUMBERS else "string" if key in TEXTS else "boolean"


def bad_value(key: str, value: str) -> str | None:
    """Why ``value`` is not a value of the known setting ``key`` as Spark reads it, worded as the
    jar words it at session start (``ConfEntry.badValues``); None for a good value or a key the
    extension does not read."""
    if key not in KEYS and key not in RENAMED:
        return None
    text = value.strip()
    type_ = value_type(key)
    if type_ == "boolean":
        if text.lower() in ("true", "false"):
            return None
        what, takes = "not a boolean", "true or false"
    elif type_ == "long":
        minimum = MINIMUM[RENAMED.get(key, key)]
        takes = f"a whole number of at least {minimum}"
        if not (_LONG.fullmatch(text) and -2**63 <= int(text) < 2**63):
            what = "not a long"
        elif int(text) < minimum:
            what = f"below its minimum {minimum}"
        else:
            return None
    else:
        return None
    name = f"{key} (the older name of {RENAMED[key]})" if key in RENAMED else key
    return f"{name} is '{value}', which is {what}: use {takes}"
