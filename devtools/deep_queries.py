"""Analyst-style queries over the ``deep`` view (``pyspark_ext.data.adtech_deep``), each with the
minimal read schema worked out by hand from the query alone (not from the extension's code).

QUERIES: name -> (sql, expected) where expected is a sorted list of read schemas (one per scan, as
``explain_read_schema`` prints them) or None when the minimum is not pinned down.

Conventions used for the hand-worked minimum:
- a leaf needed only for presence (``size(arr)``, ``isnotnull(struct)``, ``count(struct)``, the
  row count of an explode) costs one leaf: if some other leaf under that value is read anyway it is
  free, otherwise the cheapest leaf (smallest type, shallowest, first in order);
- a map's key is always read with any part of its value;
- ordering, grouping, comparing, hashing, ``to_json``, ``DISTINCT`` and UDFs of a struct need all of it.
"""
from __future__ import annotations

from pyspark_ext.data.adtech_deep import pruned

QUERIES: dict[str, tuple[str, list[str] | None]] = {}


def q(name: str, sql: str, *scans: tuple[str, ...] | None) -> None:
    """``scans``: one tuple of leaf paths per scan (see adtech_deep.pruned), or a single None."""
    if name in QUERIES:
        raise ValueError(name)
    expected = None if scans == (None,) else sorted(pruned(*s) for s in scans)
    QUERIES[name] = (" ".join(sql.split()), expected)


# ---------------------------------------------------------------- simple group-bys and rollups
q("os_breakdown",
  "SELECT session.device.os, count(*) AS events FROM deep GROUP BY session.device.os",
  ("session.device.os",))

q("rollup_country_region",
  """SELECT geo.country, geo.region.name, count(*) AS n, round(sum(features.f002), 2) AS s
     FROM deep GROUP BY ROLLUP(geo.country, geo.region.name)""",
  ("geo.country", "geo.region.name", "features.f002"))

q("cube_os_country_users",
  """SELECT session.device.os, geo.country, count(DISTINCT userId) AS users
     FROM deep GROUP BY CUBE(session.device.os, geo.country)""",
  ("userId", "session.device.os", "geo.country"))

q("having_nested",
  """SELECT session.device.os, avg(session.device.screen.h) AS avg_h FROM deep
     GROUP BY 1 HAVING max(features.f000) > 100""",
  ("session.device.os", "session.device.screen.h", "features.f000"))

q("distinct_leaves",
  "SELECT DISTINCT geo.country, geo.region.code FROM deep",
  ("geo.country", "geo.region.code"))

q("count_distinct_nested",
  "SELECT billing.currency, count(DISTINCT session.device.model) FROM deep GROUP BY 1",
  ("session.device.model", "billing.currency"))

# ---------------------------------------------------------------- explode / lateral view / inline
q("explode_pageview_urls",
  """SELECT pv.url, count(*) AS views FROM deep
     LATERAL VIEW explode(session.pageViews) t AS pv GROUP BY pv.url""",
  ("session.pageViews.url",))

q("chained_explode_campaign_clicks",
  """SELECT it.meta['campaign'] AS campaign, count(*) AS clicks, round(sum(it.cpc), 2) AS spend
     FROM deep
     LATERAL VIEW explode(session.pageViews) a AS pv
     LATERAL VIEW explode(pv.placements) b AS pl
     LATERAL VIEW explode(pl.items) c AS it
     WHERE it.clicked GROUP BY 1""",
  ("session.pageViews.placements.items.cpc", "session.pageViews.placements.items.clicked",
   "session.pageViews.placements.items.meta"))

q("posexplode_outer_ts",
  """SELECT id, pos, pv.ts FROM deep
     LATERAL VIEW OUTER posexplode(session.pageViews) t AS pos, pv WHERE id < 200""",
  ("id", "session.pageViews.ts"))

q("inline_outer_placements",
  """SELECT slot, size(items) AS n_items FROM (
       SELECT inline_outer(pv.placements) FROM deep LATERAL VIEW explode(session.pageViews) t AS pv)""",
  ("session.pageViews.placements.slot", "session.pageViews.placements.items.clicked"))

