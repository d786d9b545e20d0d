"""Deterministic event-like JSON for the shredded-Variant battery, written as three draft-layout
files with *different* shredding schemas, plus the ground truth (``id BIGINT, j STRING``).

Rows are spread round-robin over the files (row ``id`` goes to file ``id % 3``), so every file holds
every kind of row. JSON text is generated directly (not with ``json.dumps``) so the number syntax is
controlled: ``19.99`` is a decimal for parse_json, ``1.25e0`` a double, ``7`` an int.
"""
from __future__ import annotations

import json
import os
import random
from decimal import Decimal
from typing import Any

from tests.support.variant_battery.draft_writer import (
    Arr, DraftFile, Obj, Options, Typed, Untyped, parquet_schema, write_draft, write_truth)

SEED = 20240305
ROWS = 3000


class Dbl(float):
    """A number to be written in exponent notation, so parse_json reads a double."""


def dumps(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Dbl):
        text = repr(float(value))
        return text if ("e" in text or "E" in text) else text + "e0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, float):
        raise TypeError("use Dbl for doubles")
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dumps(v) for k, v in value.items()) + "}"
    raise TypeError(type(value))


COUNTRIES = ["US", "DE", "FR", "JP", "BR", "IN", "GB", "CA"]
TIERS = ["gold", "silver", "bronze", "platinum"]
TYPES = ["click", "view", "purchase", "signup", "refund"]
NAMES = ["Ada", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Gus", "Hiroshi", "Ingrid", "José",
         "Ana", "Zoë 🚀", "Amir", "Bea"]
COLORS = ["red", "green", "blue"]
WORDS = ["alpha", "beta", "gamma", "delta", "promo", "mobile", "web", "retry"]


def _dec(r: random.Random, lo: float, hi: float, places: int) -> Decimal:
    return Decimal(f"{r.uniform(lo, hi):.{places}f}")


def _item(r: random.Random) -> Any:
    x = r.random()
    if x < 0.02:
        return "gift-card"                      # a non-object element
    if x < 0.03:
        return None                             # JSON null element
    item: dict[str, Any] = {"sku": f"SKU-{r.randint(1, 40):03d}"}
    q = r.random()
    if q < 0.05:
        item["qty"] = str(r.randint(1, 5))      # qty as a numeric string
    elif q < 0.08:
        pass                                    # qty missing
    else:
        item["qty"] = r.randint(1, 5)
    p = r.random()
    if p < 0.02:
        item["price"] = "n/a"                   # price as a non-numeric string
    elif p < 0.07:
        item["price"] = r.randint(1, 200)       # int price (lossless into decimal columns)
    elif p < 0.10:
        item["price"] = _dec(r, 1, 100, 3)      # 3 decimals: does not fit decimal(9,2)
    elif p < 0.12:
        item["price"] = Dbl(round(r.uniform(1, 100), 2))  # a double
    else:
        item["price"] = _dec(r, 1, 500, 2)
    if r.random() < 0.05:
        item["discount"] = _dec(r, 0, 1, 2)     # extra field -> residual
    return item


def _tag(r: random.Random) -> Any:
    x = r.random()
    if x < 0.70:
        return r.choice(WORDS)
    if x < 0.78:
        return r.randint(-5, 100)
    if x < 0.83:
        return r.random() < 0.5
    if x < 0.88:
        return None
    if x < 0.93:
        return {"k": r.choice(WORDS)}
    if x < 0.96:
        return [r.randint(0, 9), r.choice(WORDS)]
    return Dbl(round(r.uniform(0, 10), 3))


def _user(r: random.Random) -> tuple[bool, Any]:
    x = r.random()
    if x < 0.03:
        return False, None                      # missing
    if x < 0.06:
        return True, None                       # JSON null
    if x < 0.11:
        return True, "anonymous"                # a non-object
    if x < 0.13:
        return True, [r.randint(1, 400), r.choice(NAMES)]
    uid: Any = r.randint(1, 400)
    y = r.random()
    if y < 0.04:
        uid = str(uid)                          # numeric string id
    elif y < 0.05:
        uid = f"anon-{uid}"                     # non-numeric id
    user: dict[str, Any] = {"id": uid, "name": r.choice(NAMES)}
    if r.random() < 0.90:
        user["tier"] = r.choice(TIERS)
    if r.random() < 0.05:
        user["vip"] = True
    if r.random() < 0.05:
        user["email"] = f"user{r.randint(1, 400)}@example.com"
    return True, user


