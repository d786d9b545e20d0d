"""SQL templates for the shredded-Variant battery. ``{t}`` is the view name: ``shredded`` (the
draft-layout files read as ``id BIGINT, v VARIANT``) or ``truth`` (``parse_json`` of the same JSON).
Every query has a deterministic result (ORDER BY a unique key, or an aggregate).

Paths and what they exercise (see data.py for the three files' shredding schemas):
  $.id        int64 (A) / decimal(18,0) (B: ints widened) / int64 (C)
  $.user.*    object in A and B (B: user.id typed as string, tier residual), binary in C; also
              "anonymous", arrays, JSON null, missing; user.id sometimes "123" or "anon-7"
  $.geo.*     object (A), string leaf (B: objects untyped), object with only country (C)
  $.items     array of objects (A, B), array of untyped elements (C); {} and "none" sometimes;
              qty int/"3"/missing, price decimal/int/3-decimal/double/"n/a", elements "gift-card"/null
  $.tags      mixed-type arrays (A: string elements, C: object elements, B: residual)
  $.score     double/decimal/int: double (A), untyped (B), decimal(10,3) (C)
  schema_of_variant is used only on paths where no int is widened into a decimal column.
"""
from __future__ import annotations

# name -> SQL template
QUERIES: dict[str, str] = {}


def q(name: str, sql: str) -> None:
    assert name not in QUERIES, name
    QUERIES[name] = " ".join(sql.split())


# ---- projections of paths ------------------------------------------------------------------
q("proj_id_type", """SELECT id, variant_get(v, '$.id', 'bigint') AS eid,
    variant_get(v, '$.type', 'string') AS type FROM {t} ORDER BY id""")
q("proj_id_int_string", """SELECT id, variant_get(v, '$.id', 'int'), variant_get(v, '$.id', 'string'),
    variant_get(v, '$.id', 'double') FROM {t} ORDER BY id""")
q("proj_user_fields", """SELECT id, try_variant_get(v, '$.user.id', 'bigint') AS uid,
    variant_get(v, '$.user.name', 'string') AS name, variant_get(v, '$.user.tier', 'string') AS tier
    FROM {t} ORDER BY id""")
q("proj_user_id_string", """SELECT id, variant_get(v, '$.user.id', 'string'),
    try_variant_get(v, '$.user.id', 'int') FROM {t} ORDER BY id""")
q("proj_seq_bigint_int", """SELECT id, variant_get(v, '$.seq', 'bigint'),
    try_variant_get(v, '$.seq', 'int'), variant_get(v, '$.seq', 'decimal(20,0)') FROM {t} ORDER BY id""")
q("proj_score_double", """SELECT id, variant_get(v, '$.score', 'double'),
    try_variant_get(v, '$.score', 'decimal(10,2)'), try_variant_get(v, '$.score', 'int') FROM {t} ORDER BY id""")
q("proj_score_string", "SELECT id, variant_get(v, '$.score', 'string') FROM {t} ORDER BY id")
q("proj_geo", """SELECT id, variant_get(v, '$.geo.country', 'string'),
    variant_get(v, '$.geo.lat', 'double'), variant_get(v, '$.geo.lon', 'decimal(10,2)'),
    try_variant_get(v, '$.geo.lat', 'decimal(9,6)') FROM {t} ORDER BY id""")
q("proj_price_decimal", """SELECT id, try_variant_get(v, '$.items[0].price', 'decimal(10,2)'),
    try_variant_get(v, '$.items[1].price', 'double'), variant_get(v, '$.items[0].price', 'string')
    FROM {t} ORDER BY id""")
q("proj_amount", """SELECT id, variant_get(v, '$.amount', 'decimal(38,4)'),
    variant_get(v, '$.amount', 'string'), try_variant_get(v, '$.amount', 'bigint') FROM {t} ORDER BY id""")
q("proj_flag_boolean", """SELECT id, try_variant_get(v, '$.flag', 'boolean'),
    variant_get(v, '$.flag', 'string') FROM {t} ORDER BY id""")
