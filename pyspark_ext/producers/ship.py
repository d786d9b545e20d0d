"""Making ``pyspark_ext`` importable in the Python workers of a cluster's executors.

Produce and preserve functions run in Spark's Python workers, wrapped in closures of
``pyspark_ext.producers``; each worker must import that package. On a cluster where it is not
installed on every node, ``ship_package(spark)`` zips the package as the driver has it and adds
the zip with ``SparkContext.addPyFile``: every worker puts it first on its ``sys.path`` before it
runs a task. (``spark-submit --py-files`` or ``spark.submit.pyFiles`` with the same zip does the
same at launch.)
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

from pyspark.sql import SparkSession

_shipped: dict[int, str] = {}


def package_zip(directory: str | None = None) -> str:
    """A zip of the ``pyspark_ext`` package's Python files and the data they read (the producers'
    settings, ``settings.tsv``), named by a hash of their content (so a changed package never
    collides with one already shipped under the same name)."""
    root = Path(__file__).resolve().parent.parent
    files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".tsv") and "__pycache__" not in p.parts)
    digest = hashlib.sha256()
    for p in files:
        digest.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    out = Path(directory or tempfile.gettempdir()) / f"pyspark_ext-{digest.hexdigest()[:16]}.zip"
    if not out.exists():
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for p in files:
                z.write(p, f"pyspark_ext/{p.relative_to(root)}")
        os.replace(tmp, out)
    return str(out)


def ship_package(spark: SparkSession) -> str:
    """Add the ``pyspark_ext`` zip to the session's Python files once; returns its path."""
    sc = spark.sparkContext
    key = id(sc._jsc)
    if key not in _shipped:
        path = package_zip()
        sc.addPyFile(path)
        _shipped[key] = path
    return _shipped[key]
