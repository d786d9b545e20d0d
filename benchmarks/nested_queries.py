"""Analyst-style queries over the nested event log, each a shape stock Spark handles or misses."""

NESTED_QUERIES: dict[str, str] = {
    "project_few_leaves": "SELECT user.geo.country, page.url FROM events WHERE user.geo.lat > 60",
    "filter_nested_selective": "SELECT count(*) FROM events WHERE user.geo.city = 'city7'",
    "payload_two_leaves": "SELECT sum(payload.f0000), max(payload.f0002) FROM events",
    "group_by_nested": "SELECT user.geo.country, avg(user.geo.lat), count(*) FROM events GROUP BY 1",
    "rollup_nested_agg": "SELECT user.geo.country, sum(payload.f0002) FROM events "
                         "GROUP BY ROLLUP(user.geo.country)",
    "window_over_struct": "SELECT count(w.city) FROM (SELECT lag(user.geo) OVER "
                          "(PARTITION BY user.geo.country ORDER BY id) AS w FROM events)",
    "explode_two_fields": "SELECT count(view.ref), max(view.ts) FROM events "
                          "LATERAL VIEW explode(page.views) v AS view",
    "chained_explode_revenue": "SELECT sum(item.cpc) FROM events LATERAL VIEW explode(page.views) v "
                               "AS view LATERAL VIEW explode(view.items) i AS item WHERE item.clicked",
    "hof_exists": "SELECT count(*) FROM events WHERE exists(page.views, v -> "
                  "exists(v.items, i -> i.cpc > 0.9))",
    "size_and_presence": "SELECT sum(size(page.views)), count(user) FROM events",
    "map_value_field": "SELECT avg(attrs['ctr'].score) FROM events",
    "first_struct_field": "SELECT id % 10, first(user).geo.city FROM events GROUP BY 1",
    "correlated_exists": "SELECT count(*) FROM events e WHERE EXISTS "
                         "(SELECT 1 FROM events x WHERE x.id = e.payload.f0000 % 1000)",
    "self_join_nested_key": "SELECT count(*) FROM events a JOIN events b "
                            "ON a.user.geo.city = b.user.geo.city AND a.id = b.id + 1",
}
