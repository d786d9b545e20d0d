"""The nested leaf paths and variant paths one query needs, per table, from its SQL alone.

Mirrors the extension's whole-plan pruning (README "Whole-plan nested schema pruning") on the
side that can only over-read: a field chain (``s.a.b``, ``arr.x``, ``m['k'].x``, a lateral-view
or CTE/subquery alias of a struct followed by fields) needs that subtree; a column used any other
way (sorted, grouped, compared, passed to a function, a presence test such as ``size(arr)``)
needs all of it. So the result is always a superset of what the extension reads, never a subset.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope
from pyspark.sql.types import (ArrayType, BinaryType, BooleanType, ByteType, DataType, DateType,
                               DecimalType, DoubleType, FloatType, IntegerType, LongType, MapType,
                               ShortType, StringType, StructType, TimestampNTZType, TimestampType)

from .._variant_types import VARIANT_TYPES
from ..settings import nearest

# Spark SQL as people write it: Databricks' dialect is Spark's plus the ``v:a.b`` variant path.
DIALECT = "databricks"
Path = tuple[str, ...]
VARIANT_GETTERS = {"variant_get", "try_variant_get"}
EXPLODES = {"explode", "explode_outer", "posexplode", "posexplode_outer"}


class UnresolvedQuery(ValueError):
    """A query the advisor cannot parse or resolve; the message says why. A syntax error or an
    unknown name knows where it is in the query (``line``, ``column``: 1-based), an unknown table
    its ``tables``; ``hint`` follows the position (``did you mean ...?``)."""

    def __init__(self, reason: str, *, line: int | None = None, column: int = 1,
                 syntax: bool = False, tables: tuple[str, ...] = (), hint: str = "") -> None:
        super().__init__(reason)
        self.reason, self.line, self.column, self.tables = reason, line, column, tables
        self.syntax, self.hint = syntax, hint

    def __str__(self) -> str:
        return self.at(1, 1)

    def at(self, first_line: int, first_column: int) -> str:
        """The message with the syntax error's position in a file whose query starts at
        ``first_line``, ``first_column``."""
        hint = f"; {self.hint}" if self.hint else ""
        if self.line is None:
            return self.reason + hint
        line = first_line + self.line - 1
        column = self.column + (first_column - 1 if self.line == 1 else 0)
        if self.syntax:
            return f"syntax error at line {line}, column {column}: {self.reason}"
        return f"{self.reason} (line {line}, column {column}){hint}"


def _syntax_error(e: ParseError) -> UnresolvedQuery:
    if not e.errors or not e.errors[0].get("line"):
        return UnresolvedQuery(str(e).splitlines()[0])
    first = e.errors[0]
    near = first.get("highlight") or ""
    # sqlglot's column is where the offending token ends; say where it starts
    column = max(1, first["col"] - len(near) + 1)
    description = first.get("description") or ""
    if "<class" in description:  # sqlglot's own names ("'this' missing for <class ...Where'>")
        description = "incomplete expression"
    reason = (f"near {near!r}: " if near else "") + description
    return UnresolvedQuery(reason, line=first["line"], column=column, syntax=True)


def _resolution_error(e: SqlglotError, sql: str | exp.Expression,
                      tables: dict[str, StructType]) -> UnresolvedQuery:
    message = str(e).splitlines()[0]
    try:
        parsed = sqlglot.parse_one(sql, read=DIALECT) if isinstance(sql, str) else sql
        unknown = _unknown_column(message, parsed, tables)
    except SqlglotError:
        unknown = None
    if unknown is not None:
        return unknown
    # qualify's "Column 'x' could not be resolved. Line: 1, Col: 11": the column where x ends
    where = re.search(r"\.? Line: (\d+), Col: (\d+)\.?$", message)
    if where is None:
        return UnresolvedQuery(message)
    name = re.search(r"'([^']*)'", message)
    column = max(1, int(where.group(2)) - (len(name.group(1)) - 1 if name else 0))
    return UnresolvedQuery(message[:where.start()], line=int(where.group(1)), column=column)


def _unknown_tables(names: list[str]) -> UnresolvedQuery:
    names = sorted(set(names), key=str.lower)
    return UnresolvedQuery(f"unknown table{'s' if len(names) > 1 else ''} {', '.join(names)} "
                           f"(no schema given for {'them' if len(names) > 1 else 'it'})",
                           tables=tuple(names))


# sqlglot lower-cases unquoted identifiers as it resolves a query (Spark's are case-insensitive);
# each identifier keeps its spelling here, so that errors name it as the user wrote it.
_WRITTEN = "pyspark_ext_written"


def _keep_spelling(tree: exp.Expression) -> None:
    for ident in tree.find_all(exp.Identifier):
        ident.meta[_WRITTEN] = ident.this


def _written(node: exp.Expression) -> str:
    return node.meta.get(_WRITTEN, node.name) if isinstance(node, exp.Identifier) else node.name


def _reference(node: exp.Expression, resolved: bool = True) -> str:
    """The column reference ``node`` is part of, as written: ``customer.adress.city``, ``p.sku``,
    ``m['k'].x``; in a ``resolved`` tree without the table qualifier (sqlglot may have added it)."""
    top = node.parent if isinstance(node.parent, (exp.Column, exp.Dot)) else node
    while isinstance(top.parent, (exp.Dot, exp.Bracket)) and top.parent.this is top:
        top = top.parent

    def render(n: exp.Expression) -> str:
        if isinstance(n, exp.Dot):
            return f"{render(n.this)}.{_written(n.expression)}"
        if isinstance(n, exp.Bracket):
            return f"{render(n.this)}[{', '.join(k.sql(DIALECT) for k in n.expressions)}]"
        if isinstance(n, exp.Column):
            return ".".join(_written(p) for p in (n.parts[1:] if n.table and resolved else n.parts))
        return _written(n)
    return render(top)


def _unknown_name(what: str, ident: exp.Expression, reference: str,
                  known: list[str]) -> UnresolvedQuery:
    """``unknown field adress in customer.adress.city (line 1, column 17); did you mean Address?``"""
    name = _written(ident)
    reason = f"unknown {what} {name}" + (f" in {reference}" if reference != name else "")
    meta = ident.meta
    # the tokenizer's col is where the token ends; say where it starts
    line, column = (meta["line"], meta["col"] - (meta["end"] - meta["start"])) \
        if {"line", "col", "start", "end"} <= meta.keys() else (None, 1)
    return UnresolvedQuery(reason, line=line, column=column,
                           hint=f"did you mean {nearest(name, known)}?" if known else "")


def _blamed_column(message: str, tree: exp.Expression) -> exp.Column | None:
    """The column of ``tree`` (parsed, not resolved) that sqlglot's resolution error is about."""
    columns = list(tree.find_all(exp.Column))
    at = re.match(r"Column '.*' could not be resolved(?: for table: '.*')?\. Line: (\d+), Col: (\d+)",
                  message)
    if at is not None:  # the position of the column's last part
        line, col = int(at.group(1)), int(at.group(2))
        return next((c for c in columns if c.this.meta.get("line") == line
                     and c.this.meta.get("col") == col), None)
    named = re.match(r"Unknown column: (.*)$", message)
    if named is not None:
        columns.sort(key=lambda c: c.this.meta.get("start", 0))
        return next((c for c in columns if any(p.name.lower() == named.group(1).lower()
                                               for p in c.parts)), None)
    return None


