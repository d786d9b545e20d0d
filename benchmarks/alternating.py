"""The benchmarks' timing helper, which ``verify`` shares: see ``pyspark_ext.alternating``."""
from pyspark_ext.alternating import ResultMismatch, Run, alternate, canonical_rows, same_rows

__all__ = ["ResultMismatch", "Run", "alternate", "canonical_rows", "same_rows"]
