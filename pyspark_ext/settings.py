"""The Spark confs the extension reads. Mirrors ``ExtConf.scala``; the README documents each."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    key: str
    default: str
    doc: str


ENABLED = Setting(
    "spark.pyspark_ext.enabled", "true",
    "Master kill switch. When false, every rule of the extension leaves the plan unchanged.")
NESTED_SCHEMA_PRUNING = Setting(
    "spark.pyspark_ext.nestedSchemaPruning.enabled", "true",
    "Whole-plan nested schema pruning of Parquet and ORC scans.")
STRICT = Setting(
    "spark.pyspark_ext.strict", "false",
    "When true, an internal error in a rule fails the query. When false, the rule logs a warning "
    "and the query runs on the plan Spark made without it.")
FORCE_FAILURE = Setting(
    "spark.pyspark_ext.test.forceRuleFailure", "false",
    "Testing only: every rule throws, to exercise the fallback and strict mode.")

ALL: tuple[Setting, ...] = (ENABLED, NESTED_SCHEMA_PRUNING, STRICT, FORCE_FAILURE)
