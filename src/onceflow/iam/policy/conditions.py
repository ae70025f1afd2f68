"""Condition operators: String*, Numeric*, Date*, Bool, Binary, IpAddress, Arn*, Null, with the
IfExists suffix and the ForAnyValue:/ForAllValues: set prefixes.

The request context maps lower-cased condition keys to a list of string values. A clause evaluates to
True or False, or to None for an operator IAM does not define: the statement then does not apply,
so an unknown operator can never grant anything.
"""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # document.py imports validation.py, which imports this module
    from onceflow.iam.policy.document import ConditionClause
from onceflow.iam.policy.matching import arn_matches, glob_match

Context = Mapping[str, list[str]]
# Resolves policy variables (${aws:username}) in a policy value; None when a variable is unresolved.
Substitute = Callable[[str], str | None]
Matcher = Callable[[str, str], bool]  # (policy value, request value) -> match


def _num(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _date(text: str) -> datetime | None:
    try:
        if text.replace(".", "", 1).isdigit():
            return datetime.fromtimestamp(float(text), UTC)
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _compare(parse: Callable[[str], object | None], test: Callable[[object, object], bool]) -> Matcher:
    def match(policy: str, request: str) -> bool:
        a, b = parse(request), parse(policy)
        return a is not None and b is not None and test(a, b)

    return match


def _ip(policy: str, request: str) -> bool:
    try:
        return ipaddress.ip_address(request) in ipaddress.ip_network(policy, strict=False)
    except ValueError:
        return False


def _binary(policy: str, request: str) -> bool:
    try:
        return base64.b64decode(policy, validate=True) == base64.b64decode(request, validate=True)
    except ValueError:
        return False


_EQ, _LT, _LE = (lambda a, b: a == b), (lambda a, b: a < b), (lambda a, b: a <= b)
_GT, _GE = (lambda a, b: a > b), (lambda a, b: a >= b)

# operator -> (matcher, negated). A negated operator holds when no policy value matches.
OPERATORS: dict[str, tuple[Matcher, bool]] = {
    "StringEquals": (lambda p, r: p == r, False),
    "StringNotEquals": (lambda p, r: p == r, True),
    "StringEqualsIgnoreCase": (lambda p, r: p.lower() == r.lower(), False),
    "StringNotEqualsIgnoreCase": (lambda p, r: p.lower() == r.lower(), True),
    "StringLike": (lambda p, r: glob_match(p, r), False),
    "StringNotLike": (lambda p, r: glob_match(p, r), True),
    "NumericEquals": (_compare(_num, _EQ), False),
    "NumericNotEquals": (_compare(_num, _EQ), True),
    "NumericLessThan": (_compare(_num, _LT), False),
    "NumericLessThanEquals": (_compare(_num, _LE), False),
    "NumericGreaterThan": (_compare(_num, _GT), False),
    "NumericGreaterThanEquals": (_compare(_num, _GE), False),
    "DateEquals": (_compare(_date, _EQ), False),
    "DateNotEquals": (_compare(_date, _EQ), True),
    "DateLessThan": (_compare(_date, _LT), False),
    "DateLessThanEquals": (_compare(_date, _LE), False),
    "DateGreaterThan": (_compare(_date, _GT), False),
    "DateGreaterThanEquals": (_compare(_date, _GE), False),
    "Bool": (lambda p, r: p.lower() == r.lower(), False),
    "BinaryEquals": (_binary, False),
    "IpAddress": (_ip, False),
    "NotIpAddress": (_ip, True),
    "ArnEquals": (arn_matches, False),
    "ArnLike": (arn_matches, False),
    "ArnNotEquals": (arn_matches, True),
    "ArnNotLike": (arn_matches, True),
}


def split_operator(operator: str) -> tuple[str | None, str, bool]:
    """'ForAnyValue:StringLikeIfExists' -> ('ForAnyValue', 'StringLike', True)."""
    qualifier = None
    if ":" in operator:
        qualifier, operator = operator.split(":", 1)
    if_exists = operator.endswith("IfExists") and operator != "IfExists"
    if if_exists:
        operator = operator[: -len("IfExists")]
    return qualifier, operator, if_exists


def is_known(operator: str) -> bool:
    qualifier, base, if_exists = split_operator(operator)
    if qualifier not in (None, "ForAnyValue", "ForAllValues"):
        return False
    if base == "Null":
        return not if_exists and qualifier is None
    return base in OPERATORS


def evaluate(clause: ConditionClause, context: Context, substitute: Substitute) -> bool | None:
    """True/False for the clause against the request context; None for an unknown operator."""
    if not is_known(clause.operator):
        return None
    qualifier, base, if_exists = split_operator(clause.operator)
    present = context.get(clause.key.lower())
    if base == "Null":
        absent = not present
        return any((v.lower() == "true") == absent for v in clause.values)
    matcher, negated = OPERATORS[base]
    wanted = [v for v in (substitute(v) for v in clause.values) if v is not None]

    def matches(request_value: str) -> bool:
        hit = any(matcher(p, request_value) for p in wanted)
        return not hit if negated else hit

    if qualifier == "ForAllValues":
        return all(matches(v) for v in present or ())
    if qualifier == "ForAnyValue":
        return any(matches(v) for v in present or ())
    if not present:
        return if_exists or negated
    if negated:
        return all(matches(v) for v in present)
    return any(matches(v) for v in present)
