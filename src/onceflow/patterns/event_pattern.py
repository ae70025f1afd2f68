"""EventBridge event patterns: compiled once, matched against many events.

The language as AWS documents it ("Amazon EventBridge event patterns", "content filtering"):
a pattern is a JSON object whose leaves are arrays of match values; an event matches when every
leaf of the pattern finds one of its values in the event (the values of one array are OR-ed).
A match value is a literal (string, number, true, false, null) or a one-key object: `prefix`
(or `{"prefix": {"equals-ignore-case": ..}}`), `suffix` (likewise), `anything-but` (a value,
a list of strings or of numbers, or `{prefix|suffix|equals-ignore-case|wildcard: value or list}`),
`numeric` (`["=", n]` or one or two bounds), `exists`, `equals-ignore-case`, `wildcard`, `cidr`;
`$or` takes two or more objects, each an alternative for its level.

Semantics that follow AWS's matcher (aws/event-ruler), written down since they surprise:
- An array in the event matches when any of its elements does; when a pattern object holds several
  fields under an array of objects, they must all match in the same element.
- Numbers compare by value (`5` matches `5.0`); a string "5" is not the number 5.
- `exists` looks at leaves only: a field holding an object or an empty array does not exist.
- `anything-but` needs the field present and matches a value none of its values match (a number is
  never equal to a string, so `{"anything-but": "a"}` matches 7 and null).
- A string match value that is an IP address matches the same address however it is written.

Bad patterns raise PatternError with the reason AWS gives; the service prefixes "Event pattern is not
valid. Reason: ". Text that is not JSON, and JSON that is not an object, get Jackson's words with its
location (`\\n at [Source: (String)"..."; line: L, column: C]`, patterns/jackson.py), as AWS recorded. The
other reasons end with the same suffix: where AWS's compiler (event-ruler, reading the text with Jackson's
streaming parser) stood when the rule failed: patterns/pattern_location.py holds PatternError and that
reader's position around each value, and says what its moments mean. The moments of LocalStack's
AWS-recorded `_EXC` patterns (test_events_patterns) are followed; the others are UNCONFIRMED. CIDR
reasons carry no location (recorded for "Malformed CIDR, one '/' required"), and a refusal inside an
anything-but list carries it twice, as recorded.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Iterable
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from onceflow.patterns.glob import STAR, Glob
from onceflow.patterns.jackson import source_location, text_refusal
from onceflow.patterns.pattern_location import END, FIELD, PatternError, at, locate, second_key

# PatternError lives in pattern_location.py; events/ and lambda_/ import it from here
__all__ = ["EventPattern", "PatternError", "compile_pattern", "compile_pattern_value", "matches", "parse"]

Leaf = Any  # str, int/float/Decimal, bool or None: a JSON scalar from the event
Test = Callable[[Leaf], bool]

OR = "$or"
_RESERVED_IN_OR = frozenset({
    "anything-but", "exists", "numeric", "prefix", "suffix", "equals-ignore-case", "wildcard", "cidr",
    "exact",
})



def _is_number(v: Any) -> bool:
    return isinstance(v, int | float | Decimal) and not isinstance(v, bool)


def _decimal(v: Any) -> Decimal | None:
    try:
        d = v if isinstance(v, Decimal) else Decimal(str(v))
    except (InvalidOperation, ValueError):
        return None
    return d if d.is_finite() else None


def _num(v: Any) -> Decimal:
    """A pattern's number as a Decimal of its shortest text (0.1 is 0.1, not the binary float's expansion)."""
    return v if isinstance(v, Decimal) else Decimal(str(v))


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not text or not (text[0].isdigit() or text[0] in ":abcdefABCDEF"):
        return None
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


# ------------------------------------------------------------------------------------- matchers
def _exact_string(s: str) -> Test:
    ip = _ip(s)
    if ip is None:
        return lambda v: v == s and isinstance(v, str)
    return lambda v: isinstance(v, str) and (v == s or _ip(v) == ip)


def _exact_number(n: Decimal) -> Test:
    return lambda v: _is_number(v) and _decimal(v) == n


def _exact_constant(c: bool | None) -> Test:
    return lambda v: v is c


def _prefix(p: str, ignore_case: bool = False) -> Test:
    if ignore_case:
        folded = p.casefold()
        return lambda v: isinstance(v, str) and v.casefold().startswith(folded)
    return lambda v: isinstance(v, str) and v.startswith(p)


def _suffix(p: str, ignore_case: bool = False) -> Test:
    if ignore_case:
        folded = p.casefold()
        return lambda v: isinstance(v, str) and v.casefold().endswith(folded)
    return lambda v: isinstance(v, str) and v.endswith(p)


def _equals_ignore_case(s: str) -> Test:
    folded = s.casefold()
    return lambda v: isinstance(v, str) and v.casefold() == folded


def _wildcard_glob(text: str) -> Glob:
    """`*` any run of characters; `\\*` and `\\\\` literal; any other backslash, or `**`, is refused."""
    tokens: list[object] = []
    data = text.encode()
    i = 0
    # Positions are UTF-8 byte offsets, as AWS reports them.
    while i < len(data):
        c = data[i:i + 1]
        if c == b"*":
            if data[i + 1:i + 2] == b"*":  # AWS names the second star ([AWS] recorded: pos 26 for "...:**")
                raise PatternError(f"Consecutive wildcard characters at pos {i + 1}", END)
            tokens.append(STAR)
        elif c == b"\\":
            nxt = data[i + 1:i + 2]
            if nxt not in (b"*", b"\\"):
                raise PatternError(f"Invalid escape character at pos {i}", END)
            tokens.append(nxt.decode())
            i += 1
        else:
            # Gather a whole UTF-8 character so tokens are characters, not bytes.
            j = i + 1
            while j < len(data) and (data[j] & 0xC0) == 0x80:
                j += 1
            tokens.append(data[i:j].decode())
            i = j
            continue
        i += 1
    return Glob(tokens)


def _wildcard(text: str) -> Test:
    glob = _wildcard_glob(text)
    return lambda v: isinstance(v, str) and glob.matches(v)


def _cidr(text: str) -> Test:
    parts = text.split("/")
    if len(parts) != 2:
        raise PatternError("Malformed CIDR, one '/' required", located=False)
    try:
        bits = int(parts[1])
    except ValueError:
        raise PatternError("Malformed CIDR, mask bits must be an integer", located=False) from None
    if bits < 0:
        raise PatternError("Malformed CIDR, mask bits must not be negative", located=False)
    ip = _ip(parts[0])
    if ip is None:
        raise PatternError(f"Nonstandard IP address: {parts[0]}", located=False)
    if ip.version == 4 and bits > 31:
        raise PatternError("IPv4 mask bits must be < 32", located=False)
    if ip.version == 6 and bits > 127:
        raise PatternError("IPv6 mask bits must be < 128", located=False)
    network = ipaddress.ip_network(f"{ip}/{bits}", strict=False)

    def test(v: Leaf) -> bool:
        if not isinstance(v, str):
            return False
        addr = _ip(v)
        return addr is not None and addr.version == network.version and addr in network
    return test


def _numeric(terms: list[Any]) -> Test:
    def number(k: int, op: str) -> Decimal:
        if k >= len(terms) or not _is_number(terms[k]):
            raise PatternError(f"Value of {op} must be numeric", (k, FIELD))
        return _num(terms[k])

    if not terms or not isinstance(terms[0], str):
        shown = _text(terms[0]) if terms else "]"
        raise PatternError(f"Invalid member in numeric match: {shown}", (0, END))
    op = terms[0]
    if op == "=":
        n = number(1, "equals")
        if len(terms) > 2:
            raise PatternError("Too many elements in numeric expression", (2, FIELD))
        return _exact_number(n)
    if op in ("<", "<="):
        top = number(1, op)
        if len(terms) > 2:
            raise PatternError("Too many elements in numeric expression", (2, FIELD))
        return _range(None, False, top, op == "<")
    if op not in (">", ">="):
        raise PatternError(f"Unrecognized numeric range operator: {op}", (0, END))
    bottom = number(1, op)
    if len(terms) == 2:
        return _range(bottom, op == ">", None, False)
    if not isinstance(terms[2], str):
        raise PatternError(f"Bad value in numeric range: {_text(terms[2])}", (2, END))
    op2 = terms[2]
    if op2 not in ("<", "<="):
        raise PatternError(f"Bad numeric range operator: {op2}", (2, END))
    top = number(3, op2)
    if len(terms) > 4:
        raise PatternError("Too many terms in numeric range expression", (4, FIELD))
    return _range(bottom, op == ">", top, op2 == "<")


def _text(v: Any) -> str:
    """A JSON value as AWS's parser shows the token it stopped at."""
    return str(v) if isinstance(v, Decimal) else json.dumps(v, default=str)


