"""The jar build, its cache, the CLI and build.sbt's truthfulness."""
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pyspark
import pytest

from pyspark_ext import jar, settings
from pyspark_ext.jar import EXTENSION_CLASS
from pyspark_ext.session import configure

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]


def test_build_sbt_agrees_with_the_jar_build():
    """build.sbt builds the installed Spark line from the same folders, with its Scala, and the
    package accepts every supported line instead of pinning one."""
    sbt = (ROOT / "build.sbt").read_text()
    default = re.search(r'sys.props.getOrElse\("spark.version", "([^"]+)"\)', sbt).group(1)
    scala_of_line = dict(re.findall(r'"(\d\.\d)" -> "([\d.]+)"', sbt))
    assert sorted(scala_of_line) == list(jar.SUPPORTED_LINES)
    assert jar.spark_line(default) == jar.SUPPORTED_LINES[-1]
    shipped = [p.name for p in jar.pyspark_jars_dir().glob("scala-library-*.jar")]
    assert shipped == [f"scala-library-{scala_of_line[jar.spark_line()]}.jar"]
    assert '"provided"' in sbt and "shimFolders" in sbt
    # the jar's resources, at the same path from the repository as in the jar
    assert all(" / ".join(f'"{part}"' for part in name.split("/")) in sbt for name in jar.RESOURCES)
    requirement = re.search(r'"pyspark(>=[^"]+)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert requirement == f">={jar.SUPPORTED_LINES[0]},<4.4"


#: An import of a VARIANT class of Spark's or of the extension's variant half.
VARIANT_IMPORT = re.compile(r"^import .*(\bVariant(Type|Val|Get|Builder|Metadata)\b|"
                            r"pysparkext\.variant|expressions\.variant|types\.variant)", re.M)


def test_each_spark_line_compiles_the_shared_sources_and_its_own_shims():
    """Every line gets exactly one copy of each shim object, and no other line's; Spark 3.5 gets
    none of the variant half (it has no VARIANT) and the rest of 4.x only."""
    common = {"ParquetFiltersShim", "ParquetFooterShim", "FileScanCopyShim", "V2RelationCopyShim",
              "LogicalRelationCopyShim", "SessionShim", "VariantHalfShim", "VariantInternals",
              "LineGapsShim", "OptimizerHooksShim"}
    for line in jar.SUPPORTED_LINES:
        folders = jar.source_folders(f"{line}.0")
        assert folders[0] == jar.SOURCES_DIR / "scala"
        shims = [s.stem for f in folders[1:] for s in f.rglob("*.scala") if s.parent.name == "shims"]
        assert sorted(shims) == sorted(set(shims)), (line, shims)
        only_4x = set() if line == "3.5" else {"VariantValidationShim"}
        assert common | only_4x == set(shims), line
        sources = [s for f in folders for s in f.rglob("*.scala")]
        names_variant = [s.name for s in sources if VARIANT_IMPORT.search(s.read_text())]
        assert (names_variant == []) == (line == "3.5"), (line, names_variant)
    with pytest.raises(RuntimeError, match=r"supports Spark 3\.5, 4\.0, 4\.1, 4\.2, 4\.3.*3\.4\.2"):
        jar.spark_line("3.4.2")


def test_jar_is_cached_by_source_hash_and_holds_the_entry_class():
    path = jar.build_jar()
    assert path == jar.jar_path() and jar.source_hash() in path.name
    assert pyspark.__version__ in path.name
    with zipfile.ZipFile(path) as z:
        assert "pysparkext/PySparkExtSessionExtensions.class" in z.namelist()
    assert jar.build_jar() == path  # a second call reuses it


def test_conf_cli_prints_the_enabling_settings():
    out = subprocess.run([sys.executable, "-m", "pyspark_ext", "conf"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    settings = dict(line.split("=", 1) for line in out)
    assert settings["spark.sql.extensions"] == "pysparkext.PySparkExtSessionExtensions"
    assert Path(settings["spark.jars"]).is_absolute() and Path(settings["spark.jars"]).exists()


def test_configure_appends_to_existing_settings():
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.config("spark.sql.extensions", "com.example.Other")
    configure(builder, strict=True)
    options = builder._options
    assert options["spark.sql.extensions"] == "com.example.Other,pysparkext.PySparkExtSessionExtensions"
    assert options[settings.STRICT] == "true"
    builder._options.pop("spark.sql.extensions")


def test_configure_lists_the_extension_ahead_of_deltas():
    """Delta plans its scans in the batch the extension's rules run in, in list order
    (docs/table-formats.md): the extension goes ahead of it, other extensions keep theirs."""
    from pyspark.sql import SparkSession
    delta, comet = "io.delta.sql.DeltaSparkSessionExtension", "org.apache.comet.CometSparkSessionExtensions"
    builder = SparkSession.builder.config("spark.sql.extensions", f"{comet}, {delta}")
    try:
        configure(builder)
        assert builder._options["spark.sql.extensions"] == f"{comet},{EXTENSION_CLASS},{delta}"
        configure(builder)  # listed once, where it is
        assert builder._options["spark.sql.extensions"] == f"{comet},{EXTENSION_CLASS},{delta}"
        builder.config("spark.sql.extensions", f"{delta},{EXTENSION_CLASS}")
        configure(builder)  # the user's own order is kept (the extension warns at session start)
        assert builder._options["spark.sql.extensions"] == f"{delta},{EXTENSION_CLASS}"
    finally:
        builder._options.pop("spark.sql.extensions")


def test_every_conf_the_extension_reads_is_documented():
    source = (ROOT / "extension/src/main/scala/pysparkext/ExtConf.scala").read_text()
    keys = set(re.findall(r'"(spark\.pyspark_ext\.[A-Za-z0-9_.]+)"', source))
    keys |= set(settings.PRODUCERS)  # the producers' settings, as settings.py reads their file
    doc = (ROOT / "docs" / "configuration.md").read_text()
    assert len(keys) > 10
    # Declared keys and the older keys they still read (withAlternative).
    assert keys == set(settings.KEYS) | set(settings.RENAMED)
    public = [k for k in keys if ".test." not in k]
    assert [k for k in sorted(public) if f"`{k}`" not in doc] == []


def test_an_installed_wheel_carries_the_sources_its_jar_is_built_from(tmp_path):
    """A non-editable install has no checkout beside it: the wheel's build step packages the Scala
    sources (and the package holds the jar's resources), and the installed package finds them and
    hashes them to the same jar as the checkout."""
    subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(tmp_path)],
                   cwd=ROOT, check=True, capture_output=True)
    probe = "from pyspark_ext import jar; print(jar.SOURCES_DIR); print(jar.source_hash())"
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, check=True, text=True,
                         capture_output=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    sources_dir, digest = out.stdout.split()
    assert Path(sources_dir) == tmp_path / "pyspark_ext" / "_scala"
    assert digest == jar.source_hash()
