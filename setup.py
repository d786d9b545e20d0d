"""Ships the extension's Scala sources inside the wheel, so that an installed (non-editable)
pyspark-ext can build its jar: ``pyspark_ext.jar`` compiles them with pyspark's Scala compiler.
Everything else about the package is declared in pyproject.toml."""
from pathlib import Path
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

SCALA_SOURCES = Path(__file__).resolve().parent / "extension" / "src" / "main"


class BuildPyWithScalaSources(build_py):
    def run(self) -> None:
        super().run()
        # an editable install reads the sources from the checkout itself
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "pyspark_ext" / "_scala"
        shutil.rmtree(target, ignore_errors=True)
        # the shared sources and every Spark line's shims: the jar is built for the pyspark found
        for folder in SCALA_SOURCES.glob("scala*"):
            shutil.copytree(folder, target / folder.name)


setup(cmdclass={"build_py": BuildPyWithScalaSources})
