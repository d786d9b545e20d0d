"""Markers for tests that need what some Spark line lacks, each with its reason."""
from __future__ import annotations

import pytest

from pyspark_ext import jar

#: Spark 3.5 has no VARIANT type (no `parse_json`, `variant_get`, VariantVal): such tests skip there.
needs_variant_type = pytest.mark.skipif(
    jar.spark_line() == "3.5", reason="Spark 3.5 has no VARIANT type (parse_json, variant_get)")