def _range(bottom: Decimal | None, open_bottom: bool, top: Decimal | None, open_top: bool) -> Test:
    def test(v: Leaf) -> bool:
        if not _is_number(v):
            return False
        d = _decimal(v)
        if d is None:
            return False
        if bottom is not None and (d <= bottom if open_bottom else d < bottom):
            return False
        return top is None or (d < top if open_top else d <= top)
    return test


def _none_of(tests: list[Test]) -> Test:
    return lambda v: not any(t(v) for t in tests)


_ANYTHING_BUT_MAKERS: dict[str, Callable[[str], Test]] = {
    "equals-ignore-case": _equals_ignore_case, "prefix": _prefix, "suffix": _suffix, "wildcard": _wildcard,
}


def _anything_but_item(op: str, item: Any, index: int | None) -> None:
    """index: the item's place in a list (a refusal there is located twice, as AWS recorded), or None
    for a single value. A string is refused once read, anything else on its first token."""
    twice = index is not None
    if not isinstance(item, str):
        raise PatternError({
            "equals-ignore-case": "Inside anything-but/equals-ignore-case list, "
                                  "number|start|null|boolean is not supported.",
            "wildcard": "wildcard match pattern must be a string",
        }.get(op, "prefix/suffix match pattern must be a string"), FIELD if index is None else (index, FIELD),
            twice=twice)
    if op in ("prefix", "suffix") and not item:
        raise PatternError("Null prefix/suffix not allowed", END if index is None else (index, END), twice=twice)