def _source_columns(source: exp.Expression | Scope, tables: dict[str, StructType]) -> list[str] | None:
    """The columns a FROM item offers, None when not known here: a star, a generator's output
    (``inline``), an unaliased expression (Spark names it by its text), a function in FROM."""
    if isinstance(source, exp.Table):
        schema = {k.lower(): v for k, v in tables.items()}.get(source.name.lower())
        return [f.name for f in schema.fields] if schema is not None else None
    if isinstance(source, Scope):
        query = source.expression
        while isinstance(query, exp.SetOperation):
            query = query.this
        if not isinstance(query, exp.Select):
            return None
        names = [p.alias if isinstance(p, exp.Alias) else p.name if isinstance(p, (exp.Column, exp.Dot))
                 else "" for p in query.selects]
        return None if "" in names or "*" in names else names
    return None


def _unknown_column(message: str, tree: exp.Expression,
                    tables: dict[str, StructType]) -> UnresolvedQuery | None:
    """sqlglot names the last part of a column it cannot resolve, lower-cased (``Column 'city'
    could not be resolved for table: 'address'`` for ``Custmer.Address.city``): find that column
    in the query as parsed, and name the part that is unknown, as written, with the nearest
    known name. None when the query's names are not all known here: sqlglot's message stands."""
    column = _blamed_column(message, tree)
    scope = next((s for s in traverse_scope(tree) if any(c is column for c in s.columns)), None) \
        if column is not None else None
    if column is None or scope is None:
        return None
    sources: dict[str, list[str] | None] = {}
    aliases: list[str] = []  # a projection's alias, which ORDER BY or HAVING may name
    while scope is not None:  # a correlated subquery sees its outer query's sources
        for name, source in scope.sources.items():
            sources.setdefault(name.lower(), _source_columns(source, tables))
        if isinstance(scope.expression, exp.Select):
            aliases += [p.alias for p in scope.expression.selects if p.alias]
            for lateral in scope.expression.args.get("laterals") or []:
                alias = lateral.args.get("alias")
                if alias is not None:
                    sources[alias.name.lower()] = [c.name for c in alias.columns]
        scope = scope.parent
    if any(known is None for known in sources.values()):
        return None
    columns = [c for known in sources.values() for c in known or ()] + aliases
    parts = column.parts
    reference = _reference(parts[0], resolved=False)
    if len(parts) > 1 and parts[0].name.lower() in sources:
        known = sources[parts[0].name.lower()] or []
        if parts[1].name.lower() in {c.lower() for c in known}:
            return None
        return _unknown_name("column", parts[1], reference, known)
    if parts[0].name.lower() in {c.lower() for c in columns}:
        return None
    names = columns + ([s for s in sources] if len(parts) > 1 else [])
    return _unknown_name("column", parts[0], reference, names)


