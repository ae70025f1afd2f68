"""SNS subscription filter policies: parsed and checked once, then matched against a message's
attributes (FilterPolicyScope MessageAttributes) or its JSON body (MessageBody).

A policy is a JSON object; each key names an attribute (or, for the body, a property, nested
objects nesting the keys) and holds a list of conditions, one of which must match - every key
must match. Conditions: a string, number, true or false (exact), null (body only), and the operators
`prefix`, `suffix`, `equals-ignore-case`, `anything-but` (a value, a list, or `{"prefix"|"suffix"|
"equals-ignore-case": ...}`), `numeric` (`=`, `<`, `<=`, `>`, `>=`, and ranges of two),
`exists`, `cidr`; `$or` holds a list of alternative policies. A message value that is a list
(String.Array, or an array in the body) matches when one of its elements does.

Errors are `FilterPolicyError` with the text AWS puts after "Invalid parameter: FilterPolicy: "
(its `bare` ones stand alone). AWS adds the place it stopped in the JSON ("\\n at [Source: ...;
line: 1, column: N]") to the parsing ones; onceflow leaves that out.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_KEYS = 5  # keys per policy, in either scope
MAX_COMBINATIONS = 150
MAX_NUMBER = 1e9  # AWS accepts numbers between -10^9 and 10^9
NUMERIC_OPS = ("=", "<", "<=", ">", ">=")
DECIMALS = 5  # "five digits of accuracy after the decimal point" (AWS's filter policy constraints)
_MISSING = object()


class FilterPolicyError(ValueError):
    bare = False  # AWS puts "FilterPolicy: " before the text


class NestedInAttributesError(FilterPolicyError):
    bare = True  # AWS's text stands alone

    def __init__(self) -> None:
        super().__init__("Filter policy scope MessageAttributes does not support nested filter policy")


@dataclass(frozen=True)
class Condition:
    kind: str  # exact, bool, null, prefix, suffix, ignore-case, anything-but, numeric, exists, cidr
    value: Any = None


Conditions = tuple[Condition, ...]
Node = dict[str, Any]  # key -> Conditions or a nested Node (the body scope)


@dataclass(frozen=True)
class FilterPolicy:
    alternatives: tuple[Node, ...]  # $or expanded: the message matches when one alternative does
    body: bool

    def matches_attributes(self, attributes: Mapping[str, Mapping[str, Any]]) -> bool:
        """attributes: SNS message attributes ({"DataType", "StringValue" | "BinaryValue"})."""
        values = {name: _attribute_value(a) for name, a in attributes.items()}
        return any(_match_node(alt, values) for alt in self.alternatives)

    def matches_body(self, message: str) -> bool:
        try:
            doc = json.loads(message)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser: no body to match
            return False
        return isinstance(doc, dict) and any(_match_node(alt, doc) for alt in self.alternatives)


def compile_policy(text: str, scope: str = "MessageAttributes") -> FilterPolicy:
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # nested past Python's parser: refused as unparsable (UNCONFIRMED)
        raise FilterPolicyError("failed to parse JSON.") from None
    if not isinstance(doc, dict):
        raise FilterPolicyError("Filter policy must be a JSON object")
    body = scope == "MessageBody"
    try:
        alternatives = tuple(_expand(doc, body, top=True))
    except RecursionError:  # parsed, but nested deeper than the walk's frames (AWS's words UNCONFIRMED)
        raise FilterPolicyError("Filter policy is too complex") from None
    # Both scopes hold a policy to 5 keys (AWS-recorded for a flat MessageBody policy too); a nested
    # body policy counts its leaves here: UNCONFIRMED against AWS's "only parent keys are counted".
    if any(_count_keys(a) > MAX_KEYS for a in alternatives):
        raise FilterPolicyError("Filter policy can not have more than 5 keys")
    combos = sum(_combinations(a) for a in alternatives)
    if combos > MAX_COMBINATIONS:
        raise FilterPolicyError("Filter policy is too complex")
    return FilterPolicy(alternatives, body)


# ---------------------------------------------------------------------------------- parsing
def _expand(doc: dict[str, Any], body: bool, top: bool = False) -> list[Node]:
    """The policy's alternatives: `$or` multiplies them out into plain AND-nodes."""
    if not doc:
        raise FilterPolicyError("Filter policy can not be empty" if top else "Empty object is not allowed")
    partial: list[Node] = [{}]
    for key, value in doc.items():
        if key == "$or":
            if not isinstance(value, list) or len(value) < 2:
                raise FilterPolicyError("$or must be an array of at least two objects")
            options: list[Node] = []
            for item in value:
                if not isinstance(item, dict):
                    raise FilterPolicyError("$or must be an array of at least two objects")
                options.extend(_expand(item, body))
            partial = [_merge(p, o) for p in partial for o in options]
            continue
        if isinstance(value, dict):
            nested = _expand(value, True)  # its own mistakes first, as AWS checks them
            if not body:
                raise NestedInAttributesError()  # nesting is for the body
            partial = [_merge(p, {key: n}) for p in partial for n in nested]
            continue
        if not isinstance(value, list):
            raise FilterPolicyError(f'"{key}" must be an object or an array')
        conditions = tuple(_condition(key, item, body) for item in value)
        if not conditions:
            raise FilterPolicyError(f'"{key}" must not be an empty array')
        partial = [_merge(p, {key: conditions}) for p in partial]
    return partial


