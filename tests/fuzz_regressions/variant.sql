-- seed: 3
-- query: 68
-- table: variant_spec
-- reference: variant_spec
-- ansi: false
-- order: none
-- finding: expected 400 rows, got error java.util.NoSuchElementException: key not found: id#..L (Spark's PushProjectionThroughUnion, on the Union of scans the extension makes of a spec-layout table whose files' typed columns conflict, inside a correlated scalar subquery)
-- status: open
SELECT (SELECT x.v FROM variant_spec AS x WHERE x.id = e.id) AS s FROM variant_spec AS e;

-- seed: 3
-- query: 97
-- table: variant_spec
-- reference: variant_spec
-- ansi: true
-- order: none
-- finding: expected 400 rows, got error java.util.NoSuchElementException: key not found: id#..L (as above, with a non-equality correlation and a path read)
-- status: open
SELECT (SELECT SUM(TRY_VARIANT_GET(x.v, '$.price', 'decimal(10,2)')) FROM variant_spec AS x WHERE x.id >= e.id) AS s FROM variant_spec AS e;

