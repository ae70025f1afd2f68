"""DynamoDB's type system on AttributeValue dicts as the wire hands them to us.

A value is a one-key dict: {"S": str}, {"N": str}, {"B": bytes}, {"BOOL": bool}, {"NULL": True},
{"M": {name: value}}, {"L": [value]}, {"SS": [str]}, {"NS": [str]}, {"BS": [bytes]}. Numbers stay
strings, normalised the way DynamoDB stores them (exact, 38 significant digits, no padding zeros),
and are compared and added as exact Decimals.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable
from decimal import Context, Decimal
from typing import Any

from onceflow.ddb import errors
from onceflow.errors import validation_error

Value = dict[str, Any]
Item = dict[str, Value]

SCALAR_ORDERED = ("S", "N", "B")
MAX_ITEM_BYTES = 400 * 1024
MAX_NESTING = 32  # levels of a document, the attribute itself being the first
# Wide enough that the sum of any two storable numbers (exponents -130..125, 38 digits) is exact
# before we check the result's digits.
_CTX = Context(prec=400)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_LONG_EXPONENT = 2**63 - 1  # the largest exponent DynamoDB converts (a negative one may be one larger)
_HUGE_EXPONENT = 10**15  # past this a Decimal cannot hold the number; it is out of range anyway


# ---------------------------------------------------------------------------- numbers
def parse_number(text: str) -> Decimal:
    """The Decimal of an N string, or the ValidationException DynamoDB gives for it. DynamoDB reads the
    exponent in full: past a 64-bit integer it cannot be converted, and any exponent too large for a
    Decimal is far outside the range, on the side its sign says."""
    m = _NUMBER.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise errors.not_a_number(text)
    if m.group(2):
        written = m.group(2)[1:]
        negative = written.startswith("-")
        magnitude = written.lstrip("+-").lstrip("0")
        if len(magnitude) > 19 or int(magnitude or "0") > _LONG_EXPONENT + negative:
            raise errors.not_a_number(text)
        if int(magnitude or "0") > _HUGE_EXPONENT:
            raise errors.number_out_of_range(-1 if negative else 1)
    return Decimal(text)


def _check_range(d: Decimal) -> None:
    """DynamoDB's magnitudes: 1E-130 to 9.99...E+125 (a written zero is held to its own exponent)."""
    exp = d.adjusted()
    if exp > 125:
        raise errors.number_out_of_range(1)
    if exp < -130:
        raise errors.number_out_of_range(-1)


def format_number(d: Decimal) -> str:
    """DynamoDB's stored form: range and precision checked, leading/trailing zeros dropped."""
    if d.is_zero():
        return "0"
    digits = d.as_tuple().digits
    significant = len(digits)
    while digits[significant - 1] == 0:  # counted exactly, before any context could round
        significant -= 1
    if significant > 38:
        raise validation_error(errors.TOO_MANY_DIGITS)
    _check_range(d)  # before normalising, which could not hold an exponent far out of range
    return format(d.normalize(_CTX), "f")


def normalize_number(text: str) -> str:
    if text.__class__ is str and len(text) <= 64:  # a cache of short texts only: its memory stays small
        return _normalized(text)
    return _normalize(text)


# Keys and counters repeat the same few numbers, and their Decimal round trip (parse, check, render)
# is most of a GetItem's key work; the answer depends on the text alone. Errors are not cached.
@functools.lru_cache(maxsize=4096)
def _normalized(text: str) -> str:
    return _normalize(text)


def _normalize(text: str) -> str:
    d = parse_number(text)
    if d.is_zero():
        _check_range(d)
    return format_number(d)


def add_numbers(a: str, b: str, sign: int = 1) -> str:
    d = _CTX.add(Decimal(a), Decimal(b)) if sign > 0 else _CTX.subtract(Decimal(a), Decimal(b))
    return format_number(d)


# ---------------------------------------------------------------------------- validation
def check_text(x: str) -> str:
    """Strings are stored as UTF-8: a lone surrogate (a JSON "\\ud800" escape) cannot be."""
    if not x.isascii():
        try:
            x.encode()
        except UnicodeEncodeError:
            raise validation_error(errors.LONE_SURROGATE) from None
    return x


def normalize_value(v: Any) -> Value:
    """Check one AttributeValue and return it normalised (numbers re-rendered, nested too)."""
    if not isinstance(v, dict) or not v:
        raise validation_error(errors.EMPTY_ATTRIBUTE_VALUE)
    if len(v) != 1:
        raise validation_error(errors.MORE_THAN_ONE_TYPE)
    (kind, x), = v.items()
    if kind == "S":
        check_text(x)
        return v
    if kind == "BOOL":
        return v
    if kind == "B":
        # In-process callers (Step Functions tasks) pass binaries as base64 text, as JSON carries them.
        return {"B": base64.b64decode(x)} if isinstance(x, str) else v
    if kind == "N":
        return {"N": normalize_number(x)}
    if kind == "NULL":
        # Some regions briefly stored {"NULL": false} as {"NULL": true} (mid-2026); every region refuses it
        # again (paritysuite/dynamodb-conformance, ground-truth sweep of 2026-07-17).
        if x is not True:
            raise errors.null_not_true()
        return v
    if kind == "M":
        return {"M": {check_text(k): normalize_value(e) for k, e in x.items()}}
    if kind == "L":
        return {"L": [normalize_value(e) for e in x]}
    if kind in ("SS", "NS", "BS"):
        if not x:
            raise errors.empty_set(kind)
        elems = [normalize_number(e) for e in x] if kind == "NS" else list(x)
        if kind == "SS":
            for e in elems:
                check_text(e)
        if kind == "BS":
            elems = [base64.b64decode(e) if isinstance(e, str) else e for e in elems]
        if len(set(elems)) != len(elems):
            shown = ", ".join(_show(e) for e in x)
            raise errors.set_duplicates(shown)
        return {kind: elems}
    raise validation_error(errors.EMPTY_ATTRIBUTE_VALUE)


