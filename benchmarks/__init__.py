"""Benchmark harness: the extension against stock Spark and against the physical limit."""