def _missing_field(schema: StructType, base: str,
                   steps: list[exp.Expression]) -> tuple[exp.Expression, StructType] | None:
    """The first field a plain chain of names asks of a struct (or an array of structs) that it
    does not have, and that struct. Only plain chains are checked: after a subscript, a star or
    a map (where a dot looks a key up) Spark's own rules apply, and the value is read whole."""
    found = _field_type(schema, base)
    t = found[1] if found is not None else None
    for step in steps:
        if not isinstance(step, exp.Identifier):
            return None
        while isinstance(t, ArrayType):
            t = t.elementType
        if not isinstance(t, StructType):
            return None
        found = _field_type(t, step.name)
        if found is None:
            return step, t
        t = found[1]
    return None


@dataclass(frozen=True)
class VariantPath:
    table: str
    column: str      # the variant column's nested path, dotted
    path: str        # JSON path, '$' for the whole value
    type: str        # the type asked for, 'variant' for a whole value or sub-value


@dataclass
class QueryNeeds:
    leaves: dict[str, set[Path]] = field(default_factory=dict)
    variant_paths: list[VariantPath] = field(default_factory=list)
    #: variant paths compared with constants in a filter, with the kind (see ``filter_kind``)
    variant_filters: list[tuple[VariantPath, str]] = field(default_factory=list)

    presence: dict[str, set[tuple[Path, Path]]] = field(default_factory=dict)

    def need(self, table: str, path: Path) -> None:
        self.leaves.setdefault(table, set()).add(path)

    def need_presence(self, table: str, path: Path, cheapest: Path) -> None:
        self.presence.setdefault(table, set()).add((path, cheapest))

    def settle_presence(self) -> None:
        """A presence test is free when another leaf of the value is read anyway (as in the
        extension's Need); otherwise it reads the cheapest leaf."""
        for table, tests in self.presence.items():
            paths = self.leaves.setdefault(table, set())
            for path, cheapest in sorted(tests):
                if not any(p[:len(path)] == path or path[:len(p)] == p for p in paths):
                    paths.add(path + cheapest)
        self.presence = {}
        for table, paths in self.leaves.items():  # a field of a value needed whole is implied
            self.leaves[table] = {p for p in paths if not any(p[:i] in paths for i in range(1, len(p)))}


def _field_type(t: DataType, name: str) -> tuple[str, DataType] | None:
    while isinstance(t, (ArrayType, MapType)):
        t = t.elementType if isinstance(t, ArrayType) else t.valueType
    if not isinstance(t, StructType):
        return None
    for f in t.fields:
        if f.name.lower() == name.lower():
            return f.name, f.dataType
    return None


