"""Query shapes over the ``events`` view, each with the read schema it must have with the
extension on. The expected schemas are the minimal leaf sets, worked out by hand from the query."""

SHAPES: dict[str, tuple[str, list[str]]] = {}


def shape(name: str, sql: str, *read_schemas: str) -> None:
    SHAPES[name] = (sql, sorted(read_schemas))


# Project / Filter, aliases
shape("project_filter", "SELECT user.geo.city FROM events WHERE user.geo.country = 'US'",
      "struct<user:struct<geo:struct<country:string,city:string>>>")
shape("struct_alias", "SELECT myStruct.city FROM (SELECT user.geo AS myStruct FROM events)",
      "struct<user:struct<geo:struct<city:string>>>")
shape("alias_through_join",
      "SELECT a.g.city, b.id FROM (SELECT id, user.geo AS g FROM events) a "
      "JOIN (SELECT id FROM events) b ON a.id = b.id",
      "struct<id:bigint,user:struct<geo:struct<city:string>>>", "struct<id:bigint>")
# arrays of structs
shape("array_field", "SELECT page.views.ts FROM events",
      "struct<page:struct<views:array<struct<ts:bigint>>>>")
shape("array_field_two_levels", "SELECT transform(page.views.items, its -> its.cpc) FROM events",
      "struct<page:struct<views:array<struct<items:array<struct<cpc:double>>>>>>")
# maps
shape("map_value_field", "SELECT attrs['ctr'].score FROM events",
      "struct<attrs:map<string,struct<score:double>>>")
shape("map_values_field", "SELECT map_values(attrs).label FROM events",
      "struct<attrs:map<string,struct<label:string>>>")
shape("map_keys", "SELECT map_keys(attrs) FROM events",
      "struct<attrs:map<string,struct<score:double>>>")
# higher-order functions
shape("transform", "SELECT transform(page.views, v -> v.ts + 1) FROM events",
      "struct<page:struct<views:array<struct<ts:bigint>>>>")
shape("filter_whole", "SELECT filter(page.views, v -> v.ts > 0) FROM events",
      "struct<page:struct<views:array<struct<ts:bigint,ref:string,items:array<struct<item_id:bigint,"
      "cpc:double,clicked:boolean,tags:array<string>>>>>>>")
shape("filter_then_field", "SELECT filter(page.views, v -> v.ts % 2 = 0).ref FROM events",
      "struct<page:struct<views:array<struct<ts:bigint,ref:string>>>>")
shape("exists", "SELECT id FROM events WHERE exists(page.views, v -> v.ts % 7 = 0)",
      "struct<id:bigint,page:struct<views:array<struct<ts:bigint>>>>")
shape("forall", "SELECT forall(page.views, v -> size(v.items) > 0) FROM events",
      "struct<page:struct<views:array<struct<items:array<struct<clicked:boolean>>>>>>")
shape("aggregate_hof",
      "SELECT aggregate(page.views, 0D, (acc, v) -> acc + aggregate(v.items, 0D, (a, i) -> a + i.cpc)) "
      "FROM events",
      "struct<page:struct<views:array<struct<items:array<struct<cpc:double>>>>>>")
shape("zip_with", "SELECT zip_with(page.views, user.segments, (v, s) -> concat(s, v.ref)) FROM events",
      "struct<user:struct<segments:array<string>>,page:struct<views:array<struct<ref:string>>>>")
shape("array_sort_comparator",
      "SELECT array_sort(page.views, (l, r) -> CASE WHEN l.ts < r.ts THEN -1 WHEN l.ts > r.ts "
      "THEN 1 ELSE 0 END)[0].ref FROM events",
      "struct<page:struct<views:array<struct<ts:bigint,ref:string>>>>")
shape("map_filter", "SELECT map_keys(map_filter(attrs, (k, v) -> v.score > 0.5)) FROM events",
      "struct<attrs:map<string,struct<score:double>>>")
