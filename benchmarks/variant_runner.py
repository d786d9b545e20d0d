"""Runs each variant query over every storage form, alternating configurations, warmed, medians.

Configurations: JSON parsed at query time, unshredded VARIANT (extension off, and on as
``variant_ext``), the spec layout (Spark's writer) with the extension off and on, the draft layout with the extension on (stock Spark cannot read it),
and the flat table (``flat_narrow``: only the queried columns, on request). All must return the same rows; a mismatch fails the run.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass, field

from pyspark.sql import SparkSession

import pyspark_ext
from pyspark_ext import settings

from .metrics import InputBytes, scan_totals
from .alternating import alternate, canonical_rows
from .variant_data import SOURCES, spark_shredding
from .variant_queries import VariantQuery

# name: (view, extension on?)
CONFIGS: dict[str, tuple[str, bool]] = {
    "json": ("v_json", False),
    "variant": ("v_variant", False),
    "variant_ext": ("v_variant", True),
    "spec_stock": ("v_spec", False),
    "spec_ext": ("v_spec", True),
    "spec_forced_stock": ("v_spec_forced", False),
    "spec_forced_ext": ("v_spec_forced", True),
    "draft_ext": ("v_draft", True),
    "flat": ("flat", False),
    "flat_narrow": ("flat_narrow", False),
}


@dataclass
class VariantResult:
    dataset: str
    query: str
    seconds: dict[str, float] = field(default_factory=dict)
    input_bytes: dict[str, int] = field(default_factory=dict)
    task_input_bytes: dict[str, int] = field(default_factory=dict)
    row_groups_read: dict[str, int | None] = field(default_factory=dict)
    row_groups_skipped: dict[str, int | None] = field(default_factory=dict)

    def ratio(self, a: str, b: str) -> float:
        return self.seconds[a] / self.seconds[b]

    RATIOS = {"draft_ext_vs_flat": ("draft_ext", "flat"), "spec_ext_vs_flat": ("spec_ext", "flat"),
              "spec_ext_vs_spec_stock": ("spec_ext", "spec_stock"),
              "spec_forced_ext_vs_flat": ("spec_forced_ext", "flat"),
              "spec_forced_ext_vs_stock": ("spec_forced_ext", "spec_forced_stock"),
              "draft_ext_vs_variant": ("draft_ext", "variant"),
              "variant_ext_vs_variant": ("variant_ext", "variant"),
              "draft_ext_vs_flat_narrow": ("draft_ext", "flat_narrow"),
              "spec_forced_ext_vs_flat_narrow": ("spec_forced_ext", "flat_narrow")}

    def as_dict(self) -> dict:
        d = asdict(self)
        for key, (a, b) in self.RATIOS.items():
            if a in self.seconds and b in self.seconds:
                d[key] = self.ratio(a, b)
        return d


def _sql(q: VariantQuery, config: str) -> str:
    view, _ = CONFIGS[config]
    template = q.flat if view.startswith("flat") else q.variant
    return template.format(t=SOURCES.get(view, view))


def run_variant_query(spark: SparkSession, metrics: InputBytes, dataset: str, name: str,
                      q: VariantQuery, repeat: int, configs: list[str] | None = None) -> VariantResult:
    configs = configs or list(CONFIGS)

    def use(config: str) -> None:
        spark.conf.set(settings.ENABLED, str(CONFIGS[config][1]).lower())

    def one(config: str):
        use(config)
        df = spark.sql(_sql(q, config))
        rows, elapsed, read = metrics.measure(df.collect, f"variant-{name}-{config}")
        return canonical_rows(rows), elapsed, read

    _, seconds, nbytes = alternate(configs, repeat, one, f"{dataset}/{name}")
    result = VariantResult(dataset, name)
    result.seconds = seconds
    for config in configs:
        result.input_bytes[config] = nbytes[config]["storage"]
        result.task_input_bytes[config] = nbytes[config]["task_input"]
        use(config)
        totals = scan_totals(pyspark_ext.explain_read_schema(spark.sql(_sql(q, config))))
        result.row_groups_read[config] = totals["row_groups_read"]
        result.row_groups_skipped[config] = totals["row_groups_skipped"]
    spark.conf.set(settings.ENABLED, "true")
    return result


def time_writers(spark: SparkSession, source: str, out: str, shredding: str, repeat: int = 2) -> dict:
    """Median seconds to write the same variants unshredded, shredded by pyspark_ext (draft) and
    shredded by Spark's own writer (spec)."""
    variant = spark.read.schema("v VARIANT").parquet(source)

    def spark_writer(path: str, shred: bool):
        def write() -> None:
            with spark_shredding(spark, shred):
                variant.write.mode("overwrite").parquet(path)
        return write
    writers = {
        "unshredded": spark_writer(f"{out}/unshredded", False),
        "draft_shred": lambda: pyspark_ext.shred(variant, "v", shredding).write.mode("overwrite")
        .parquet(f"{out}/draft"),
        "spec_shred": spark_writer(f"{out}/spec", True),
    }
    samples: dict[str, list[float]] = {k: [] for k in writers}
    for i in range(repeat + 1):
        for name, write in writers.items():
            start = time.perf_counter()
            write()
            if i > 0:
                samples[name].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in samples.items()}

