"""pyspark's VARIANT type and value classes where the installed pyspark has them (4.0 and later).

pyspark 3.5 has no VARIANT: there ``VARIANT_TYPES`` and ``VARIANT_VALUES`` are empty, so
``isinstance(x, VARIANT_TYPES)`` is false for every type and ``isinstance(v, VARIANT_VALUES)`` for
every value, and ``variant_type()`` is None.
"""
from __future__ import annotations

from pyspark.sql.types import DataType

try:
    from pyspark.sql.types import VariantType, VariantVal
except ImportError:  # pyspark 3.5
    VARIANT_TYPES: tuple[type[DataType], ...] = ()
    VARIANT_VALUES: tuple[type, ...] = ()
else:
    VARIANT_TYPES = (VariantType,)
    VARIANT_VALUES = (VariantVal,)


def variant_type() -> DataType | None:
    """A VARIANT type instance, or None where pyspark has no VARIANT."""
    return VARIANT_TYPES[0]() if VARIANT_TYPES else None