q("count_billing_lines",
  "SELECT count(*) FROM deep LATERAL VIEW explode(billing.lines) l AS line",
  ("billing.lines.amount",))

q("billing_by_currency_outer",
  """SELECT billing.currency, sum(l.amount) AS amount, round(sum(l.amount * (1 + l.tax)), 2) AS gross
     FROM deep LATERAL VIEW explode_outer(billing.lines) t AS l GROUP BY 1""",
  ("billing.currency", "billing.lines.amount", "billing.lines.tax"))

q("explode_map_experiments",
  """SELECT k, v.variant, count(*) FROM deep LATERAL VIEW explode(experiments) e AS k, v
     GROUP BY k, v.variant""",
  ("experiments.variant",))

q("explode_interests",
  """SELECT interest, count(*) FROM deep
     LATERAL VIEW explode(features.profile.interests) t AS interest GROUP BY 1""",
  ("features.profile.interests",))

q("flatten_items_creative",
  """SELECT it.meta['creative'] AS creative, round(avg(it.cpc), 4) FROM deep
     LATERAL VIEW explode(flatten(transform(session.pageViews,
         p -> flatten(transform(p.placements, pl -> pl.items))))) t AS it
     GROUP BY 1""",
  ("session.pageViews.placements.items.cpc", "session.pageViews.placements.items.meta"))

q("grouping_sets_exploded",
  """SELECT pv.url, geo.country, count(*) FROM deep LATERAL VIEW explode(session.pageViews) t AS pv
     GROUP BY GROUPING SETS ((pv.url), (geo.country), ())""",
  ("session.pageViews.url", "geo.country"))

q("explode_lines_join_dim",
  """SELECT d.label, count(*) FROM (
       SELECT billing.currency AS cur, l FROM deep LATERAL VIEW explode(billing.lines) t AS l) e
     LEFT JOIN (VALUES ('USD', 'dollar'), ('EUR', 'euro')) AS d(cur, label) ON e.cur = d.cur
     GROUP BY d.label""",
  ("billing.currency", "billing.lines.amount"))

# ---------------------------------------------------------------- higher-order functions
q("transform_filter_urls",
  """SELECT id, transform(filter(session.pageViews, p -> p.ts % 3 = 0), p -> p.url) AS urls
     FROM deep WHERE id < 500""",
  ("id", "session.pageViews.url", "session.pageViews.ts"))

q("exists_forall",
  """SELECT count_if(exists(session.pageViews, p -> exists(p.placements, pl -> pl.slot = 2))) AS a,
            count_if(forall(billing.lines, l -> l.tax < 0.1)) AS b FROM deep""",
  ("session.pageViews.placements.slot", "billing.lines.tax"))

q("aggregate_spend",
  """SELECT id, round(aggregate(session.pageViews, 0D, (acc, p) -> acc + coalesce(
         aggregate(p.placements, 0D, (a2, pl) -> a2 + coalesce(
             aggregate(pl.items, 0D, (a3, it) -> a3 + coalesce(it.cpc, 0D)), 0D)), 0D)), 4) AS spend
     FROM deep WHERE id % 10 = 1""",
  ("id", "session.pageViews.placements.items.cpc"))

q("zip_with_sku_url",
  """SELECT id, zip_with(billing.lines, session.pageViews, (l, p) -> concat(l.sku, '@', p.url)) AS z
     FROM deep WHERE id < 300""",
  ("id", "session.pageViews.url", "billing.lines.sku"))

q("map_filter_transform_values",
  """SELECT id, map_keys(map_filter(experiments, (k, v) -> v.weight > 0.5)) AS heavy,
            transform_values(experiments, (k, v) -> v.variant) AS variants FROM deep""",
  ("id", "experiments.variant", "experiments.weight"))

q("transform_to_struct",
  """SELECT id, transform(session.pageViews, p -> named_struct('u', p.url, 'n', size(p.placements))) AS t
     FROM deep WHERE id < 50""",
  ("id", "session.pageViews.url", "session.pageViews.placements.slot"))

