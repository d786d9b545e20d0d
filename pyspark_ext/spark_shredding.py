"""The switch for Spark's own VARIANT writer: unshredded, shredded by the schema Spark infers per
file, or shredded by a forced schema. Spark 4.3 shreds every VARIANT it writes by default, so each
write of a VARIANT in this project (tests, benchmarks, the demo, the advisor, the fuzzer) says
which it wants through this one context manager."""
from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from .scoped_confs import scoped_confs

WRITE_SHREDDING = "spark.sql.variant.writeShredding.enabled"
FORCED_SCHEMA = "spark.sql.variant.forceShreddingSchemaForTest"


def shredding_settings(shred: bool, schema: str | None = None) -> dict[str, str | None]:
    """The two confs for a write: ``None`` unsets a conf. ``schema`` is a ``struct<...>`` type or
    the fields inside one (``a int, b string``); without it Spark infers a schema per file."""
    forced = None
    if shred and schema:
        forced = schema if schema.lstrip().lower().startswith("struct<") else f"struct<{schema}>"
    return {WRITE_SHREDDING: str(shred).lower(), FORCED_SCHEMA: forced}


def spark_shredding(spark: Any, shred: bool, schema: str | None = None) -> AbstractContextManager[None]:
    """Spark's writer shreds (by ``schema``, or by what it infers) or not for the writes inside;
    the session's settings before are restored after. ``spark`` may be a Spark Connect session."""
    return scoped_confs(spark, shredding_settings(shred, schema))