def canonical(schema: StructType, path: Path) -> tuple[Path, DataType | None]:
    """The path spelled as in the schema (Spark resolves names case-insensitively), cut where it
    leaves the schema's structs, and the type it ends on."""
    out: list[str] = []
    t: DataType = schema
    for name in path:
        found = _field_type(t, name)
        if found is None:
            break
        out.append(found[0])
        t = found[1]
    return tuple(out), (t if out else None)


def _chain(node: exp.Expression) -> tuple[list[exp.Expression], exp.Expression]:
    """The steps above ``node``, the field names of its dots (an Identifier, or a star) and its
    subscripts (the Bracket; they walk into elements and map values), and the outermost
    expression of that chain."""
    steps: list[exp.Expression] = []
    while True:
        parent = node.parent
        if isinstance(parent, exp.Dot) and parent.this is node:
            steps.append(parent.expression)
        elif isinstance(parent, exp.Bracket) and parent.this is node:
            steps.append(parent)
        else:
            return steps, node
        node = parent


def _names(steps: list[exp.Expression]) -> list[str]:
    """The field names of a chain's steps (a subscript walks into an element or map value)."""
    return [s.name for s in steps if not isinstance(s, exp.Bracket)]


def _column_chain(col: exp.Column) -> tuple[exp.Expression, list[exp.Expression], exp.Expression]:
    """A qualified column's base identifier, the steps after it, and the chain's top node.
    sqlglot folds ``t.s.a.b`` into a Column with extra parts; those parts are fields."""
    parts = col.parts
    base_index = 1 if col.table else 0
    steps, top = _chain(col)
    return parts[base_index], parts[base_index + 1:] + steps, top


def _lateral_for(scope: Scope, alias: str) -> exp.Lateral | None:
    select = scope.expression
    for lateral in select.args.get("laterals") or []:
        if lateral.alias == alias or alias in [c.name for c in lateral.args["alias"].columns]:
            return lateral
    return None


class _Resolver:
    def __init__(self, tables: dict[str, StructType]):
        self.tables = {k.lower(): (k, v) for k, v in tables.items()}
        self.needs = QueryNeeds()

    def base(self, table: str, path: Path) -> tuple[str, Path, DataType | None]:
        name, schema = self.tables[table.lower()]
        return (name, *canonical(schema, path))

    def column(self, scope: Scope, col: exp.Column, extra: list[exp.Expression] | None = None,
               presence: bool = False) -> list[tuple[str, Path, DataType | None]]:
        """Resolve ``col`` (plus ``extra`` steps) to base-table paths and record them as needed;
        ``presence``: only whether the value is null (or its size) is needed. A field the
        table's schema does not have fails the query, as Spark would."""
        base_ident, steps, _ = _column_chain(col)
        base, steps = base_ident.name, steps + (extra or [])
        # a correlated subquery's outer references resolve in an enclosing scope
        while True:
            lateral = _lateral_for(scope, col.table) if isinstance(scope.expression, exp.Select) else None
            if lateral is not None:
                return self.lateral(scope, lateral, base, steps, presence)
            source = scope.sources.get(col.table)
            if source is not None:
                break
            if scope.parent is None:
                raise UnresolvedQuery(f"cannot resolve column {_reference(base_ident)}")
            scope = scope.parent
        if isinstance(source, exp.Table):
            names = _names(steps)
            found = self.base(source.name, (base, *names))
            if not found[1]:
                raise UnresolvedQuery(f"table {_written(source.this)} has no column {_written(base_ident)}")
            missing = _missing_field(self.tables[source.name.lower()][1], base, steps) \
                if len(found[1]) <= len(names) else None
            if missing is not None:
                step, struct = missing
                raise _unknown_name("field", step, _reference(step), [f.name for f in struct.fields])
            if presence:
                self.needs.need_presence(found[0], found[1], presence_suffix(found[2]))
            else:
                self.needs.need(found[0], found[1])
            return [found]
        return self.derived(source, base, steps, presence)

    def lateral(self, scope: Scope, lateral: exp.Lateral, name: str, fields: list[exp.Expression],
                presence: bool = False) -> list[tuple[str, Path, DataType | None]]:
        gen = lateral.this
        fn = (gen.name if isinstance(gen, exp.Anonymous) else gen.key).lower()
        arg = gen.this if isinstance(gen, exp.Func) else None
        columns = [c.name for c in lateral.args["alias"].columns]
        element = columns[-1] if columns else None
        root = _path_root(arg) if arg is not None else None
        if fn in EXPLODES and root is not None and name == element:
            return self.column(scope, root, extra=fields, presence=presence)
        if fn.startswith("posexplode") and name != element:
            return []  # the position needs nothing more than the row count, recorded per lateral
        for col in gen.find_all(exp.Column):
            self.column(scope, col)
        return []  # not a path of a table column: the outer use says nothing about variant paths

    def derived(self, source: Scope, name: str, fields: list[exp.Expression],
                presence: bool = False) -> list[tuple[str, Path, DataType | None]]:
        select = source.expression
        if not isinstance(select, exp.Select):
            return []  # a union's branches are visited as scopes, every projection whole
        for projection in select.selects:
            if projection.alias_or_name.lower() == name.lower():
                inner = projection.unalias()
                root = _path_root(inner)
                if root is not None:
                    return self.column(source, root, extra=fields, presence=presence)
                for col in inner.find_all(exp.Column):
                    self.column(source, col)
                return []
        raise UnresolvedQuery(f"subquery has no column {name}")