q("array_sort_comparator",
  """SELECT id, get(array_sort(billing.lines, (a, b) -> CASE WHEN a.tax < b.tax THEN 1
                                                     WHEN a.tax > b.tax THEN -1 ELSE 0 END), 0).sku
     FROM deep WHERE id < 200""",
  ("id", "billing.lines.tax", "billing.lines.sku"))

q("map_keys_size",
  "SELECT count(*) FROM deep WHERE size(map_keys(experiments)) > 1",
  ("experiments.weight",))

q("map_values_explode_weight",
  "SELECT round(avg(v.weight), 4) FROM (SELECT explode(map_values(experiments)) AS v FROM deep)",
  ("experiments.weight",))

# ---------------------------------------------------------------- maps
q("map_lookup_variant",
  "SELECT experiments['exp_a'].variant, count(*) FROM deep GROUP BY 1",
  ("experiments.variant",))

q("map_lookup_params",
  """SELECT id, get(experiments['exp_b'].params, 0).v AS first_param FROM deep
     WHERE experiments['exp_b'].weight > 0.3""",
  ("id", "experiments.weight", "experiments.params.v"))

q("features_wide_select",
  """SELECT features.f010, features.f020, get(features.profile.interests, 0), features.scores['ctr']
     FROM deep WHERE features.f004 AND features.lastSeen > TIMESTAMP'2023-11-15 00:00:00'""",
  ("features.f004", "features.f010", "features.f020", "features.profile.interests",
   "features.scores", "features.lastSeen"))

# ---------------------------------------------------------------- windows
q("window_lag_first_ts",
  """SELECT userId, id, get(session.pageViews, 0).ts AS first_ts,
            lag(get(session.pageViews, 0).ts) OVER (PARTITION BY userId ORDER BY id) AS prev_ts
     FROM deep""",
  ("id", "userId", "session.pageViews.ts"))

q("top3_per_country",
  """SELECT * FROM (
       SELECT id, geo.country, session.device.os,
              row_number() OVER (PARTITION BY geo.country ORDER BY features.f002 DESC, id) AS rn
       FROM deep) WHERE rn <= 3""",
  ("id", "session.device.os", "geo.country", "features.f002"))

q("first_value_device_model",
  """SELECT country, d.model, count(*) FROM (
       SELECT geo.country AS country,
              first_value(session.device) OVER (PARTITION BY geo.country ORDER BY id) AS d
       FROM deep) GROUP BY country, d.model""",
  ("id", "session.device.model", "geo.country"))

q("lead_amount_by_currency",
  """SELECT id, lead(get(billing.lines, 0).amount, 1) OVER (PARTITION BY billing.currency ORDER BY eventTime)
     FROM deep WHERE id < 500""",
  ("id", "eventTime", "billing.currency", "billing.lines.amount"))

q("latest_event_per_user",
  """SELECT userId, geo.country FROM (
       SELECT userId, geo, row_number() OVER (PARTITION BY userId ORDER BY eventTime DESC) AS rn
       FROM deep) WHERE rn = 1""",
  ("userId", "eventTime", "geo.country"))

q("lag_device_struct",
  """SELECT id, prev.os FROM (
       SELECT id, lag(session.device) OVER (PARTITION BY session.id ORDER BY id) AS prev FROM deep)
     WHERE id < 300""",
  ("id", "session.id", "session.device.os"))

q("first_value_exploded_url",
  """SELECT userId, pv.url, first_value(pv.url) OVER (PARTITION BY userId ORDER BY pv.ts, id) AS first_url
     FROM deep LATERAL VIEW explode(session.pageViews) t AS pv WHERE id < 400""",
  ("id", "userId", "session.pageViews.url", "session.pageViews.ts"))

# ---------------------------------------------------------------- joins
q("self_join_same_session",
  """SELECT a.id, b.id, a.session.device.os, b.geo.country FROM deep a JOIN deep b
     ON a.session.id = b.session.id AND a.id < b.id""",
  ("id", "session.id", "session.device.os"), ("id", "session.id", "geo.country"))