q("proj_dates", """SELECT id, variant_get(v, '$.day', 'date'), variant_get(v, '$.ts', 'date'),
    try_variant_get(v, '$.ts', 'timestamp') FROM {t} ORDER BY id""")
q("proj_attrs_brackets", """SELECT id, variant_get(v, '$.attrs["size-cm"]', 'int'),
    variant_get(v, '$["attrs"]["a.b"]', 'string'), variant_get(v, '$.attrs.color', 'string')
    FROM {t} ORDER BY id""")
q("proj_nested_deep", """SELECT id, variant_get(v, '$.nested.l1.l2.l3.v', 'int'),
    variant_get(v, '$.nested.l1.l2', 'string'), to_json(variant_get(v, '$.nested.l1')) FROM {t} ORDER BY id""")
q("proj_referrer_note", """SELECT id, variant_get(v, '$.referrer', 'string'),
    is_variant_null(variant_get(v, '$.referrer')), variant_get(v, '$.note', 'string') FROM {t} ORDER BY id""")

# ---- colon syntax and casts --------------------------------------------------------------------
q("colon_strings", """SELECT id, v:user.name::string, v:geo.country::string, v:items[0].sku::string,
    v:type::string FROM {t} ORDER BY id""")
q("colon_ints", """SELECT id, v:items[1].qty::int, v:nested.l1.l2.l3.v::int, v:seq::bigint
    FROM {t} ORDER BY id""")
q("colon_decimal_double", """SELECT id, v:amount::decimal(38,4), v:geo.lon::double, v:score::double
    FROM {t} ORDER BY id""")
q("cast_paths", """SELECT id, CAST(v:score AS double), CAST(v:seq AS bigint),
    CAST(v:user.tier AS string), CAST(v:day AS date) FROM {t} ORDER BY id""")
q("try_cast_paths", """SELECT id, try_cast(v:user.id AS bigint), try_cast(v:items[0].price AS decimal(10,2)),
    try_cast(v:flag AS boolean), try_cast(v:type AS int) FROM {t} ORDER BY id""")
q("cast_variant_to_string", """SELECT id, CAST(v:user AS string), CAST(v:items[0] AS string),
    CAST(v:tags AS string) FROM {t} ORDER BY id""")
q("cast_to_struct", """SELECT id, try_cast(v:user AS struct<id: bigint, name: string, tier: string>),
    try_cast(v:geo AS struct<country: string, lat: double>) FROM {t} ORDER BY id""")
q("cast_to_array_map", """SELECT id, try_cast(v:tags AS array<string>),
    try_cast(v:attrs AS map<string, string>) FROM {t} ORDER BY id""")
q("cast_items_array_variant", """SELECT id, size(try_cast(v:items AS array<variant>)),
    transform(try_cast(v:items AS array<variant>), x -> x:sku::string) FROM {t} ORDER BY id""")

# ---- missing fields, paths through non-objects, array indexes ----------------------------------
q("missing_fields", """SELECT id, variant_get(v, '$.nope', 'int'), v:user.missing::string,
    variant_get(v, '$.geo.city', 'string'), v:empty.never::int FROM {t} ORDER BY id""")
q("path_through_scalar", """SELECT id, variant_get(v, '$.type.x', 'string'), v:geo.lat.deeper::double,
    variant_get(v, '$.user.name.first', 'string'), v:note[0]::string FROM {t} ORDER BY id""")
q("path_through_array_and_object", """SELECT id, v:items.sku::string, variant_get(v, '$.user[0]', 'string'),
    variant_get(v, '$.user[1]', 'string'), v:tags[0].k::string, variant_get(v, '$.geo[0]', 'string')
    FROM {t} ORDER BY id""")
q("array_indexes", """SELECT id, v:items[0].sku::string, v:items[3].sku::string, v:items[9].sku::string,
    to_json(v:tags[2]), variant_get(v, '$.tags[1]', 'string') FROM {t} ORDER BY id""")
q("top_level_array_paths", """SELECT id, variant_get(v, '$[0]', 'string'), to_json(v:[2]),
    variant_get(v, '$[0].user.id', 'bigint'), variant_get(v, '$[1]', 'string') FROM {t} ORDER BY id""")