def _merge(a: Node, b: Node) -> Node:
    out = dict(a)
    for key, value in b.items():
        if key in out and isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = _merge(out[key], value)
        elif key in out and isinstance(out[key], tuple) and isinstance(value, tuple):
            # The same key in two places of an $or alternative: both must hold (AND of lists).
            out[key] = ("and", out[key], value)
        else:
            out[key] = value
    return out


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FilterPolicyError(f"Value of {what} must be numeric")
    if not -MAX_NUMBER <= value <= MAX_NUMBER:
        raise FilterPolicyError("Numeric values must be between -1.0E9 and 1.0E9 inclusive")
    return _accurate(float(value))


def _accurate(number: float) -> float:
    """A number as SNS compares it: to five digits after the decimal point, policy and message alike."""
    return round(number, DECIMALS)


def _string(value: Any, operator: str) -> str:
    if not isinstance(value, str):
        raise FilterPolicyError(f"{operator} match pattern must be a string")
    return value


def _condition(key: str, item: Any, body: bool) -> Condition:
    if item is None:
        if not body:
            raise FilterPolicyError("Null not allowed for a match type on message attributes")  # body only
        return Condition("null")
    if isinstance(item, bool):
        return Condition("bool", item)
    if isinstance(item, str):
        return Condition("exact", item)
    if isinstance(item, int | float):
        return Condition("numeric", (("=", _number(item, "numeric")),))
    if isinstance(item, list):
        raise FilterPolicyError("Match value must be String, number, true, false, or null")
    if not isinstance(item, dict) or len(item) != 1:
        raise FilterPolicyError("Only one key allowed in match expression")
    (operator, arg), = item.items()
    if operator == "prefix":
        return Condition("prefix", _string(arg, "prefix"))
    if operator == "suffix":
        return Condition("suffix", _string(arg, "suffix"))
    if operator == "equals-ignore-case":
        return Condition("ignore-case", _string(arg, "equals-ignore-case").lower())
    if operator == "exists":
        if not isinstance(arg, bool):
            raise FilterPolicyError("exists match pattern must be either true or false.")
        return Condition("exists", arg)
    if operator == "numeric":
        return Condition("numeric", _numeric(arg))
    if operator == "cidr":
        try:
            return Condition("cidr", ipaddress.ip_network(_string(arg, "cidr"), strict=False))
        except ValueError:
            raise FilterPolicyError("Malformed CIDR, one '/' required") from None
    if operator == "anything-but":
        return Condition("anything-but", _anything_but(arg))
    raise FilterPolicyError(f"Unrecognized match type {operator}")


def _numeric(arg: Any) -> tuple[tuple[str, float], ...]:
    """A `numeric` condition, read left to right as AWS reads it, each mistake worded as AWS words
    it where it stops (LocalStack's AWS-recorded test_validate_policy_numeric_operator)."""
    if not isinstance(arg, list):
        raise FilterPolicyError("Value of numeric must be an array.")
    items = list(arg)
    if not items or not isinstance(items[0], str):
        raise FilterPolicyError(f"Invalid member in numeric match: {_token(items[0]) if items else ']'}")
    first = items[0]
    if first not in NUMERIC_OPS:
        raise FilterPolicyError(f"Unrecognized numeric range operator: {first}")
    low = _numeric_value(first, items, 1)
    if first in ("=", "<", "<="):
        if len(items) > 2:
            raise FilterPolicyError("Too many elements in numeric expression")
        return ((first, low),)
    if len(items) == 2:
        return ((first, low),)
    second = items[2]
    if not isinstance(second, str):
        raise FilterPolicyError(f"Bad value in numeric range: {_token(second)}")
    if second not in ("<", "<="):
        raise FilterPolicyError(f"Bad numeric range operator: {second}")
    high = _numeric_value(second, items, 3)
    if len(items) > 4:
        raise FilterPolicyError("Too many terms in numeric range expression")
    if low >= high:
        raise FilterPolicyError("Bottom must be less than top")
    return ((first, low), (second, high))


def _numeric_value(op: str, items: list[Any], index: int) -> float:
    what = "equals" if op == "=" else op
    return _number(items[index] if index < len(items) else None, what)