q("left_join_region_counts",
  """SELECT a.id, b.cnt FROM deep a LEFT JOIN (
       SELECT geo.region.code AS code, count(*) AS cnt FROM deep GROUP BY 1) b
     ON a.geo.region.code = b.code WHERE a.id % 100 = 0""",
  ("id", "geo.region.code"), ("geo.region.code",))

q("left_anti_no_ios",
  """SELECT a.session.id FROM deep a LEFT ANTI JOIN deep b
     ON a.session.id = b.session.id AND b.session.device.os = 'ios'""",
  ("session.id",), ("session.id", "session.device.os"))

q("left_semi_same_age",
  """SELECT a.id, a.geo.region.name FROM deep a LEFT SEMI JOIN (
       SELECT features.profile.age AS age FROM deep WHERE features.f004) b
     ON a.features.profile.age = b.age""",
  ("id", "geo.region.name", "features.profile.age"), ("features.f004", "features.profile.age"))

q("join_struct_alias",
  """SELECT x.dev.os, y.cnt FROM (SELECT session.id AS sid, session.device AS dev FROM deep) x
     JOIN (SELECT session.id AS sid, count(*) AS cnt FROM deep GROUP BY 1) y ON x.sid = y.sid
     WHERE y.cnt > 2""",
  ("session.id", "session.device.os"), ("session.id",))

q("join_region_code",
  """SELECT a.geo.country, count(*) FROM deep a JOIN deep b ON a.geo.region.code = b.geo.region.code
     WHERE a.id < 100 AND b.id < 100 GROUP BY 1""",
  ("id", "geo.country", "geo.region.code"), ("id", "geo.region.code"))

# ---------------------------------------------------------------- subqueries and CTEs
q("exists_other_country_same_session",
  """SELECT count(*) FROM deep a WHERE EXISTS (
       SELECT 1 FROM deep b WHERE b.session.id = a.session.id AND b.id <> a.id
                              AND b.geo.country <> a.geo.country)""",
  ("id", "session.id", "geo.country"), ("id", "session.id", "geo.country"))

q("in_subquery_models",
  """SELECT id, geo.country FROM deep WHERE session.device.model IN (
       SELECT session.device.model FROM deep WHERE features.f003 LIKE 'x3_1%')""",
  ("id", "session.device.model", "geo.country"), ("session.device.model", "features.f003"))

q("scalar_subquery_correlated",
  """SELECT id, (SELECT max(b.features.f001) FROM deep b WHERE b.userId = a.userId) AS mx
     FROM deep a WHERE id < 100""",
  ("id", "userId"), ("userId", "features.f001"))

q("scalar_subquery_avg",
  "SELECT count(*) FROM deep WHERE features.f002 > (SELECT avg(features.f002) FROM deep)",
  ("features.f002",), ("features.f002",))

q("exists_users_visiting_site3",
  """SELECT geo.country, count(*) FROM deep a WHERE EXISTS (
       SELECT 1 FROM deep b WHERE b.userId = a.userId
                              AND exists(b.session.pageViews, p -> p.url LIKE '%site3%'))
     GROUP BY 1""",
  ("userId", "geo.country"), ("userId", "session.pageViews.url"))

q("in_subquery_exploded",
  """SELECT id FROM deep WHERE userId IN (
       SELECT userId FROM deep LATERAL VIEW explode(billing.lines) t AS l WHERE l.amount > 80)""",
  ("id", "userId"), ("userId", "billing.lines.amount"))

q("cte_used_twice",
  """WITH pv AS (SELECT id, userId, p FROM deep LATERAL VIEW explode(session.pageViews) t AS p)
     SELECT x.userId, max(x.p.url), min(y.p.ts) FROM pv x JOIN pv y
       ON x.userId = y.userId AND x.id = y.id AND x.p.ts < y.p.ts
     GROUP BY x.userId""",
  ("id", "userId", "session.pageViews.url", "session.pageViews.ts"),
  ("id", "userId", "session.pageViews.ts"))