def _geo(r: random.Random) -> tuple[bool, Any]:
    x = r.random()
    if x < 0.05:
        return True, None
    if x < 0.08:
        return True, r.choice(COUNTRIES)        # a string instead of an object
    if x < 0.12:
        return False, None
    geo: dict[str, Any] = {"country": r.choice(COUNTRIES)}
    if r.random() < 0.9:
        geo["lat"] = _dec(r, -60, 70, 6) if r.random() < 0.95 else Dbl(round(r.uniform(-60, 70), 4))
    geo["lon"] = _dec(r, -170, 170, 6)
    if r.random() < 0.1:
        geo["city"] = r.choice(["Paris", "Tokyo", "Lagos", "Lima"])
    return True, geo


def _non_object(r: random.Random, n: int) -> Any:
    return r.choice([
        [1, "two", {"three": 3}, None, Dbl(4.5)],
        "malformed event",
        n,
        True,
        [{"id": n, "user": {"id": r.randint(1, 400), "name": r.choice(NAMES)}}, "not an object"],
        {},
        [],
        _dec(r, 0, 10, 2),
    ])


def event(r: random.Random, n: int) -> str | None:
    """The JSON text of row ``n`` (None for a SQL NULL row)."""
    x = r.random()
    if x < 0.025:
        return None
    if x < 0.045:
        return "null"
    if x < 0.085:
        return dumps(_non_object(r, n))
    ev: dict[str, Any] = {"id": n, "seq": n * 10_000_019}
    ev["type"] = r.choice(TYPES) if r.random() > 0.01 else 7
    day = r.randint(1, 28)
    ev["ts"] = f"2024-03-{day:02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z"
    ev["day"] = f"2024-03-{day:02d}"
    present, user = _user(r)
    if present:
        ev["user"] = user
    present, geo = _geo(r)
    if present:
        ev["geo"] = geo
    y = r.random()
    if y < 0.70:
        ev["items"] = [_item(r) for _ in range(r.randint(0, 4))]
    elif y < 0.75:
        ev["items"] = {}
    elif y < 0.78:
        ev["items"] = "none"
    if r.random() < 0.5:
        ev["tags"] = [_tag(r) for _ in range(r.randint(0, 5))]
    s = r.random()
    if s < 0.60:
        ev["score"] = Dbl(round(r.uniform(0, 100), 3))
    elif s < 0.70:
        ev["score"] = _dec(r, 0, 100, 2)
    elif s < 0.75:
        ev["score"] = r.randint(0, 100)
    a = r.random()
    if a < 0.6:
        ev["amount"] = _dec(r, 0, 1_000_000, 4)
    elif a < 0.65:
        ev["amount"] = r.randint(10**19, 10**20)     # beyond int64: a decimal(20,0) for parse_json
    f = r.random()
    if f < 0.8:
        ev["flag"] = r.random() < 0.5
    elif f < 0.85:
        ev["flag"] = "yes"
    if r.random() < 0.35:
        ev["attrs"] = {"color": r.choice(COLORS), "size-cm": r.randint(1, 300), "a.b": "dot"} \
            if r.random() < 0.85 else {}
    rf = r.random()
    if rf < 0.2:
        ev["referrer"] = None
    elif rf < 0.4:
        ev["referrer"] = r.choice(["google", "news", "email"])
    if r.random() < 0.1:
        ev["note"] = "Long note: " + " ".join(r.choice(WORDS) for _ in range(12)) + " – ünïcödé ✓"
    if r.random() < 0.2:
        ev["nested"] = {"l1": {"l2": {"l3": {"v": r.randint(0, 9)}}}} if r.random() < 0.9 \
            else {"l1": {"l2": "flat"}}
    if r.random() < 0.03:
        ev["empty"] = {}
    return dumps(ev)


