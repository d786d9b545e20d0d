"""Delta Lake, Iceberg and DataFusion Comet beside the extension: which Spark lines each is tested
on, and the session settings each needs. Their jars come from ``deps/<name>/spark-<line>/pom.xml``
(one pinned release per line) through Maven (``devtools.maven``). Used by
``tests/tables`` and ``python -m benchmarks tables``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from devtools import maven

REPO = Path(__file__).resolve().parent.parent


def ci_spark_lines() -> list[str]:
    """The pyspark releases of ``.ci/spark-lines``: the lines CI tests besides the installed one."""
    listed = (REPO / ".ci" / "spark-lines").read_text().splitlines()
    return [v.strip() for v in listed if v.strip() and not v.startswith("#")]


@dataclass(frozen=True)
class Product:
    name: str
    #: the Spark lines it is tested on, each with a pinned release in deps/<name>/spark-<line>/pom.xml;
    #: the first is the one ``python -m benchmarks tables`` measures
    lines: tuple[str, ...]
    #: what the product needs on the session, before the extension is added
    confs: dict[str, str] = field(default_factory=dict)

    @property
    def line(self) -> str:
        """The line ``python -m benchmarks tables`` measures the product on."""
        return self.lines[0]

    def poms(self) -> str:
        """Where its releases are pinned, for messages."""
        return ", ".join(f"deps/{self.name}/spark-{line}/pom.xml" for line in self.lines)

    def version(self) -> str:
        """The pyspark release CI tests ``line`` with (``.ci/spark-lines``, else the installed one)."""
        import pyspark
        for version in [*ci_spark_lines(), pyspark.__version__]:
            if version.startswith(self.line + "."):
                return version
        raise RuntimeError(f"no pyspark release of Spark {self.line} in .ci/spark-lines for {self.name}")


PRODUCTS = {
    "delta": Product("delta", ("4.2", "3.5"), {
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    }),
    "iceberg": Product("iceberg", ("4.1", "3.5"), {
        "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
    }),
    "comet": Product("comet", ("4.1",), {
        "spark.plugins": "org.apache.spark.CometPlugin",
        "spark.shuffle.manager": "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager",
        "spark.comet.enabled": "true",
        "spark.comet.exec.enabled": "true",
        "spark.memory.offHeap.enabled": "true",
        "spark.memory.offHeap.size": "1g",
    }),
}


def product_confs(product: Product, **extra: str) -> dict[str, str]:
    """The product's jars for the installed Spark line and its settings, then ``extra``: the
    ``confs`` of a ``pyspark_ext.session.local_session``, whose ``configure`` adds the extension to
    ``spark.jars`` and ``spark.sql.extensions``."""
    from pyspark_ext import jar
    return {"spark.jars": maven.spark_jars(product.name, jar.spark_line()), **product.confs, **extra}


def for_this_line() -> list[str]:
    """The products built for the installed Spark line."""
    from pyspark_ext import jar
    return [name for name, product in PRODUCTS.items() if jar.spark_line() in product.lines]


if __name__ == "__main__":  # .ci/run-lines: which tests/tables folders to run in this venv
    print(" ".join(for_this_line()))