# ---------------------------------------------------------------- set operations, pivot
q("union_all_only_first_col",
  """SELECT c, count(*) FROM (
       SELECT geo.country AS c, session.device.os AS os FROM deep WHERE id % 2 = 0
       UNION ALL
       SELECT geo.region.name, features.f003 FROM deep WHERE id % 2 = 1) GROUP BY c""",
  ("id", "geo.country"), ("id", "geo.region.name"))

q("union_all_struct_field",
  """SELECT d.os, count(*) FROM (
       SELECT session.device AS d FROM deep WHERE geo.country = 'US'
       UNION ALL SELECT session.device FROM deep WHERE geo.country = 'JP') GROUP BY 1""",
  ("session.device.os", "geo.country"), ("session.device.os", "geo.country"))

q("intersect_os",
  """SELECT session.device.os FROM deep WHERE geo.country = 'US'
     INTERSECT SELECT session.device.os FROM deep WHERE geo.country = 'FR'""",
  ("session.device.os", "geo.country"), ("session.device.os", "geo.country"))

q("pivot_os_amount",
  """SELECT * FROM (SELECT geo.country AS country, session.device.os AS os,
                           get(billing.lines, 0).amount AS amt FROM deep)
     PIVOT (sum(amt) FOR os IN ('ios', 'android', 'windows', 'macos'))""",
  ("session.device.os", "geo.country", "billing.lines.amount"))

# ---------------------------------------------------------------- presence, conditional structs
q("size_isnotnull",
  """SELECT size(session.pageViews) AS n, isnotnull(session.device.screen) AS has_screen, count(*)
     FROM deep GROUP BY 1, 2""",
  ("session.device.screen.w", "session.pageViews.ts"))

q("count_structs",
  "SELECT geo.country, count(session.device), count(features.profile) FROM deep GROUP BY 1",
  ("session.device.screen.w", "geo.country", "features.profile.age"))

q("size_with_field_read_anyway",
  "SELECT size(session.pageViews), session.pageViews.url FROM deep WHERE id < 100",
  ("id", "session.pageViews.url"))

q("coalesce_screen",
  "SELECT coalesce(session.device.screen, named_struct('w', 0, 'h', 0)).w AS w, count(*) FROM deep GROUP BY 1",
  ("session.device.screen.w",))

q("case_region_name",
  """SELECT (CASE WHEN geo.country = 'US' THEN geo.region
                 ELSE named_struct('name', 'other', 'code', geo.country) END).name AS region_name,
            count(*) FROM deep GROUP BY 1""",
  ("geo.country", "geo.region.name"))

q("repacked_struct",
  """SELECT s.c, s.r.code FROM (
       SELECT named_struct('c', geo.country, 'r', geo.region, 'f', features) AS s FROM deep)""",
  ("geo.country", "geo.region.code"))

q("max_by_device_model",
  "SELECT userId, max_by(session.device, eventTime).model AS last_model FROM deep GROUP BY userId",
  ("userId", "eventTime", "session.device.model"))

q("order_by_nested_limit",
  """SELECT id, session.device.model FROM deep
     ORDER BY session.device.screen.w DESC NULLS LAST, id LIMIT 20""",
  ("id", "session.device.model", "session.device.screen.w"))

# ---------------------------------------------------------------- correctness traps (whole values)
q("trap_to_json_device",
  "SELECT id, to_json(session.device) FROM deep WHERE id < 100",
  ("id", "session.device"))

q("trap_order_by_whole_struct",
  "SELECT id, geo.region.name FROM deep ORDER BY geo.region, id LIMIT 30",
  ("id", "geo.region"))

q("trap_group_by_whole_struct",
  "SELECT count(*), sum(c) FROM (SELECT geo.region AS r, count(*) AS c FROM deep GROUP BY geo.region)",
  ("geo.region",))

q("trap_struct_equality_join",
  "SELECT count(*) FROM deep a JOIN deep b ON a.geo.region = b.geo.region AND a.id = b.id + 1",
  ("id", "geo.region"), ("id", "geo.region"))