# transform / exists / forall read the elements only through their lambda (filter returns them whole)
_ELEMENTWISE = {"transform", "exists", "forall"}


def _lambda_fields(top: exp.Expression) -> list[list[exp.Expression]] | None:
    """For ``transform(arr, x -> x.a.b + x.c)``: the field chains (steps, as ``_chain``) the
    lambda reads of an element, a.b and c; None when it uses an element any other way (then the
    array is whole)."""
    parent = top.parent
    name = (parent.name if isinstance(parent, exp.Anonymous) else getattr(parent, "key", "")).lower()
    if isinstance(parent, exp.Anonymous):
        args = parent.expressions
        array, lam = (args[0], args[1]) if len(args) == 2 else (None, None)
    else:
        array, lam = (parent.this, parent.args.get("expression")) if parent is not None else (None, None)
    if name not in _ELEMENTWISE or array is not top or not isinstance(lam, exp.Lambda) \
            or len(lam.expressions) != 1:
        return None
    var = lam.expressions[0].name
    chains = []
    for node in lam.this.find_all(exp.Identifier, exp.Column):
        if isinstance(node, exp.Identifier) and isinstance(node.parent, (exp.Column, exp.Dot)) \
                and node.parent.args.get("this") is not node:
            continue  # a field name, not a reference
        if node.name != var or (isinstance(node, exp.Column) and node.table):
            continue
        steps, _ = _chain(node)
        if not _names(steps):
            return None
        chains.append(steps)
    return chains or None


def _presence_only(top: exp.Expression) -> bool:
    """``size(arr)``, ``count(s)``, ``s IS [NOT] NULL``, ``isnotnull(s)``, ``map_keys(m)``: the
    extension reads one cheapest leaf for these (a map's keys come with any of its values)."""
    parent = top.parent
    if isinstance(parent, (exp.ArraySize, exp.Count, exp.MapKeys)) and parent.this is top:
        return True
    if isinstance(parent, exp.Is) and parent.this is top and isinstance(parent.expression, exp.Null):
        return True
    return isinstance(parent, exp.Anonymous) and parent.name.lower() in {"isnull", "isnotnull", "map_keys"} \
        and len(parent.expressions) == 1


def _presence_cost(t: DataType) -> float:
    """Mirrors the extension's Need.presenceCost: rough bytes per value of the cheapest leaf."""
    if isinstance(t, (BooleanType, ByteType)):
        return 1
    if isinstance(t, ShortType):
        return 2
    if isinstance(t, (IntegerType, FloatType, DateType)):
        return 4
    if isinstance(t, (LongType, DoubleType, TimestampType, TimestampNTZType)):
        return 8
    if isinstance(t, DecimalType):
        return 8 if t.precision <= 18 else 16
    if isinstance(t, StructType) and t.fields:
        return 0.5 + min(_presence_cost(f.dataType) for f in t.fields)
    if isinstance(t, ArrayType):
        return 64 + _presence_cost(t.elementType)
    if isinstance(t, MapType):
        return 64 + _presence_cost(t.keyType) + _presence_cost(t.valueType)
    if isinstance(t, (StringType, BinaryType)):
        return 32
    return 1024


