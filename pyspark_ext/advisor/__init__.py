"""Workload advisor: from the queries people run, which nested leaves and variant paths each table
needs (``analyze_workload``), the read schema of one query without the jar (``schema_on_read``),
and which variant paths to shred, with which types (``recommend_shredding``)."""
from __future__ import annotations

from .paths import QueryNeeds, UnresolvedQuery, VariantPath, query_needs
from .schema_on_read import prune, schema_on_read
from .workload import Failure, Query, WorkloadAnalysis, analyze_workload, read_queries, read_tables

__all__ = ["Failure", "Query", "QueryNeeds", "UnresolvedQuery", "VariantPath", "WorkloadAnalysis",
           "analyze_workload", "prune", "query_needs", "read_queries", "read_tables",
           "recommend_shredding", "schema_on_read"]


def __getattr__(name: str):  # recommend imports pyspark.sql.functions; keep it lazy
    if name == "recommend_shredding":
        from .recommend import recommend_shredding
        return recommend_shredding
    raise AttributeError(name)