def _anything_but_of(arg: dict[str, Any]) -> Test:
    """`{"anything-but": {prefix|suffix|equals-ignore-case|wildcard: a string or a list of them}}`."""
    if not arg:
        raise PatternError("Anything-But expression name not found", END)
    op, value = next(iter(arg.items()))
    with at(arg, op):
        if op not in _ANYTHING_BUT_MAKERS:
            raise PatternError(f"Unsupported anything-but pattern: {op}")
        if not isinstance(value, list | str) and not _is_number(value):
            raise PatternError("Value of anything-but must be an array or single string/number value.")
        if isinstance(value, list):
            for i, item in enumerate(value):
                _anything_but_item(op, item, i)
        else:
            _anything_but_item(op, value, None)
    if len(arg) > 1:
        raise PatternError("Too many elements in numeric expression", where=second_key(arg))
    values = value if isinstance(value, list) else [value]
    return _none_of([_ANYTHING_BUT_MAKERS[op](item) for item in values])


def _anything_but(arg: Any) -> Test:
    if isinstance(arg, dict):
        return _anything_but_of(arg)
    if isinstance(arg, str):
        return _none_of([_exact_string(arg)])
    if _is_number(arg):
        return _none_of([_exact_number(_num(arg))])
    if not isinstance(arg, list):
        raise PatternError("Value of anything-but must be an array or single string/number value.")
    kinds = set()
    for i, item in enumerate(arg):
        if isinstance(item, str):
            kinds.add("string")
        elif _is_number(item):
            kinds.add("number")
        else:
            raise PatternError("Inside anything but list, start|null|boolean is not supported.", (i, END))
    if len(kinds) != 1:
        raise PatternError("Inside anything but list, either all values are number or string, "
                           "mixed type is not supported", END)
    return _none_of([_exact_string(i) if isinstance(i, str) else _exact_number(_num(i)) for i in arg])


def _one_key(expr: dict[str, Any]) -> None:
    if len(expr) > 1:
        raise PatternError("Only one key allowed in match expression", where=second_key(expr))