def presence_suffix(t: DataType | None) -> Path:
    """The field names down to the leaf the extension reads to test a value of ``t`` for null
    (its Need.prune of Presence: the cheapest field, first on ties, through arrays and map values)."""
    out: list[str] = []
    while t is not None:
        if isinstance(t, ArrayType):
            t = t.elementType
        elif isinstance(t, MapType):
            t = t.valueType
        elif isinstance(t, StructType) and t.fields:
            best = min(t.fields, key=lambda f: _presence_cost(f.dataType))
            out.append(best.name)
            t = best.dataType
        else:
            break
    return tuple(out)


def _path_root(node: exp.Expression) -> exp.Column | None:
    """The column under a plain field chain (``c``, ``c.a.b``, ``c['k'].x``), else None."""
    while isinstance(node, (exp.Dot, exp.Bracket)):
        if isinstance(node, exp.Bracket) and not all(isinstance(k, exp.Literal) for k in node.expressions):
            return None
        node = node.this
    return node if isinstance(node, exp.Column) else None


def _json_path(node: exp.JSONPath) -> str:
    out = "$"
    for part in node.expressions:
        if isinstance(part, exp.JSONPathKey):
            key = part.this
            out += f".{key}" if str(key).isidentifier() else f"['{key}']"
        elif isinstance(part, exp.JSONPathSubscript):
            out += f"[{part.this}]"
        elif not isinstance(part, exp.JSONPathRoot):
            raise UnresolvedQuery(f"unsupported variant path {node.sql(DIALECT)}")
    return out


def _variant_use(col: exp.Column, top: exp.Expression) -> tuple[str, str, exp.Expression]:
    """(path, type, node) of a variant column's use at ``top``: a path read, a cast, or the whole
    value; ``node`` is the expression whose value that is (the cast or getter call)."""
    parent = top.parent
    if isinstance(parent, exp.JSONExtract) and parent.this is top and parent.args.get("variant_extract"):
        path = _json_path(parent.expression)
        cast = parent.parent
        if isinstance(cast, exp.Cast):
            return path, cast.to.sql("spark").lower(), cast
        return path, "variant", parent
    if isinstance(parent, exp.Anonymous) and parent.name.lower() in VARIANT_GETTERS \
            and parent.expressions and parent.expressions[0] is top:
        args = parent.expressions
        if len(args) >= 2 and isinstance(args[1], exp.Literal) and args[1].is_string:
            typ = args[2].name.lower() if len(args) > 2 and isinstance(args[2], exp.Literal) else "variant"
            return args[1].name, typ, parent
    if isinstance(parent, exp.Cast) and parent.this is top:
        return "$", parent.to.sql("spark").lower(), parent
    return "$", "variant", top


def _constant(node: exp.Expression) -> bool:
    """A literal, a negated one, or a typed one (``DATE '2024-01-01'``)."""
    return isinstance(node, (exp.Literal, exp.Boolean)) or (
        isinstance(node, (exp.Neg, exp.Cast)) and isinstance(node.this, exp.Literal))