q("nested_array_in_tags", """SELECT id, variant_get(v, '$.tags[0][1]', 'string'),
    variant_get(v, '$.tags[1][0]', 'int') FROM {t} ORDER BY id""")

# ---- whole-variant reads ----------------------------------------------------------------------
q("select_v", "SELECT id, v FROM {t} ORDER BY id")
q("to_json_v", "SELECT id, to_json(v) FROM {t} ORDER BY id")
q("to_json_subtrees", """SELECT id, to_json(v:user), to_json(v:geo), to_json(v:items),
    to_json(v:items[0]) FROM {t} ORDER BY id""")
q("variant_get_variant", """SELECT id, variant_get(v, '$.user'), variant_get(v, '$.items[1]'),
    try_variant_get(v, '$.attrs', 'variant') FROM {t} ORDER BY id""")
q("struct_with_variants", """SELECT id, to_json(named_struct('u', v:user, 'n', v:nested, 'e', v:empty))
    FROM {t} ORDER BY id""")
q("schema_of_variant_safe", """SELECT id, schema_of_variant(v:user), schema_of_variant(v:geo),
    schema_of_variant(v:tags), schema_of_variant(v:attrs), schema_of_variant(v:user.name) FROM {t} ORDER BY id""")
q("schema_of_variant_agg_user", "SELECT schema_of_variant_agg(v:user), schema_of_variant_agg(v:geo) FROM {t}")
q("is_variant_null", """SELECT id, is_variant_null(v), is_variant_null(v:user), is_variant_null(v:referrer),
    is_variant_null(v:items[0]), v IS NULL FROM {t} ORDER BY id""")

# ---- filters ----------------------------------------------------------------------------------
q("filter_eq_string", """SELECT id, v:user.name::string FROM {t}
    WHERE variant_get(v, '$.type', 'string') = 'purchase' ORDER BY id""")
q("filter_lt_bigint", """SELECT id FROM {t} WHERE try_variant_get(v, '$.user.id', 'bigint') < 50 ORDER BY id""")
q("filter_between_double", """SELECT id, v:score::double FROM {t}
    WHERE variant_get(v, '$.score', 'double') BETWEEN 20 AND 40 ORDER BY id""")
q("filter_in_country", """SELECT id FROM {t}
    WHERE variant_get(v, '$.geo.country', 'string') IN ('US', 'JP', 'BR') ORDER BY id""")
q("filter_is_null_path", """SELECT id FROM {t} WHERE v:geo.country IS NULL ORDER BY id""")
q("filter_is_not_null_path", """SELECT id FROM {t} WHERE v:items[0] IS NOT NULL ORDER BY id""")
q("filter_startswith", """SELECT id, v:user.name::string FROM {t}
    WHERE startswith(variant_get(v, '$.user.name', 'string'), 'A') ORDER BY id""")
q("filter_and_or", """SELECT id FROM {t}
    WHERE (variant_get(v, '$.user.tier', 'string') = 'gold' AND try_variant_get(v, '$.items[0].qty', 'int') >= 3)
       OR (variant_get(v, '$.geo.country', 'string') = 'FR' AND variant_get(v, '$.flag', 'string') = 'true')
    ORDER BY id""")
q("filter_decimal_price", """SELECT id FROM {t}
    WHERE try_variant_get(v, '$.items[0].price', 'decimal(10,2)') > 250.00 ORDER BY id""")
q("filter_sql_null_rows", "SELECT id FROM {t} WHERE v IS NULL ORDER BY id")
q("filter_json_null_rows", "SELECT id FROM {t} WHERE is_variant_null(v) ORDER BY id")
q("filter_non_objects", """SELECT id, to_json(v) FROM {t}
    WHERE v IS NOT NULL AND NOT startswith(schema_of_variant(v), 'OBJECT') ORDER BY id""")
q("filter_on_type_mismatch", """SELECT id, to_json(v:items) FROM {t}
    WHERE try_variant_get(v, '$.items[0].qty', 'string') = '3' ORDER BY id""")