# presence and size
shape("size_and_isnotnull", "SELECT size(page.views), isnotnull(user) FROM events",
      "struct<user:struct<geo:struct<lat:double>>,page:struct<views:array<struct<ts:bigint>>>>")
shape("count_struct", "SELECT count(user.geo) FROM events",
      "struct<user:struct<geo:struct<lat:double>>>")
shape("count_after_explode", "SELECT count(*) FROM events LATERAL VIEW explode(page.views) v AS view",
      "struct<page:struct<views:array<struct<ts:bigint>>>>")
# generators
shape("explode_two_fields",
      "SELECT view.ts, view.ref FROM events LATERAL VIEW explode(page.views) v AS view",
      "struct<page:struct<views:array<struct<ts:bigint,ref:string>>>>")
shape("explode_filter_between",
      "SELECT v.ref FROM (SELECT explode(page.views) AS v FROM events) WHERE v.ts % 3 = 0",
      "struct<page:struct<views:array<struct<ts:bigint,ref:string>>>>")
shape("posexplode_outer",
      "SELECT pos, view.ts FROM events LATERAL VIEW OUTER posexplode(page.views) v AS pos, view",
      "struct<page:struct<views:array<struct<ts:bigint>>>>")
shape("inline", "SELECT ts FROM (SELECT inline(page.views) FROM events)",
      "struct<page:struct<views:array<struct<ts:bigint>>>>")
shape("inline_outer_two", "SELECT ts, ref FROM events LATERAL VIEW inline_outer(page.views) t",
      "struct<page:struct<views:array<struct<ts:bigint,ref:string>>>>")
shape("chained_explode",
      "SELECT item.cpc FROM events LATERAL VIEW explode(page.views) v AS view "
      "LATERAL VIEW explode(view.items) i AS item WHERE item.clicked",
      "struct<page:struct<views:array<struct<items:array<struct<cpc:double,clicked:boolean>>>>>>")
shape("explode_map", "SELECT k, v.score FROM events LATERAL VIEW explode(attrs) m AS k, v",
      "struct<attrs:map<string,struct<score:double>>>")
# aggregates
shape("group_by_nested", "SELECT user.geo.country, avg(user.geo.lat) FROM events GROUP BY 1",
      "struct<user:struct<geo:struct<country:string,lat:double>>>")
shape("having", "SELECT user.geo.country c FROM events GROUP BY 1 HAVING max(payload.f0000) > 10",
      "struct<user:struct<geo:struct<country:string>>,payload:struct<f0000:bigint>>")
shape("rollup_nested_agg",
      "SELECT user.geo.country, sum(payload.f0002) FROM events GROUP BY ROLLUP(user.geo.country)",
      "struct<user:struct<geo:struct<country:string>>,payload:struct<f0002:double>>")
shape("cube_other_key", "SELECT id % 3, sum(payload.f0002) FROM events GROUP BY CUBE(id % 3)",
      "struct<id:bigint,payload:struct<f0002:double>>")
shape("grouping_sets",
      "SELECT user.geo.country, user.geo.city, count(*) FROM events "
      "GROUP BY GROUPING SETS ((user.geo.country), (user.geo.city))",
      "struct<user:struct<geo:struct<country:string,city:string>>>")
shape("first_then_field", "SELECT id % 2, first(user).geo.city FROM events GROUP BY 1",
      "struct<id:bigint,user:struct<geo:struct<city:string>>>")
shape("collect_list_field", "SELECT id % 2, collect_list(user.geo)[0].city FROM events GROUP BY 1",
      "struct<id:bigint,user:struct<geo:struct<city:string>>>")
# windows
shape("window_partition_nested",
      "SELECT id, row_number() OVER (PARTITION BY user.geo.country ORDER BY page.views[0].ts) FROM events",
      "struct<id:bigint,user:struct<geo:struct<country:string>>,page:struct<views:array<struct<ts:bigint>>>>")