def filter_kind(use: exp.Expression) -> str | None:
    """``"equality"`` where ``use`` is compared with constants by ``=``, ``<=>`` or ``IN``, and
    ``"range"`` by ``<``, ``<=``, ``>``, ``>=`` or ``BETWEEN``, in a conjunction or disjunction of a
    WHERE, HAVING or join condition: the predicates Parquet can skip row groups and pages by
    (bloom filters and dictionaries for equality, statistics of sorted data for ranges). None
    otherwise (a projection, a negation, a comparison with another column)."""
    while isinstance(use.parent, exp.Paren):
        use = use.parent
    cmp = use.parent
    kind = None
    if isinstance(cmp, (exp.EQ, exp.NullSafeEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        other = cmp.expression if cmp.this is use else cmp.this
        if _constant(other):
            kind = "equality" if isinstance(cmp, (exp.EQ, exp.NullSafeEQ)) else "range"
    elif isinstance(cmp, exp.In) and cmp.this is use and cmp.expressions \
            and all(_constant(e) for e in cmp.expressions):
        kind = "equality"
    elif isinstance(cmp, exp.Between) and cmp.this is use \
            and _constant(cmp.args["low"]) and _constant(cmp.args["high"]):
        kind = "range"
    if kind is None:
        return None
    node = cmp
    while isinstance(node.parent, (exp.And, exp.Or, exp.Paren)):
        node = node.parent
    holder = node.parent
    if isinstance(holder, (exp.Where, exp.Having)) or (isinstance(holder, exp.Join) and node.arg_key == "on"):
        return kind
    return None


def query_needs(sql: str | exp.Expression, tables: dict[str, StructType]) -> QueryNeeds:
    """What one query needs of each table in ``tables``; raises UnresolvedQuery with the reason."""
    try:
        # resolving rewrites the tree: the caller's tree stays as it was, for error messages
        tree = sqlglot.parse_one(sql, read=DIALECT) if isinstance(sql, str) else sql.copy()
        if not isinstance(tree, exp.Query):
            raise UnresolvedQuery("not a query: " + (tree.sql(DIALECT)[:60] if tree else "empty"))
        ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        known = {t.lower() for t in tables}
        unknown = [t.name for t in tree.find_all(exp.Table) if t.name and t.name.lower() not in known | ctes]
        if unknown:
            raise _unknown_tables(unknown)
        mapping = {name: {f.name: _sql_type(f.dataType) for f in schema.fields}
                   for name, schema in tables.items()}
        _keep_spelling(tree)
        tree = qualify(tree, schema=mapping, dialect=DIALECT, validate_qualify_columns=True,
                       identify=False)
        scopes = traverse_scope(tree)
    except UnresolvedQuery:
        raise
    except ParseError as e:
        raise _syntax_error(e) from None
    except SqlglotError as e:
        raise _resolution_error(e, sql, tables) from None
    resolver = _Resolver(tables)
    for scope in scopes:
        if not isinstance(scope.expression, (exp.Select, exp.SetOperation)):
            continue
        for table in scope.sources.values():
            if isinstance(table, exp.Table):
                if table.name.lower() not in resolver.tables:
                    raise _unknown_tables([table.name])
                resolver.needs.leaves.setdefault(resolver.tables[table.name.lower()][0], set())
        lazy = _lazy_projections(scope)
        if isinstance(scope.expression, exp.Select):
            for lateral in scope.expression.args.get("laterals") or []:
                root = _path_root(lateral.this.this) if isinstance(lateral.this.this, exp.Expression) else None
                if root is not None:  # an explode's row count needs the array's presence
                    resolver.column(scope, root, presence=True)
        for col in scope.columns:
            if any(col is c for c in lazy) or not col.table:
                continue  # resolved from outer references; or a lambda variable
            _, _, top = _column_chain(col)
            chains = _lambda_fields(top)
            if chains:
                for chain in chains:
                    resolver.column(scope, col, extra=chain)
                continue
            for table, path, typ in resolver.column(scope, col, presence=_presence_only(top)):
                if isinstance(typ, VARIANT_TYPES):
                    vpath, vtype, use = _variant_use(col, top)
                    vp = VariantPath(table, ".".join(path), vpath, vtype)
                    resolver.needs.variant_paths.append(vp)
                    kind = filter_kind(use)
                    if kind is not None:
                        resolver.needs.variant_filters.append((vp, kind))
    resolver.needs.settle_presence()
    return resolver.needs


def _lazy_projections(scope: Scope) -> list[exp.Expression]:
    """Projections of a CTE or derived table that are plain field chains: they are resolved from
    the outer query's references (a struct alias then ``alias.field`` needs only that field)."""
    select = scope.expression
    if not isinstance(select, exp.Select):
        return []
    out = []
    for lateral in select.args.get("laterals") or []:
        gen = lateral.this
        fn = (gen.name if isinstance(gen, exp.Anonymous) else gen.key).lower()
        root = _path_root(gen.this) if fn in EXPLODES and isinstance(gen.this, exp.Expression) else None
        if root is not None:
            out.append(root)
    # ORDER BY / GROUP BY an alias, DISTINCT and windows use the projected value whole
    if not (scope.is_cte or scope.is_derived_table) or select.args.get("distinct") \
            or any(select.args.get(k) for k in ("order", "group", "having", "qualify")) \
            or select.find(exp.Window):
        return out
    for projection in select.selects:
        root = _path_root(projection.unalias())
        if root is not None:
            out.append(root)
    return out


def _sql_type(t: DataType) -> str:
    return "VARIANT" if isinstance(t, VARIANT_TYPES) else "STRING" if not isinstance(t, StructType) \
        else "STRUCT<" + ", ".join(f"`{f.name}` {_sql_type(f.dataType)}" for f in t.fields) + ">"