q("filter_id_equality", """SELECT id, to_json(v) FROM {t}
    WHERE variant_get(v, '$.id', 'bigint') IN (7, 8, 9, 1500, 2999) ORDER BY id""")
q("filter_user_id_string", """SELECT id FROM {t}
    WHERE startswith(variant_get(v, '$.user.id', 'string'), 'anon') ORDER BY id""")
q("filter_bool_flag", """SELECT id FROM {t} WHERE variant_get(v, '$.flag', 'string') = 'true'
    AND variant_get(v, '$.nested.l1.l2.l3.v', 'int') > 4 ORDER BY id""")

# ---- aggregates -------------------------------------------------------------------------------
q("agg_counts", """SELECT count(*), count(v), count(v:user), count(v:user.id), count(v:items[0].price),
    count_if(is_variant_null(v:referrer)) FROM {t}""")
q("agg_group_country", """SELECT variant_get(v, '$.geo.country', 'string') AS c, count(*),
    sum(try_variant_get(v, '$.items[0].price', 'decimal(10,2)')), min(variant_get(v, '$.score', 'double')),
    max(variant_get(v, '$.score', 'double')) FROM {t} GROUP BY 1""")
q("agg_group_tier_sum", """SELECT v:user.tier::string AS tier, count(*), sum(try_variant_get(v, '$.user.id', 'bigint')),
    avg(try_variant_get(v, '$.user.id', 'bigint')) FROM {t} GROUP BY 1""")
q("agg_avg_decimal", """SELECT variant_get(v, '$.type', 'string'), avg(variant_get(v, '$.amount', 'decimal(38,4)')),
    sum(variant_get(v, '$.amount', 'decimal(38,4)')) FROM {t} GROUP BY 1""")
q("agg_round_avg_double", """SELECT variant_get(v, '$.user.tier', 'string'),
    round(avg(variant_get(v, '$.score', 'double')), 6) FROM {t} GROUP BY 1""")
q("agg_count_distinct", """SELECT count(DISTINCT try_variant_get(v, '$.user.id', 'bigint')),
    count(DISTINCT v:user.name::string), count(DISTINCT to_json(v:geo)) FROM {t}""")
q("agg_group_by_to_json", """SELECT to_json(v:type), to_json(v:flag), count(*) FROM {t} GROUP BY 1, 2""")
q("agg_having", """SELECT variant_get(v, '$.user.name', 'string') AS n, count(*) AS c FROM {t}
    GROUP BY 1 HAVING count(*) > 150""")
q("agg_collect_sorted", """SELECT v:geo.country::string, sort_array(collect_set(v:user.tier::string)) FROM {t}
    GROUP BY 1""")

# ---- joins ------------------------------------------------------------------------------------
q("join_self_user", """SELECT count(*), sum(a.id), sum(b.id) FROM {t} a JOIN {t} b
    ON try_variant_get(a.v, '$.user.id', 'bigint') = try_variant_get(b.v, '$.user.id', 'bigint')
    WHERE a.id < b.id AND a.id < 600""")
q("join_dim_country", """SELECT d.region, count(*), count(DISTINCT x.id) FROM {t} x
    JOIN dim_country d ON variant_get(x.v, '$.geo.country', 'string') = d.code GROUP BY d.region""")
q("join_dim_tier_left", """SELECT x.id, d.rank FROM {t} x LEFT JOIN dim_tier d
    ON x.v:user.tier::string = d.tier ORDER BY x.id""")
q("join_on_id_path", """SELECT a.id, b.id FROM {t} a JOIN {t} b
    ON variant_get(a.v, '$.id', 'bigint') = b.id WHERE a.id % 7 = 0 ORDER BY a.id""")

# ---- explode ----------------------------------------------------------------------------------
q("variant_explode_items", """SELECT id, pos, key, to_json(value) FROM {t},
    LATERAL variant_explode(v:items) ORDER BY id, pos""")
q("variant_explode_top", """SELECT id, pos, key, to_json(value) FROM {t},
    LATERAL variant_explode(v) ORDER BY id, pos""")
