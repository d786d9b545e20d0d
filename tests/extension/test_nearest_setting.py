"""The nearest known key to a misspelt one, as ``configure`` names it (``settings.nearest``), over
the misspellings in ``fixtures/nearest_setting_keys.txt``. ``test_switches.py`` checks that the
jar's unknown-key warning names the same keys. Pure Python, no Spark."""
from pathlib import Path

import pytest

from pyspark_ext import settings

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "nearest_setting_keys.txt"


def misspellings() -> list[tuple[str, str]]:
    """(misspelt key, nearest known key) pairs, one a line; ``#`` starts a comment line."""
    lines = [line.split() for line in FIXTURE.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert all(len(pair) == 2 for pair in lines), lines
    return [(misspelt, expected) for misspelt, expected in lines]


@pytest.mark.parametrize("misspelt, expected", misspellings())
def test_nearest_names_the_fixtures_key(misspelt, expected):
    assert misspelt not in settings.known_keys()
    assert expected in settings.known_keys()
    assert settings.nearest(misspelt) == expected


def test_a_tie_goes_to_the_key_declared_first():
    """``scan.enabled`` is 5 edits from both ``enabled`` and ``delta.enabled``."""
    misspelt = settings.PREFIX + "scan.enabled"
    assert settings.distance(misspelt, settings.ENABLED) == settings.distance(misspelt, settings.DELTA_TABLES)
    assert settings.nearest(misspelt) == settings.ENABLED
    assert settings.nearest(misspelt, [settings.DELTA_TABLES, settings.ENABLED]) == settings.DELTA_TABLES


@pytest.mark.parametrize("a, b, edits", [
    ("", "", 0), ("abc", "", 3), ("", "abc", 3), ("strict", "strict", 0), ("strcit", "strict", 2),
    ("kitten", "sitting", 3), ("flaw", "lawn", 2)])
def test_distance_counts_inserted_deleted_and_replaced_characters(a, b, edits):
    assert settings.distance(a, b) == edits == settings.distance(b, a)


def test_names_equal_but_for_case_give_the_first_as_spelt():
    assert settings.nearest("ADDRESS", ["city", "Address", "address"]) == "Address"
