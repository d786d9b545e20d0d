"""Every test under tests/tables is marked ``tables`` (see ``tests.tables.sessions``)."""
import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tables" in item.path.parts:
            item.add_marker(pytest.mark.tables)