q("variant_explode_outer_user", """SELECT id, pos, key, to_json(value) FROM {t},
    LATERAL variant_explode_outer(v:user) ORDER BY id, pos""")
q("explode_items_cast", """SELECT id, item:sku::string, try_cast(item:qty AS int),
    try_cast(item:price AS decimal(10,2)) FROM {t} LATERAL VIEW explode(try_cast(v:items AS array<variant>)) e AS item
    ORDER BY id, item:sku::string, to_json(item)""")
q("explode_items_agg", """SELECT item:sku::string AS sku, count(*),
    sum(try_cast(item:qty AS int) * try_cast(item:price AS decimal(10,2))) FROM {t}
    LATERAL VIEW explode(try_cast(v:items AS array<variant>)) e AS item GROUP BY 1""")
q("explode_outer_tags_posexplode", """SELECT id, p, to_json(tag), schema_of_variant(tag) FROM {t}
    LATERAL VIEW OUTER posexplode(try_cast(v:tags AS array<variant>)) e AS p, tag ORDER BY id, p""")
q("variant_explode_nested", """SELECT x.id, e.key, to_json(e.value) FROM {t} x,
    LATERAL variant_explode(x.v:attrs) e ORDER BY x.id, e.pos""")

# ---- windows, ordering, subqueries ------------------------------------------------------------
q("window_row_number", """SELECT id, row_number() OVER (PARTITION BY v:geo.country::string ORDER BY id) FROM {t}
    ORDER BY id""")
q("window_lag_score", """SELECT id, lag(variant_get(v, '$.score', 'double')) OVER (ORDER BY id),
    lead(v:type::string, 2) OVER (ORDER BY id) FROM {t} ORDER BY id""")
q("window_running_sum", """SELECT id, sum(try_variant_get(v, '$.items[0].price', 'decimal(10,2)'))
    OVER (PARTITION BY v:user.tier::string ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
    FROM {t} ORDER BY id""")
q("order_by_limit", """SELECT id, variant_get(v, '$.score', 'double') AS s FROM {t}
    ORDER BY s DESC NULLS LAST, id LIMIT 25""")
q("order_by_path_string", """SELECT id, v:user.name::string FROM {t}
    WHERE v:user.name IS NOT NULL ORDER BY v:user.name::string, id LIMIT 40""")
q("cte_union", """WITH a AS (SELECT id, v:user.name::string AS n FROM {t} WHERE id % 2 = 0),
    b AS (SELECT id, v:geo.country::string AS n FROM {t} WHERE id % 5 = 0)
    SELECT * FROM a UNION ALL SELECT * FROM b ORDER BY 1, 2""")
q("scalar_subquery", """SELECT id FROM {t} WHERE variant_get(v, '$.score', 'double') >
    (SELECT max(variant_get(v, '$.score', 'double')) - 10 FROM {t}) ORDER BY id""")
q("in_subquery", """SELECT id FROM {t} WHERE try_variant_get(v, '$.user.id', 'bigint') IN
    (SELECT try_variant_get(v, '$.user.id', 'bigint') FROM {t} WHERE v:user.tier::string = 'platinum'
     AND id < 300) ORDER BY id""")
q("exists_subquery", """SELECT id FROM {t} o WHERE id < 400 AND EXISTS (SELECT 1 FROM {t} i
    WHERE i.id = o.id + 1 AND variant_get(i.v, '$.type', 'string') = 'click') ORDER BY id""")
q("case_when_paths", """SELECT id, CASE WHEN v:user IS NULL THEN 'none'
    WHEN schema_of_variant(v:user) LIKE 'OBJECT%' THEN coalesce(v:user.tier::string, 'untiered')
    ELSE 'other:' || to_json(v:user) END FROM {t} ORDER BY id""")
q("coalesce_paths", """SELECT id, coalesce(v:user.name::string, v:[0]::string, to_json(v), 'sqlnull') FROM {t}
    ORDER BY id""")
q("sql_function_over_path", """SELECT id, upper(v:user.name::string), length(v:note::string),
    size(try_cast(v:tags AS array<variant>)), v:seq::bigint % 97 FROM {t} ORDER BY id""")