def _show(e: Any) -> str:
    return base64.b64encode(e).decode() if isinstance(e, bytes) else str(e)


def normalize_item(item: dict[str, Any]) -> Item:
    if "" in item:  # every name is looked at before any value
        raise validation_error(errors.EMPTY_ATTRIBUTE_NAME)
    out = {check_text(k): normalize_value(v) for k, v in item.items()}
    check_nesting(out.values())
    return out


def nesting(v: Value) -> int:
    """How many levels a value spans: 1 for a scalar or set, one more than its deepest element for a
    map or list."""
    (kind, x), = v.items()
    if kind == "M":
        return 1 + max((nesting(e) for e in x.values()), default=0)
    if kind == "L":
        return 1 + max((nesting(e) for e in x), default=0)
    return 1


def check_nesting(values: Iterable[Value]) -> None:
    """DynamoDB stores documents up to 32 levels deep (the attribute is level 1)."""
    if any(nesting(v) > MAX_NESTING for v in values):
        raise validation_error(errors.NESTING_EXCEEDED)


# ---------------------------------------------------------------------------- equality and order
def type_of(v: Value) -> str:
    return next(iter(v))


def values_equal(a: Value | None, b: Value | None) -> bool:
    if a is None or b is None:
        return False
    (ka, xa), = a.items()
    (kb, xb), = b.items()
    if ka != kb:
        return False
    if ka == "N":
        return Decimal(xa) == Decimal(xb)
    if ka in ("SS", "BS"):
        return set(xa) == set(xb)
    if ka == "NS":
        return {Decimal(e) for e in xa} == {Decimal(e) for e in xb}
    if ka == "L":
        return len(xa) == len(xb) and all(values_equal(p, q) for p, q in zip(xa, xb, strict=True))
    if ka == "M":
        return xa.keys() == xb.keys() and all(values_equal(xa[k], xb[k]) for k in xa)
    return bool(xa == xb)


def compare(a: Value | None, b: Value | None) -> int | None:
    """-1/0/1 for two values of the same ordered type (S, N, B), None when they cannot be ordered.

    Strings order by their UTF-8 bytes, binaries by bytes, numbers numerically."""
    if a is None or b is None:
        return None
    (ka, xa), = a.items()
    (kb, xb), = b.items()
    if ka != kb or ka not in SCALAR_ORDERED:
        return None
    if ka == "N":
        da, db = Decimal(xa), Decimal(xb)
    elif ka == "S":
        da, db = xa.encode(), xb.encode()
    else:
        da, db = xa, xb
    return (da > db) - (da < db)


# ---------------------------------------------------------------------------- size
def number_size(text: str) -> int:
    """Bytes DynamoDB counts for a number: one, plus one per two significant digits on each side of
    the decimal point (a pair never straddles it), plus one for a minus sign. Zeros that only place
    the point (1E125's, 0.001's) are not significant; zero itself is one byte."""
    d = Decimal(text)
    if not d:
        return 1
    sign, digits, exp = d.normalize(_CTX).as_tuple()
    exp = int(exp)  # finite here: NaN and infinities are not DynamoDB numbers
    n, point = len(digits), len(digits) + exp  # point: digits before the decimal point
    if exp >= 0:
        whole, fraction = n, 0
    elif point <= 0:
        whole, fraction = 0, n
    else:
        whole, fraction = point, n - point
    return 1 + (whole + 1) // 2 + (fraction + 1) // 2 + sign


def value_size(v: Value) -> int:
    (kind, x), = v.items()
    if kind == "S":
        return len(x.encode())
    if kind == "N":
        return number_size(x)
    if kind == "B":
        return len(x)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(e.encode()) for e in x)
    if kind == "NS":
        return sum(number_size(e) for e in x)
    if kind == "BS":
        return sum(len(e) for e in x)
    if kind == "L":
        return 3 + sum(value_size(e) + 1 for e in x)
    return 3 + sum(len(k.encode()) + value_size(e) + 1 for k, e in x.items())


def item_size(item: Item) -> int:
    """DynamoDB's item size: attribute names plus values (UTF-8 bytes, numbers ~1 byte per 2 digits)."""
    return sum(len(k.encode()) + value_size(v) for k, v in item.items())


# ---------------------------------------------------------------------------- JSON storage
def _b64(o: Any) -> str:
    if isinstance(o, bytes):
        return base64.b64encode(o).decode()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _unb64(d: dict[str, Any]) -> dict[str, Any]:
    # Only a binary AttributeValue is a one-key dict "B"/"BS" holding a str/list of str; a map
    # attribute named "B" holds a dict instead.
    if len(d) == 1:
        if "B" in d and isinstance(d["B"], str):
            return {"B": base64.b64decode(d["B"])}
        if "BS" in d and isinstance(d["BS"], list):
            return {"BS": [base64.b64decode(e) for e in d["BS"]]}
    return d


def dumps(item: Item) -> str:
    return json.dumps(item, default=_b64, separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> Item:
    if '"B' not in text:
        return json.loads(text)
    return json.loads(text, object_hook=_unb64)
