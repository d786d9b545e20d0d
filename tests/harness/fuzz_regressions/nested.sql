-- seed: 107
-- query: 230
-- table: nested
-- reference: nested
-- ansi: true
-- order: none
-- finding: explained, not a bug of the extension: stock Spark's plan fails Spark's own plan-change validation (tests set spark.sql.planChangeValidation) where the extension's plan does not; rerun without validation, stock Spark fails with INVALID_ARRAY_INDEX as the extension does
-- status: explained
SELECT e.page.views[1], (SELECT SUM(SIZE(x.page.views)) FROM nested AS x WHERE x.user.geo.country = e.user.geo.country) AS s FROM nested AS e;