def _string_arg(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise PatternError(f"{name} match pattern must be a string")
    return value


def _ignore_case_arg(value: dict[str, Any], kind: str) -> str:
    if not value:
        raise PatternError(f"{kind.capitalize()} expression name not found", END)
    op = next(iter(value))
    with at(value, op):
        if op != "equals-ignore-case":
            raise PatternError(f"Unsupported {kind} pattern: {op}")
        _one_key(value)
        return _string_arg(value[op], "equals-ignore-case")


def _match_expression(expr: dict[str, Any]) -> tuple[Test | None, bool | None]:
    """(test, None) for a value test, (None, wanted) for `exists`."""
    if not expr:
        raise PatternError("Match expression name not found", END)
    kind = next(iter(expr))
    with at(expr, kind):
        return _match_kind(expr, kind, expr[kind])


def _match_kind(expr: dict[str, Any], kind: str, arg: Any) -> tuple[Test | None, bool | None]:
    if kind == "exists":
        if not isinstance(arg, bool):
            raise PatternError("exists match pattern must be either true or false.")
        _one_key(expr)
        return None, arg
    test: Test
    if kind == "exact":
        test = _exact_string(_string_arg(arg, "exact"))
    elif kind == "prefix":
        test = _prefix(_ignore_case_arg(arg, "prefix"), True) if isinstance(arg, dict) \
            else _prefix(_string_arg(arg, "prefix"))
    elif kind == "suffix":
        test = _suffix(_ignore_case_arg(arg, "suffix"), True) if isinstance(arg, dict) \
            else _suffix(_string_arg(arg, "suffix"))
    elif kind == "equals-ignore-case":
        test = _equals_ignore_case(_string_arg(arg, "equals-ignore-case"))
    elif kind == "wildcard":
        test = _wildcard(_string_arg(arg, "wildcard"))
    elif kind == "cidr":
        test = _cidr(_string_arg(arg, "prefix"))  # AWS's own text for a non-string CIDR
    elif kind == "numeric":
        if not isinstance(arg, list):
            raise PatternError("Value of numeric must be an array.")
        test = _numeric(arg)
        if len(expr) > 1:
            raise PatternError("Too many elements in numeric expression", where=second_key(expr))
        return test, None
    elif kind == "anything-but":
        test = _anything_but(arg)
        if len(expr) > 1:
            raise PatternError("Too many elements in numeric expression", where=second_key(expr))
        return test, None
    else:
        raise PatternError(f"Unrecognized match type {kind}")
    _one_key(expr)
    return test, None


class _Leaf:
    """One pattern array: any of its tests on any leaf value, or (for exists) whether a leaf is there."""

    __slots__ = ("absent_ok", "present_any", "tests")

    def __init__(self, values: list[Any]) -> None:
        if not values:
            raise PatternError("Empty arrays are not allowed", END)
        self.tests: list[Test] = []
        self.absent_ok = False  # an {"exists": false} among the values
        self.present_any = False  # an {"exists": true} among the values
        for i, value in enumerate(values):
            if isinstance(value, dict):
                if not value:  # refused once Jackson has read the empty object (UNCONFIRMED)
                    raise PatternError("Match expression name not found", (i, END))
                test, exists = _match_expression(value)
                if test is not None:
                    self.tests.append(test)
                elif exists:
                    self.present_any = True
                else:
                    self.absent_ok = True
            elif isinstance(value, str):
                self.tests.append(_exact_string(value))
            elif _is_number(value):
                self.tests.append(_exact_number(_num(value)))
            elif value is None or isinstance(value, bool):
                self.tests.append(_exact_constant(value))
            else:
                raise PatternError("Match value must be String, number, true, false, or null", (i, FIELD))

    def matches(self, leaves: list[Leaf]) -> bool:
        if not leaves:
            return self.absent_ok
        if self.present_any:
            return True
        return any(t(v) for v in leaves for t in self.tests)


class _Node:
    """One pattern object: each field a _Leaf or a nested _Node, all of which must match."""

    __slots__ = ("fields",)

    def __init__(self) -> None:
        self.fields: dict[str, _Leaf | _Node] = {}

    def matches(self, obj: Any) -> bool:
        source = obj if isinstance(obj, dict) else {}
        for name, child in self.fields.items():
            value = source.get(name, _MISSING)
            if isinstance(child, _Leaf):
                if not child.matches(_leaves(value)):
                    return False
            else:
                objects = [o for o in _flat(value) if isinstance(o, dict)] if isinstance(value, list) else \
                    [value] if isinstance(value, dict) else []
                if not (any(child.matches(o) for o in objects) if objects else child.matches({})):
                    return False
        return True


_MISSING = object()


def _flat(value: list[Any]) -> Iterable[Any]:
    for item in value:
        if isinstance(item, list):
            yield from _flat(item)
        else:
            yield item


def _leaves(value: Any) -> list[Leaf]:
    if value is _MISSING or isinstance(value, dict):
        return []
    if isinstance(value, list):
        return [v for v in _flat(value) if not isinstance(v, dict)]
    return [value]


Branch = list[tuple[tuple[str, ...], list[Any]]]  # (path, the array of match values)


def _branches(obj: Any, path: tuple[str, ...], branches: list[Branch], in_or: bool) -> list[Branch]:
    """Walk a pattern object, forking the branches at each $or (as AWS's compiler does)."""
    if not obj:
        raise PatternError("Empty objects are not allowed", END)
    for name, value in obj.items():
        with at(obj, name):
            branches = _field(name, value, path, branches, in_or)
    return branches


def _or(value: Any, path: tuple[str, ...], branches: list[Branch]) -> list[Branch]:
    if not isinstance(value, list):
        raise PatternError("It must be an Array followed with $or.")
    forks: list[Branch] = []
    for i, alternative in enumerate(value):
        if not isinstance(alternative, dict):
            raise PatternError("Only JSON object is allowed in array of $or relationship.", (i, FIELD))
        forks.extend(_branches(alternative, path, [list(b) for b in branches] or [[]], True))
    if len(value) < 2:
        raise PatternError("There must have at least 2 Objects in $or relationship.", END)
    return forks


def _field(name: str, value: Any, path: tuple[str, ...], branches: list[Branch], in_or: bool) -> list[Branch]:
    """The branches once the field `name` of a pattern object is added to each."""
    if name == OR:
        return _or(value, path, branches)
    if in_or and name in _RESERVED_IN_OR:
        raise PatternError(f"{name} is Ruler reserved fieldName which cannot be used inside $or.")
    if isinstance(value, dict):
        return _branches(value, (*path, name), branches, in_or)
    if isinstance(value, list):
        _Leaf(value)  # checked now, so a bad value is refused whichever branch holds it
        return [[*b, ((*path, name), value)] for b in branches or [[]]]
    raise PatternError(f'"{name}" must be an object or an array')


def _tree(branch: Branch) -> _Node:
    root = _Node()
    for path, values in branch:
        node = root
        for step in path[:-1]:
            child = node.fields.get(step)
            if not isinstance(child, _Node):
                child = node.fields[step] = _Node()
            node = child
        node.fields[path[-1]] = _Leaf(values)  # a later field of the same path overrides, as AWS does
    return root


class EventPattern:
    """A compiled pattern: `matches(event)` for an event already parsed from JSON."""

    __slots__ = ("branches", "text")

    def __init__(self, text: str, branches: list[_Node]) -> None:
        self.text = text
        self.branches = branches

    def matches(self, event: dict[str, Any]) -> bool:
        return any(b.matches(event) for b in self.branches)


def _not_json(text: str, python_reason: str) -> PatternError:
    refused = text_refusal(text)
    if refused is None:  # Jackson reads one value and stops where Python's json wants the end: AWS's
        return PatternError(python_reason)  # answer to text after the pattern is UNCONFIRMED
    reason, line, column = refused
    return PatternError(f"{reason}\n at {source_location(text, line, column)}")


def _reject_constant(name: str) -> Any:
    raise ValueError(name)  # NaN, Infinity: Python's json takes them, Jackson does not


def parse(text: str) -> Any:
    """The pattern's JSON, numbers as Decimal (exact), or PatternError with Jackson's reason."""
    try:
        return json.loads(text, parse_float=Decimal, parse_int=Decimal, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise _not_json(text, str(exc)) from None


def _not_an_object(text: str) -> PatternError:
    """AWS's refusal of JSON that is not an object, at the column just past what Jackson read of its first
    token ([AWS] recorded for an array: column 2; for a string or a scalar UNCONFIRMED)."""
    if not text:
        return PatternError("Filter is not an object")
    first = len(text) - len(text.lstrip(" \t\r\n"))
    end = first + 1 if text[first] in '["' else len(text.rstrip(" \t\r\n"))
    line = text.count("\n", 0, end) + 1
    column = end - (text.rfind("\n", 0, end) + 1) + 1
    return PatternError(f"Filter is not an object\n at {source_location(text, line, column)}")


def compile_pattern_value(value: Any, text: str = "") -> EventPattern:
    if not isinstance(value, dict):
        raise _not_an_object(text)
    try:
        return EventPattern(text, [_tree(b) for b in _branches(value, (), [], False)])
    except PatternError as e:
        locate(e, value, text)
        raise




@lru_cache(maxsize=1024)
def compile_pattern(text: str) -> EventPattern:
    """Compile a pattern's JSON text (cached by text: rules are matched far more often than set)."""
    return compile_pattern_value(parse(text), text)


def matches(pattern: str, event: dict[str, Any]) -> bool:
    return compile_pattern(pattern).matches(event)