shape("window_over_struct",
      "SELECT w.city FROM (SELECT lag(user.geo) OVER (ORDER BY id) AS w FROM events)",
      "struct<id:bigint,user:struct<geo:struct<city:string>>>")
# set operations
shape("union_field",
      "SELECT g.city FROM (SELECT user.geo AS g FROM events UNION ALL SELECT user.geo FROM events)",
      "struct<user:struct<geo:struct<city:string>>>", "struct<user:struct<geo:struct<city:string>>>")
shape("intersect_whole", "SELECT user.geo FROM events INTERSECT SELECT user.geo FROM events",
      "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>",
      "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
shape("except_field", "SELECT user.geo.city FROM events EXCEPT SELECT user.geo.country FROM events",
      "struct<user:struct<geo:struct<city:string>>>", "struct<user:struct<geo:struct<country:string>>>")
# sort, distinct, limit, sample, repartition
shape("sort_by_nested", "SELECT user.user_id FROM events ORDER BY user.geo.lat, id LIMIT 5",
      "struct<id:bigint,user:struct<user_id:string,geo:struct<lat:double>>>")
shape("repartition_hint",
      "SELECT /*+ REPARTITION(3) */ u.geo.city FROM (SELECT user AS u FROM events)",
      "struct<user:struct<geo:struct<city:string>>>")
shape("coalesce_hint",
      "SELECT /*+ COALESCE(1) */ u.geo.city FROM (SELECT user AS u FROM events) LIMIT 50000",
      "struct<user:struct<geo:struct<city:string>>>")
shape("sort_struct_field", "SELECT u.user_id FROM (SELECT id, user AS u FROM events ORDER BY u.geo.lat, id)",
      "struct<id:bigint,user:struct<user_id:string,geo:struct<lat:double>>>")
shape("distinct_then_field", "SELECT g.city FROM (SELECT DISTINCT id, user.geo AS g FROM events)",
      "struct<id:bigint,user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
# subqueries and CTEs
shape("cte_twice",
      "WITH g AS (SELECT id, user.geo AS geo FROM events) "
      "SELECT a.geo.city, b.geo.country FROM g a JOIN g b ON a.id = b.id + 1",
      "struct<id:bigint,user:struct<geo:struct<city:string>>>",
      "struct<id:bigint,user:struct<geo:struct<country:string>>>")
shape("correlated_exists",
      "SELECT id FROM events e WHERE EXISTS (SELECT 1 FROM events x WHERE x.id = e.payload.f0000 % 2000)",
      "struct<id:bigint,payload:struct<f0000:bigint>>", "struct<id:bigint>")
shape("correlated_scalar",
      "SELECT id, (SELECT max(x.user.geo.lat) FROM events x WHERE x.id = e.payload.f0004 % 2000) FROM events e",
      "struct<id:bigint,payload:struct<f0004:bigint>>", "struct<id:bigint,user:struct<geo:struct<lat:double>>>")
shape("in_subquery",
      "SELECT user.geo.city FROM events WHERE payload.f0000 IN (SELECT page.views[0].items[0].item_id FROM events)",
      "struct<user:struct<geo:struct<city:string>>,payload:struct<f0000:bigint>>",
      "struct<page:struct<views:array<struct<items:array<struct<item_id:bigint>>>>>>")
shape("pivot",
      "SELECT * FROM (SELECT user.geo.country AS c, payload.f0002 AS v FROM events) "
      "PIVOT (sum(v) FOR c IN ('US', 'GB'))",
      "struct<user:struct<geo:struct<country:string>>,payload:struct<f0002:double>>")
# conditional struct expressions and field edits
shape("coalesce_struct_field",
      "SELECT coalesce(IF(id % 2 = 0, user.geo, NULL), user.geo).city FROM events",
      "struct<id:bigint,user:struct<geo:struct<city:string>>>")
shape("case_struct_field",
      "SELECT (CASE WHEN id % 2 = 0 THEN attrs['ctr'] ELSE attrs['rpm'] END).label FROM events",
      "struct<id:bigint,attrs:map<string,struct<label:string>>>")
# the whole value is needed
shape("order_by_whole_struct", "SELECT user.geo.city FROM events ORDER BY user.geo LIMIT 3",
      "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
shape("group_by_whole_struct", "SELECT g.city, count(*) FROM (SELECT user.geo AS g FROM events) GROUP BY g",
      "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
shape("to_json_struct", "SELECT to_json(user.geo) FROM events",
      "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
shape("struct_equality",
      "SELECT a.id FROM events a JOIN events b ON a.user.geo = b.user.geo AND a.id = b.id",
      "struct<id:bigint,user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>",
      "struct<id:bigint,user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
shape("hash_struct", "SELECT hash(user.geo) FROM events",
      "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
shape("alias_shadows_column",
      "SELECT id.city FROM (SELECT user.geo AS id FROM events)",
      "struct<user:struct<geo:struct<city:string>>>")
# array functions that keep element structure
shape("flatten_field", "SELECT flatten(page.views.items).cpc FROM events",
      "struct<page:struct<views:array<struct<items:array<struct<cpc:double>>>>>>")
shape("slice_reverse_concat",
      "SELECT concat(slice(page.views, 1, 2), reverse(page.views)).ts FROM events",
      "struct<page:struct<views:array<struct<ts:bigint>>>>")
shape("arrays_zip_field",
      "SELECT z.views.ref FROM (SELECT explode(arrays_zip(page.views, user.segments)) AS z FROM events)",
      "struct<user:struct<segments:array<string>>,page:struct<views:array<struct<ref:string>>>>")
shape("map_entries_value", "SELECT map_entries(attrs).value.score FROM events",
      "struct<attrs:map<string,struct<score:double>>>")
shape("exists_over_map_values", "SELECT count(*) FROM events WHERE exists(map_values(attrs), v -> v.score > 1)",
      "struct<attrs:map<string,struct<score:double>>>")
shape("to_json_of_built_struct", "SELECT to_json(named_struct('c', user.geo.city, 'i', id)) FROM events",
      "struct<id:bigint,user:struct<geo:struct<city:string>>>")
shape("max_by_struct", "SELECT max_by(user, id).geo.city FROM events",
      "struct<id:bigint,user:struct<geo:struct<city:string>>>")
shape("count_distinct_leaf", "SELECT count(DISTINCT user.geo.country) FROM events",
      "struct<user:struct<geo:struct<country:string>>>")
# Spark plans the two identical sides of this UNION as one scan.
shape("union_distinct_whole", "SELECT g.city FROM (SELECT user.geo AS g FROM events UNION SELECT user.geo FROM events)",
      "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
shape("count_distinct_struct", "SELECT count(DISTINCT user.geo) FROM events",
      "struct<user:struct<geo:struct<country:string,city:string,lat:double,lon:double>>>")
# correlated conditions pulled out of a subquery read nested fields of the subquery's own table
shape("exists_inner_nested_condition",
      "SELECT count(*) FROM events a WHERE EXISTS (SELECT 1 FROM events b "
      "WHERE b.payload.f0000 = a.id AND b.user.geo.country = 'US')",
      "struct<id:bigint>", "struct<user:struct<geo:struct<country:string>>,payload:struct<f0000:bigint>>")
shape("in_correlated_inner_nested",
      "SELECT count(*) FROM events a WHERE a.user.geo.city IN "
      "(SELECT b.user.geo.city FROM events b WHERE b.user.user_id = a.user.user_id AND b.id <> a.id)",
      "struct<id:bigint,user:struct<user_id:string,geo:struct<city:string>>>",
      "struct<id:bigint,user:struct<user_id:string,geo:struct<city:string>>>")