def rows(n: int = ROWS, seed: int = SEED) -> list[tuple[int, str | None]]:
    r = random.Random(seed)
    return [(i, event(r, i)) for i in range(1, n + 1)]


T = Typed
# File 0: rich, typed the "natural" way; missing fields as present groups with null leaves.
FILE_A = DraftFile(
    Obj({
        "id": T("int64"), "seq": T("int64"), "type": T("string"), "ts": T("string"),
        "user": Obj({"id": T("int64"), "name": T("string"), "tier": T("string")}),
        "geo": Obj({"country": T("string"), "lat": T("decimal(9,6)"), "lon": T("decimal(9,6)")}),
        "items": Arr(Obj({"sku": T("string"), "qty": T("int64"), "price": T("decimal(9,2)")})),
        "tags": Arr(T("string")),
        "score": T("double"),
        "amount": T("decimal(38,4)"),
        "flag": T("boolean"),
        "nested": Obj({"l1": Obj({"l2": Obj({"l3": Obj({"v": T("int64")})})})}),
    }),
    Options(missing="null_fields", untyped_first=True),
    row_group_size=400,
)
# File 1: other types for the same paths (user.id as string, id as decimal, geo as a string leaf,
# qty as string), tags/seq/ts/amount not in the schema (residual); missing fields as null groups;
# typed_value before untyped_value; decimals stored as INT32/INT64.
FILE_B = DraftFile(
    Obj({
        "id": T("decimal(18,0)"), "type": T("string"), "day": T("string"),
        "user": Obj({"id": T("string"), "name": T("string")}),
        "geo": T("string"),
        "items": Arr(Obj({"sku": T("string"), "qty": T("string"), "price": T("decimal(12,4)")})),
        "score": Untyped(),
        "attrs": Obj({"color": T("string"), "size-cm": T("int64"), "a.b": T("string")}),
        "referrer": T("string"),
        "nested": Obj({"l1": Untyped()}),
        "flag": T("boolean"),
    }),
    Options(missing="null_group", untyped_first=False),
    decimals_as_integers=True,
)
# File 2: mostly binary; user untyped, items an array of untyped elements, tags shredded as objects
# (most tags are strings -> untyped), score as decimal (doubles -> untyped), amount as double
# (decimals -> untyped), flag as string, geo with only country.
FILE_C = DraftFile(
    Obj({
        "id": T("int64"), "ts": T("string"), "note": T("string"),
        "user": Untyped(),
        "items": Arr(Untyped()),
        "tags": Arr(Obj({"k": T("string")})),
        "score": T("decimal(10,3)"),
        "amount": T("double"),
        "flag": T("string"),
        "geo": Obj({"country": T("string")}),
        "empty": Obj({"never": T("int64")}),
    }),
    Options(missing="null_fields", untyped_first=True),
    row_group_size=250,
)
FILES = [FILE_A, FILE_B, FILE_C]


def write_all(shredded_dir: str, truth_dir: str, n: int = ROWS) -> list[tuple[int, str | None]]:
    """Write the three draft files into ``shredded_dir`` and the ground truth into ``truth_dir``."""
    data = rows(n)
    os.makedirs(shredded_dir, exist_ok=True)
    os.makedirs(truth_dir, exist_ok=True)
    for k, spec in enumerate(FILES):
        part = [row for row in data if row[0] % 3 == k]
        write_draft(os.path.join(shredded_dir, f"part-{k}.parquet"), part, spec)
        write_truth(os.path.join(truth_dir, f"part-{k}.parquet"), part)
    return data


if __name__ == "__main__":  # print the Parquet schemas and a few rows
    import sys
    import tempfile
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    data = write_all(os.path.join(out, "shredded"), os.path.join(out, "truth"))
    for k in range(3):
        path = os.path.join(out, "shredded", f"part-{k}.parquet")
        print(path)
        print(parquet_schema(path))
    for row in data[:5]:
        print(row)