q("trap_python_udf_device",
  "SELECT dev_label(session.device) AS label, count(*) FROM deep GROUP BY 1",
  ("session.device",))

q("trap_distinct_struct_then_field",
  "SELECT d.os FROM (SELECT DISTINCT session.device AS d FROM deep)",
  ("session.device",))

q("trap_sort_array_of_structs",
  "SELECT id, get(sort_array(billing.lines), 0).sku FROM deep WHERE id < 300",
  ("id", "billing.lines"))

q("trap_filter_whole_elements",
  "SELECT id, filter(billing.lines, l -> l.amount > 50) FROM deep WHERE id < 100",
  ("id", "billing.lines"))

q("trap_struct_literal_compare",
  """SELECT count(*) FROM deep
     WHERE session.device.screen = named_struct('w', 480, 'h', 720)
        OR geo.region <=> named_struct('name', 'region1', 'code', 'R1')""",
  ("session.device.screen", "geo.region"))

q("trap_select_star_point",
  "SELECT * FROM deep WHERE id = 5",
  ("id", "userId", "eventTime", "session", "experiments", "geo", "billing", "features"))


# ---------------------------------------------------------------- narrowing the EXISTS finding
q("exists_equi_only",
  """SELECT count(*) FROM deep a WHERE EXISTS (
       SELECT 1 FROM deep b WHERE b.session.id = a.session.id AND b.geo.country = 'US')""",
  ("session.id",), ("session.id", "geo.country"))

q("exists_equi_plus_top_level_neq",
  """SELECT count(*) FROM deep a WHERE EXISTS (
       SELECT 1 FROM deep b WHERE b.session.id = a.session.id AND b.id <> a.id)""",
  ("id", "session.id"), ("id", "session.id"))

q("exists_equi_plus_nested_neq",
  """SELECT count(*) FROM deep a WHERE EXISTS (
       SELECT 1 FROM deep b WHERE b.session.id = a.session.id AND b.geo.country <> a.geo.country)""",
  ("session.id", "geo.country"), ("session.id", "geo.country"))

q("not_exists_nested_neq",
  """SELECT count(*) FROM deep a WHERE NOT EXISTS (
       SELECT 1 FROM deep b WHERE b.userId = a.userId AND b.features.f000 > a.features.f000)""",
  ("userId", "features.f000"), ("userId", "features.f000"))

# Spark rejects struct-typed outer references in scalar and LATERAL subqueries, so an analyst
# flattens the outer side into a CTE first.
q("scalar_subquery_nested_neq",
  """WITH a AS (SELECT id, userId, features.f001 AS f001 FROM deep WHERE id < 200)
     SELECT id, (SELECT count(*) FROM deep b WHERE b.userId = a.userId AND b.features.f001 < a.f001)
            AS rank_in_user
     FROM a""",
  # decorrelation adds a domain scan of the outer side (id for the filter, the correlated f001)
  ("id", "userId", "features.f001"), ("id", "features.f001"), ("userId", "features.f001"))

q("lateral_subquery",
  """WITH a AS (SELECT id, session.id AS sid, geo.region.name AS rname FROM deep WHERE id < 300)
     SELECT a.id, x.cnt FROM a, LATERAL (
       SELECT count(*) AS cnt FROM deep b WHERE b.session.id = a.sid AND b.geo.region.name = a.rname) x""",
  # the inlined CTE is scanned three times (outer side and decorrelation domains)
  ("id", "session.id", "geo.region.name"), ("id", "session.id", "geo.region.name"),
  ("id", "session.id", "geo.region.name"), ("session.id", "geo.region.name"))

q("in_correlated_inner_nested",
  """SELECT count(*) FROM deep a WHERE a.geo.country IN (
       SELECT b.geo.country FROM deep b WHERE b.session.id = a.session.id AND b.id <> a.id)""",
  ("id", "session.id", "geo.country"), ("id", "session.id", "geo.country"))

