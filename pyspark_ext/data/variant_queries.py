"""Analyst-style queries over the variant event log (``variant_events``): each as a template over
the variant views and its equivalent over the flat tables (``{t}`` names the view), which must
return the same rows. The variant benchmark runs them all; the demo runs three."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VariantQuery:
    variant: str
    flat: str


def queries(rows: int) -> dict[str, VariantQuery]:
    lo = rows // 2
    hi = lo + max(1, rows // 2000)  # 0.05% of the ids
    return {
        "one_path_sum": VariantQuery(
            "SELECT sum(variant_get(v, '$.user.id', 'int')) FROM {t}",
            "SELECT sum(user_id) FROM {t}"),
        "two_strings": VariantQuery(
            "SELECT count(DISTINCT v:kind::string, v:user.geo.country::string) FROM {t}",
            "SELECT count(DISTINCT kind, country) FROM {t}"),
        "group_by_two_paths": VariantQuery(
            "SELECT v:user.geo.country::string AS c, v:kind::string AS k, count(*), "
            "sum(try_variant_get(v, '$.price', 'decimal(10,2)')) FROM {t} GROUP BY 1, 2",
            "SELECT country, kind, count(*), sum(price) FROM {t} GROUP BY 1, 2"),
        "selective_filter": VariantQuery(
            f"SELECT count(*), max(v:user.name::string) FROM {{t}} "
            f"WHERE variant_get(v, '$.id', 'bigint') BETWEEN {lo} AND {hi}",
            f"SELECT count(*), max(user_name) FROM {{t}} WHERE id BETWEEN {lo} AND {hi}"),
        "mismatched_path": VariantQuery(
            "SELECT count(*), sum(try_variant_get(v, '$.price', 'decimal(10,2)')) FROM {t} "
            "WHERE try_variant_get(v, '$.price', 'decimal(10,2)') > 900",
            "SELECT count(*), sum(price) FROM {t} WHERE price > 900"),
    }


WHOLE = VariantQuery("SELECT sum(length(to_json(v))) FROM {t}", "")
