"""The variant suite's queries: ``pyspark_ext.data.variant_queries``, which the demo runs too."""
from pyspark_ext.data.variant_queries import WHOLE, VariantQuery, queries

__all__ = ["WHOLE", "VariantQuery", "queries"]
