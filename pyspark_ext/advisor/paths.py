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
                               ShortType, StringType, StructType, TimestampNTZType, TimestampType,
                               VariantType)

# Spark SQL as people write it: Databricks' dialect is Spark's plus the ``v:a.b`` variant path.
DIALECT = "databricks"
Path = tuple[str, ...]
VARIANT_GETTERS = {"variant_get", "try_variant_get"}
EXPLODES = {"explode", "explode_outer", "posexplode", "posexplode_outer"}


class UnresolvedQuery(ValueError):
    """A query the advisor cannot parse or resolve; the message says why. A syntax error knows
    where it is in the query (``line``, ``column``: 1-based), an unknown table its ``tables``."""

    def __init__(self, reason: str, *, line: int | None = None, column: int = 1,
                 syntax: bool = False, tables: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.reason, self.line, self.column, self.tables = reason, line, column, tables
        self.syntax = syntax

    def __str__(self) -> str:
        return self.at(1, 1)

    def at(self, first_line: int, first_column: int) -> str:
        """The message with the syntax error's position in a file whose query starts at
        ``first_line``, ``first_column``."""
        if self.line is None:
            return self.reason
        line = first_line + self.line - 1
        column = self.column + (first_column - 1 if self.line == 1 else 0)
        if self.syntax:
            return f"syntax error at line {line}, column {column}: {self.reason}"
        return f"{self.reason} (line {line}, column {column})"


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


def _resolution_error(e: SqlglotError) -> UnresolvedQuery:
    message = str(e).splitlines()[0]
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


def _chain(node: exp.Expression) -> tuple[list[str], exp.Expression]:
    """Field names accessed above ``node`` (dots; subscripts walk into elements and map values)
    and the outermost expression of that chain."""
    names: list[str] = []
    while True:
        parent = node.parent
        if isinstance(parent, exp.Dot) and parent.this is node:
            names.append(parent.expression.name)
        elif isinstance(parent, exp.Bracket) and parent.this is node:
            pass
        else:
            return names, node
        node = parent


def _column_chain(col: exp.Column) -> tuple[str, list[str], exp.Expression]:
    """A qualified column's base name, the field names after it, and the chain's top node.
    sqlglot folds ``t.s.a.b`` into a Column with extra parts; those parts are fields."""
    parts = [p.name for p in col.parts]
    base_index = 1 if col.table else 0
    names, top = _chain(col)
    return parts[base_index], parts[base_index + 1:] + names, top


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

    def column(self, scope: Scope, col: exp.Column, extra: list[str] | None = None,
               presence: bool = False) -> list[tuple[str, Path, DataType | None]]:
        """Resolve ``col`` (plus ``extra`` fields) to base-table paths and record them as needed;
        ``presence``: only whether the value is null (or its size) is needed."""
        base, fields, _ = _column_chain(col)
        fields = fields + (extra or [])
        # a correlated subquery's outer references resolve in an enclosing scope
        while True:
            lateral = _lateral_for(scope, col.table) if isinstance(scope.expression, exp.Select) else None
            if lateral is not None:
                return self.lateral(scope, lateral, base, fields, presence)
            source = scope.sources.get(col.table)
            if source is not None:
                break
            if scope.parent is None:
                raise UnresolvedQuery(f"cannot resolve column {col.sql(DIALECT)}")
            scope = scope.parent
        if isinstance(source, exp.Table):
            found = self.base(source.name, (base, *fields))
            if not found[1]:
                raise UnresolvedQuery(f"table {source.name} has no column {base}")
            if presence:
                self.needs.need_presence(found[0], found[1], presence_suffix(found[2]))
            else:
                self.needs.need(found[0], found[1])
            return [found]
        return self.derived(source, base, fields, presence)

    def lateral(self, scope: Scope, lateral: exp.Lateral, name: str, fields: list[str],
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

    def derived(self, source: Scope, name: str, fields: list[str],
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


def _lambda_fields(top: exp.Expression) -> list[list[str]] | None:
    """For ``transform(arr, x -> x.a.b + x.c)``: the field chains the lambda reads of an element,
    [["a", "b"], ["c"]]; None when it uses an element any other way (then the array is whole)."""
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
        names, _ = _chain(node)
        if not names:
            return None
        chains.append(names)
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


def _variant_use(col: exp.Column, top: exp.Expression) -> tuple[str, str]:
    """(path, type) of a variant column's use at ``top``: a path read, a cast, or the whole value."""
    parent = top.parent
    if isinstance(parent, exp.JSONExtract) and parent.this is top and parent.args.get("variant_extract"):
        path = _json_path(parent.expression)
        cast = parent.parent
        typ = cast.to.sql("spark").lower() if isinstance(cast, exp.Cast) else "variant"
        return path, typ
    if isinstance(parent, exp.Anonymous) and parent.name.lower() in VARIANT_GETTERS \
            and parent.expressions and parent.expressions[0] is top:
        args = parent.expressions
        if len(args) >= 2 and isinstance(args[1], exp.Literal) and args[1].is_string:
            typ = args[2].name.lower() if len(args) > 2 and isinstance(args[2], exp.Literal) else "variant"
            return args[1].name, typ
    if isinstance(parent, exp.Cast) and parent.this is top:
        return "$", parent.to.sql("spark").lower()
    return "$", "variant"


def query_needs(sql: str | exp.Expression, tables: dict[str, StructType]) -> QueryNeeds:
    """What one query needs of each table in ``tables``; raises UnresolvedQuery with the reason."""
    try:
        tree = sqlglot.parse_one(sql, read=DIALECT) if isinstance(sql, str) else sql
        if not isinstance(tree, exp.Query):
            raise UnresolvedQuery("not a query: " + (tree.sql(DIALECT)[:60] if tree else "empty"))
        ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        known = {t.lower() for t in tables}
        unknown = [t.name for t in tree.find_all(exp.Table) if t.name and t.name.lower() not in known | ctes]
        if unknown:
            raise _unknown_tables(unknown)
        mapping = {name: {f.name: _sql_type(f.dataType) for f in schema.fields}
                   for name, schema in tables.items()}
        tree = qualify(tree, schema=mapping, dialect=DIALECT, validate_qualify_columns=True,
                       identify=False)
        scopes = traverse_scope(tree)
    except UnresolvedQuery:
        raise
    except ParseError as e:
        raise _syntax_error(e) from None
    except SqlglotError as e:
        raise _resolution_error(e) from None
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
                if isinstance(typ, VariantType):
                    vpath, vtype = _variant_use(col, top)
                    resolver.needs.variant_paths.append(
                        VariantPath(table, ".".join(path), vpath, vtype))
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
    return "VARIANT" if isinstance(t, VariantType) else "STRING" if not isinstance(t, StructType) \
        else "STRUCT<" + ", ".join(f"`{f.name}` {_sql_type(f.dataType)}" for f in t.fields) + ">"