q("exists_inner_nested_vs_outer_top_level",
  """SELECT count(*) FROM deep a WHERE EXISTS (
       SELECT 1 FROM deep b WHERE b.features.profile.age = a.id % 70)""",
  ("id",), ("features.profile.age",))

# ---------------------------------------------------------------- more joins and subqueries
q("full_outer_nested_key",
  """SELECT coalesce(a.k, b.k) AS k, a.n, b.m FROM
       (SELECT geo.region.code AS k, count(*) AS n FROM deep WHERE session.device.os = 'ios' GROUP BY 1) a
     FULL OUTER JOIN
       (SELECT geo.region.code AS k, round(sum(features.f002), 2) AS m FROM deep GROUP BY 1) b
     ON a.k = b.k""",
  ("session.device.os", "geo.region.code"), ("geo.region.code", "features.f002"))

q("not_in_subquery_nested",
  """SELECT count(*) FROM deep WHERE session.device.model NOT IN (
       SELECT session.device.model FROM deep WHERE geo.country = 'JP' AND session.device.model IS NOT NULL)""",
  ("session.device.model",), ("session.device.model", "geo.country"))

q("except_all_fields",
  """SELECT geo.country, session.device.os FROM deep
     EXCEPT ALL SELECT geo.country, session.device.os FROM deep WHERE features.f004""",
  ("session.device.os", "geo.country"), ("session.device.os", "geo.country", "features.f004"))

# ---------------------------------------------------------------- more generators, aggregates, windows
q("select_list_explode",
  "SELECT id, explode(session.pageViews) AS pv FROM deep WHERE id < 100",
  ("id", "session.pageViews"))

q("select_list_explode_then_field",
  "SELECT pv.ts FROM (SELECT id, explode_outer(session.pageViews) AS pv FROM deep) WHERE id % 3 = 0",
  ("id", "session.pageViews.ts"))

q("inline_then_one_field",
  "SELECT url FROM (SELECT inline(session.pageViews) FROM deep)",
  ("session.pageViews.url",))

q("stack_nested",
  "SELECT k, count(*) FROM (SELECT stack(2, geo.country, geo.region.name) AS k FROM deep) GROUP BY k",
  ("geo.country", "geo.region.name"))

q("unpivot_nested",
  """SELECT col, count(DISTINCT val) FROM (
       SELECT id, geo.country AS country, geo.region.name AS region FROM deep)
     UNPIVOT (val FOR col IN (country, region)) GROUP BY col""",
  ("geo.country", "geo.region.name"))

q("arrays_zip_explode",
  """SELECT z.url, z.ts FROM (
       SELECT explode(arrays_zip(session.pageViews.url, session.pageViews.ts)) AS z FROM deep)
     WHERE z.ts % 7 = 0""",
  ("session.pageViews.url", "session.pageViews.ts"))

q("transform_with_index",
  "SELECT id, transform(billing.lines, (l, i) -> i * 100 + l.tax) FROM deep WHERE id < 100",
  ("id", "billing.lines.tax"))

q("array_contains_urls",
  "SELECT count(*) FROM deep WHERE array_contains(session.pageViews.url, 'https://site1.example/p1')",
  ("session.pageViews.url",))

q("first_ignore_nulls_device",
  "SELECT geo.country, first(session.device, true).os FROM deep GROUP BY 1",
  ("session.device.os", "geo.country"))

q("collect_list_struct_size",
  "SELECT userId, size(collect_list(session.device)) AS devices FROM deep GROUP BY userId",
  ("userId", "session.device.screen.w"))

q("lag_with_default_struct",
  """SELECT id, lag(geo.region, 1, named_struct('name', 'none', 'code', 'none'))
                OVER (ORDER BY id).name AS prev_region FROM deep WHERE id < 400""",
  ("id", "geo.region.name"))

q("nth_value_named_window",
  """SELECT id, nth_value(session.device.os, 2) OVER w AS second_os, count(*) OVER w AS n FROM deep
     WINDOW w AS (PARTITION BY session.id ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)""",
  ("id", "session.id", "session.device.os"))

