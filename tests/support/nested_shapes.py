"""Query shapes over the ``events`` view, each with the read schema it must have with the
extension on: the cases of ``tests/rules/fixtures/WholePlanSchemaPruning.sql``, by name (each
case's first comment line). The expected schemas are the minimal leaf sets, worked out by hand from
the query. ``tests/rules`` runs them on the session's files; the table formats' and deployments'
tests run them on their own tables."""
from tests.support.rule_fixtures import load_rule

#: name -> (query, sorted read schemas)
SHAPES: dict[str, tuple[str, list[str]]] = {
    case.name: (case.sql, case.read_schemas) for case in load_rule("WholePlanSchemaPruning")}