q("distinct_paths", """SELECT DISTINCT v:type::string, v:user.tier::string FROM {t}""")
q("table_select_star_like", """SELECT * FROM (SELECT id, to_json(v) AS j FROM {t}) WHERE id BETWEEN 100 AND 180
    ORDER BY id""")


# ---- must raise in ANSI mode (on the truth); (error sql, try_ counterpart) ---------------------
ERROR_QUERIES: dict[str, tuple[str, str]] = {}


def e(name: str, sql: str, try_sql: str) -> None:
    assert name not in ERROR_QUERIES, name
    ERROR_QUERIES[name] = (" ".join(sql.split()), " ".join(try_sql.split()))


e("err_name_as_int",
  "SELECT id, variant_get(v, '$.user.name', 'int') FROM {t} ORDER BY id",
  "SELECT id, try_variant_get(v, '$.user.name', 'int') FROM {t} ORDER BY id")
e("err_user_id_bigint",
  "SELECT id, variant_get(v, '$.user.id', 'bigint') FROM {t} ORDER BY id",
  "SELECT id, try_variant_get(v, '$.user.id', 'bigint') FROM {t} ORDER BY id")
e("err_seq_int_overflow",
  "SELECT id, variant_get(v, '$.seq', 'int') FROM {t} ORDER BY id",
  "SELECT id, try_variant_get(v, '$.seq', 'int') FROM {t} ORDER BY id")
e("err_price_decimal",
  "SELECT sum(variant_get(v, '$.items[0].price', 'decimal(10,2)')) FROM {t}",
  "SELECT sum(try_variant_get(v, '$.items[0].price', 'decimal(10,2)')) FROM {t}")
e("err_geo_object_as_double",
  "SELECT id, variant_get(v, '$.geo', 'double') FROM {t} ORDER BY id",
  "SELECT id, try_variant_get(v, '$.geo', 'double') FROM {t} ORDER BY id")
e("err_filter_type_int",
  "SELECT id FROM {t} WHERE variant_get(v, '$.type', 'int') = 7 ORDER BY id",
  "SELECT id FROM {t} WHERE try_variant_get(v, '$.type', 'int') = 7 ORDER BY id")
e("err_cast_colon_int",
  "SELECT id, v:user.tier::int FROM {t} ORDER BY id",
  "SELECT id, try_cast(v:user.tier AS int) FROM {t} ORDER BY id")
e("err_cast_items_array",
  "SELECT id, size(CAST(v:items AS array<variant>)) FROM {t} ORDER BY id",
  "SELECT id, size(try_cast(v:items AS array<variant>)) FROM {t} ORDER BY id")
e("err_amount_decimal_too_small",
  "SELECT id, variant_get(v, '$.amount', 'decimal(6,2)') FROM {t} ORDER BY id",
  "SELECT id, try_variant_get(v, '$.amount', 'decimal(6,2)') FROM {t} ORDER BY id")
e("err_sku_agg",
  "SELECT variant_get(v, '$.user.tier', 'string'), sum(variant_get(v, '$.items[0].sku', 'int')) FROM {t} GROUP BY 1",
  "SELECT variant_get(v, '$.user.tier', 'string'), sum(try_variant_get(v, '$.items[0].sku', 'int')) FROM {t} GROUP BY 1")
e("err_top_level_array_as_struct",
  "SELECT id, CAST(v AS struct<id: bigint>) FROM {t} ORDER BY id",
  "SELECT id, try_cast(v AS struct<id: bigint>) FROM {t} ORDER BY id")


# Small dimension tables for joins (registered by the test).
DIMENSIONS = {
    "dim_country": ("SELECT * FROM VALUES ('US', 'AMER'), ('CA', 'AMER'), ('BR', 'AMER'), ('DE', 'EMEA'),"
                    " ('FR', 'EMEA'), ('GB', 'EMEA'), ('JP', 'APAC'), ('IN', 'APAC') AS d(code, region)"),
    "dim_tier": ("SELECT * FROM VALUES ('platinum', 1), ('gold', 2), ('silver', 3), ('bronze', 4)"
                 " AS d(tier, rank)"),
}
