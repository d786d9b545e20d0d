"""The zip ``producers.ship`` sends to a cluster's executors holds the whole package: its Python
modules and the data they read at import (the producers' settings). No JVM: a fresh interpreter
imports the package from the zip alone, as an executor's Python worker does."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from pyspark_ext import settings
from pyspark_ext.producers import ship


def test_the_zip_carries_the_settings_file(tmp_path: Path) -> None:
    names = zipfile.ZipFile(ship.package_zip(str(tmp_path))).namelist()
    assert "pyspark_ext/producers/settings.tsv" in names
    assert "pyspark_ext/producers/pipeline.py" in names


def test_the_package_imports_from_the_zip_alone(tmp_path: Path) -> None:
    zipped = ship.package_zip(str(tmp_path))
    code = (f"import sys; sys.path.insert(0, {zipped!r}); import pyspark_ext.settings as s; "
            "print(s.__file__); print(sorted(s.PRODUCERS))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    where, keys = result.stdout.splitlines()
    assert where.startswith(zipped), where
    assert keys == repr(sorted(settings.PRODUCERS))