q("group_by_all",
  "SELECT geo.country, session.device.os, count(*) FROM deep GROUP BY ALL",
  ("session.device.os", "geo.country"))

q("star_expansion_region",
  "SELECT geo.region.* FROM deep WHERE id < 100",
  ("id", "geo.region"))

q("rename_cast_struct",
  "SELECT cast(geo.region AS struct<n:string, c:string>).n AS n, count(*) FROM deep GROUP BY 1",
  ("geo.region.name",))

q("device_is_null_count",
  "SELECT count(*) FROM deep WHERE session.device IS NULL",
  ("session.device.screen.w",))

q("first_pageview_is_null",
  "SELECT count(*) FROM deep WHERE get(session.pageViews, 0) IS NULL",
  ("session.pageViews.ts",))

q("sample_repeatable",
  "SELECT geo.country, count(*) FROM deep TABLESAMPLE (20 PERCENT) REPEATABLE (7) GROUP BY 1",
  ("geo.country",))

q("distribute_sort_by_nested",
  """SELECT c, sum(n) FROM (SELECT geo.country AS c, size(session.pageViews) AS n FROM deep
                           DISTRIBUTE BY geo.country SORT BY id) GROUP BY c""",
  ("session.pageViews.ts", "geo.country"))  # the SORT BY under an aggregate is dropped

# ---------------------------------------------------------------- more traps (whole values)
q("trap_max_struct",
  "SELECT geo.country, max(session.device).os FROM deep GROUP BY 1",
  ("session.device", "geo.country"))

q("trap_min_by_struct_key",
  "SELECT min_by(id, geo.region) FROM deep",
  ("id", "geo.region"))

q("trap_rank_over_struct",
  "SELECT id, rank() OVER (ORDER BY geo.region) AS r FROM deep WHERE id < 500",
  ("id", "geo.region"))

q("trap_cast_struct_to_string",
  "SELECT cast(session.device AS string) AS s, count(*) FROM deep GROUP BY 1",
  ("session.device",))

q("trap_array_distinct_size",
  "SELECT id, size(array_distinct(billing.lines)) FROM deep WHERE id < 300",
  ("id", "billing.lines"))

q("trap_collect_set_region",
  "SELECT geo.country, size(collect_set(geo.region)) FROM deep GROUP BY 1",
  ("geo",))

q("trap_count_distinct_struct",
  "SELECT count(DISTINCT session.device) FROM deep",
  ("session.device",))

q("trap_distinct_exploded_struct",
  """SELECT count(*), count(l.sku) FROM (
       SELECT DISTINCT l FROM deep LATERAL VIEW explode(billing.lines) t AS l)""",
  ("billing.lines",))

q("trap_array_max_struct",
  "SELECT id, array_max(billing.lines).sku FROM deep WHERE id < 300",
  ("id", "billing.lines"))

q("trap_struct_in_list",
  """SELECT count(*) FROM deep WHERE geo.region IN (named_struct('name', 'region1', 'code', 'R1'),
                                                   named_struct('name', 'region2', 'code', 'R2'))""",
  ("geo.region",))

q("trap_from_json_to_json",
  "SELECT from_json(to_json(geo), 'country string').country, count(*) FROM deep GROUP BY 1",
  ("geo",))

q("trap_map_value_group",
  "SELECT experiments['exp_a'] AS a, count(*) FROM deep GROUP BY 1",
  ("experiments",))

q("trap_xxhash_struct",
  "SELECT sum(xxhash64(billing) % 1000) FROM deep",
  ("billing",))

q("trap_udf_on_field_of_array",
  "SELECT dev_label(session.device), size(session.pageViews) FROM deep WHERE id < 300",
  ("id", "session.device", "session.pageViews.ts"))

q("trap_array_contains_struct",
  """SELECT count(*) FROM deep WHERE array_contains(billing.lines,
       named_struct('amount', cast(0.02 as decimal(10,2)), 'tax', 0.03D, 'sku', 'SKU-3'))""",
  ("billing.lines",))