def _token(value: Any) -> str:
    """A JSON value as AWS quotes it in a numeric-match error: the text of the token it stopped at."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "["
    if isinstance(value, dict):
        return "{"
    return json.dumps(value)


def _anything_but(arg: Any) -> tuple[str, Any]:
    if isinstance(arg, dict):
        if len(arg) != 1:
            raise FilterPolicyError("Only one key allowed in match expression")
        (op, value), = arg.items()
        if op == "prefix":
            return "prefix", _string(value, "prefix")
        if op == "suffix":
            return "suffix", _string(value, "suffix")
        if op == "equals-ignore-case":
            values = value if isinstance(value, list) else [value]
            return "ignore-case", frozenset(_string(v, "equals-ignore-case").lower() for v in values)
        raise FilterPolicyError(f"Unsupported anything-but pattern: {op}")
    values = arg if isinstance(arg, list) else [arg]
    strings, numbers = set(), set()
    for v in values:
        if isinstance(v, str):
            strings.add(v)
        elif isinstance(v, int | float) and not isinstance(v, bool):
            numbers.add(_number(v, "anything-but"))
        else:
            raise FilterPolicyError("Value of anything-but must be an array or single string/number value.")
    return "values", (frozenset(strings), frozenset(numbers))


def _count_keys(node: Node) -> int:
    return sum(_count_keys(v) if isinstance(v, dict) else 1 for v in node.values())


def _combinations(node: Node, depth: int = 1) -> int:
    """AWS's complexity: the product over the leaves of their values times their depth (AWS's guide
    counts {"key_a": {"key_b": {"key_c": [4 values]}}, "key_d": {"key_e": [3]}, "key_f": [3]} as
    3 x 4 x 2 x 3 x 1 x 3 = 216, over the limit of 150)."""
    total = 1
    for value in node.values():
        if isinstance(value, dict):
            total *= _combinations(value, depth + 1)
        elif isinstance(value, tuple) and value and value[0] == "and":
            total *= len(value[1]) * len(value[2]) * depth
        else:
            total *= len(value) * depth
    return total


# ---------------------------------------------------------------------------------- matching
def _attribute_value(attribute: Mapping[str, Any]) -> Any:
    """A message attribute as the matcher sees it: Number -> float, String.Array -> list."""
    data_type = str(attribute.get("DataType", "String"))
    text = attribute.get("StringValue")
    if data_type.startswith("Binary"):
        return ("binary",)  # present, but no operator but `exists` applies to it
    if text is None:
        return _MISSING
    if data_type.startswith("Number"):
        try:
            return _accurate(float(text))
        except ValueError:
            return text
    if data_type.startswith("String.Array"):
        try:
            values = json.loads(text)
        except ValueError:
            return text  # not JSON: a string, which no number matches
        # a JSON value that is not an array counts as a one-element array (a published "100" matches
        # [100, 500], as moto records of SNS)
        return values if isinstance(values, list) else [values]
    return text


def _match_node(node: Node, doc: Mapping[str, Any]) -> bool:
    for key, spec in node.items():
        value = doc.get(key, _MISSING) if isinstance(doc, Mapping) else _MISSING
        if isinstance(spec, dict):
            if isinstance(value, list):
                if not any(isinstance(v, Mapping) and _match_node(spec, v) for v in value):
                    return False
            elif not isinstance(value, Mapping) or not _match_node(spec, value):
                return False
            continue
        if isinstance(spec, tuple) and spec and spec[0] == "and":
            if not (_match_key(spec[1], value) and _match_key(spec[2], value)):
                return False
            continue
        if not _match_key(spec, value):
            return False
    return True


def _match_key(conditions: Conditions, value: Any) -> bool:
    return any(_match(c, value) for c in conditions)


def _match(c: Condition, value: Any) -> bool:
    if c.kind == "exists":
        return bool((value is not _MISSING) == c.value)
    if value is _MISSING:
        return False
    if isinstance(value, list):
        if c.kind == "anything-but":  # no element may be among the excluded ones
            return all(_match(c, v) for v in value) if value else True
        return any(_match(c, v) for v in value)
    if c.kind == "null":
        return value is None
    if isinstance(value, tuple):  # a Binary attribute: only exists applies
        return False
    if c.kind == "exact":
        return isinstance(value, str) and value == c.value
    if c.kind == "bool":  # a JSON true/false in the body (an attribute's value is never one)
        return isinstance(value, bool) and value is c.value
    if c.kind == "prefix":
        return isinstance(value, str) and value.startswith(c.value)
    if c.kind == "suffix":
        return isinstance(value, str) and value.endswith(c.value)
    if c.kind == "ignore-case":
        return isinstance(value, str) and value.lower() == c.value
    if c.kind == "numeric":
        number = _as_number(value)
        return number is not None and all(_compare(op, number, bound) for op, bound in c.value)
    if c.kind == "cidr":
        try:
            return isinstance(value, str) and ipaddress.ip_address(value) in c.value
        except ValueError:
            return False
    if c.kind == "anything-but":
        how, arg = c.value
        if how == "values":
            strings, numbers = arg
            number = _as_number(value)
            if isinstance(value, str) and value in strings:
                return False
            return not (number is not None and not isinstance(value, str) and number in numbers)
        if not isinstance(value, str):
            return True  # a number is none of the excluded strings
        if how == "prefix":
            return not value.startswith(arg)
        if how == "suffix":
            return not value.endswith(arg)
        return value.lower() not in arg
    return False


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return _accurate(float(value))
    return None


def _compare(op: str, value: float, bound: float) -> bool:
    if op == "=":
        return value == bound
    if op == "<":
        return value < bound
    if op == "<=":
        return value <= bound
    if op == ">":
        return value > bound
    return value >= bound
