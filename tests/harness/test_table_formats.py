"""Which table formats each Spark line's venv tests (``.ci/run-lines`` runs the folders
``python -m devtools.table_formats`` prints), and that every line a product names has a
pom pinning a release built for that line's Scala version."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from pyspark_ext import jar
from devtools import maven
from devtools.table_formats import PRODUCTS, for_this_line

POM = "{http://maven.apache.org/POM/4.0.0}"


@pytest.mark.parametrize("line, products", [
    ("3.5", ["delta", "iceberg"]),
    ("4.1", ["iceberg", "comet"]),
    ("4.2", ["delta"]),
    ("4.3", []),
])
def test_each_line_runs_the_products_built_for_it(monkeypatch, line, products):
    monkeypatch.setattr(jar, "spark_line", lambda: line)
    assert for_this_line() == products


@pytest.mark.parametrize("name, line", [(n, line) for n, p in PRODUCTS.items() for line in p.lines])
def test_each_line_of_a_product_pins_a_release_for_its_scala(name, line):
    artifact = ET.parse(maven.pom(name, line)).getroot().find(f"{POM}dependencies/{POM}dependency/{POM}artifactId")
    scala = "2.12" if line == "3.5" else "2.13"
    assert artifact is not None and artifact.text.endswith(f"_{scala}"), (name, line)
