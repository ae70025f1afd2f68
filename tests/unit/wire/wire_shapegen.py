"""Deterministic example values for botocore shapes, valid against the model's constraints.

Used by the protocol round-trip tests: every operation's input (and output) shape gets a value
that fills each member, so botocore's serializer and our parser (or our renderer and botocore's
parser) are exercised on every member type the six models use.
"""

from __future__ import annotations

import datetime as dt
import re
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as sre  # type: ignore[attr-defined]
from typing import Any

from botocore.model import Shape

from onceflow.wire.validate import java_length, python_pattern

WHEN = dt.datetime(2026, 11, 29, 9, 30, 15, tzinfo=dt.UTC)
MAX_DEPTH = 4


def value_for(shape: Shape, depth: int = 0, *, required_only: bool = False, seed: str = "a",
              when: dt.datetime = WHEN) -> Any:
    """An example value of `shape`. `seed` is the text tried first for strings (kept where the
    model's constraints allow it), `when` the timestamp used."""
    kind = shape.type_name
    md = shape.metadata
    opts = {"required_only": required_only, "seed": seed, "when": when}
    if kind == "structure":
        members = shape.members  # type: ignore[attr-defined]
        names = list(shape.required_members) if required_only or depth >= MAX_DEPTH else list(members)  # type: ignore[attr-defined]
        if not names and members and depth > 0:
            names = [next(iter(members))]  # the query protocol cannot send an empty structure
        return {n: value_for(members[n], depth + 1, **opts) for n in names if not _skip(members[n])}  # type: ignore[arg-type]
    if kind == "list":
        count = max(1, md.get("min", 0)) if depth < MAX_DEPTH else md.get("min", 0)
        member = shape.member  # type: ignore[attr-defined]
        return [value_for(member, depth + 1, **{**opts, "seed": f"{seed}{i}"}) for i in range(count)]  # type: ignore[arg-type]
    if kind == "map":
        if depth >= MAX_DEPTH and not md.get("min"):
            return {}
        count = max(1, md.get("min", 0))
        keys = [value_for(shape.key, depth + 1, seed=f"{seed}k{i}") for i in range(count)]  # type: ignore[attr-defined]
        vshape = shape.value  # type: ignore[attr-defined]
        return {k: value_for(vshape, depth + 1, **opts) for k in keys}  # type: ignore[arg-type]
    if kind == "string":
        return string_for(shape, seed)
    if kind in ("integer", "long"):
        return int(max(md.get("min", 1), min(md.get("max", 7), 7)))
    if kind in ("double", "float"):
        return float(max(md.get("min", 1.5), min(md.get("max", 2.5), 2.5)))
    if kind == "boolean":
        return True
    if kind == "blob":
        size = max(3, md.get("min", 0))
        return bytes(range(250, 256))[:size].ljust(size, b"\x00") if size <= 6 else b"\x01" * size
    if kind == "timestamp":
        return when
    raise AssertionError(f"no example for {kind}")


def _skip(shape: Shape) -> bool:
    """Event streams are not request/response members."""
    return bool(shape.serialization.get("eventstream") or getattr(shape, "is_event_stream", False))


def string_for(shape: Shape, seed: str = "a") -> str:
    md = shape.metadata
    if "enum" in md:
        return str(md["enum"][0])
    lo, hi = md.get("min", 1), md.get("max", 64)
    pattern = python_pattern(md["pattern"]) if "pattern" in md else None
    text = (seed + "x" * lo)[: max(lo, len(seed))][:hi]
    if not lo <= java_length(text) <= hi:  # astral characters count twice
        text = ("a" + "x" * lo)[:max(lo, 1)][:hi]
    if pattern is None:
        return text
    rx = re.compile(pattern)
    if rx.fullmatch(text):
        return text
    for want in (0, max(lo, 3), lo, hi):
        text = from_regex(pattern, want)
        if rx.fullmatch(text) and lo <= len(text) <= hi:
            return text
    raise AssertionError(f"cannot build a string for /{pattern}/ of length {lo}..{hi}")


# ----------------------------------------------------------------------------- regex -> example text
def from_regex(pattern: str, want: int) -> str:
    """A string matching `pattern`, aiming for length `want` (repeats grow to reach it)."""
    tree = sre.parse(pattern)
    budget = [want]
    return _emit(list(tree), budget)


def _emit(items: list[Any], budget: list[int]) -> str:
    out = []
    for op, av in items:
        text = _one(op, av, budget)
        budget[0] -= len(text)
        out.append(text)
    return "".join(out)


def _one(op: Any, av: Any, budget: list[int]) -> str:
    if op is C.LITERAL:
        return chr(av)
    if op is C.NOT_LITERAL:
        return "a" if av != ord("a") else "b"
    if op is C.ANY:
        return "a"
    if op is C.IN:
        return _char_in(av)
    if op is C.AT:
        return ""
    if op is C.BRANCH:
        options = [_emit(list(alt), list(budget)) for alt in av[1]]
        return max(options, key=len)
    if op is C.SUBPATTERN:
        return _emit(list(av[-1]), budget)
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
        lo, hi, sub = av
        sub = list(sub)
        parts = [_emit(sub, [1]) for _ in range(lo)]
        limit = hi if hi is not C.MAXREPEAT else 1 << 30
        while len(parts) < limit and budget[0] - sum(map(len, parts)) > 0:
            piece = _emit(sub, [1])
            if not piece:
                break
            parts.append(piece)
        return "".join(parts)
    if op in (C.ASSERT, C.ASSERT_NOT, C.GROUPREF):
        return ""
    if op is C.CATEGORY:
        return _category(av)
    raise AssertionError(f"regex op {op} not supported")


def _category(cat: Any) -> str:
    name = str(cat)
    if "DIGIT" in name and "NOT" not in name:
        return "1"
    if "SPACE" in name and "NOT" not in name:
        return " "
    return "a"


def _char_in(items: list[Any]) -> str:
    negate = any(op is C.NEGATE for op, _ in items)
    if negate:
        banned = set()
        for op, av in items:
            if op is C.LITERAL:
                banned.add(chr(av))
            elif op is C.RANGE:
                banned.update(chr(c) for c in range(av[0], min(av[1], 0x3000) + 1))
        return next(c for c in "ab1_-x" if c not in banned)
    for c in "a1A":
        for op, av in items:
            if op is C.RANGE and av[0] <= ord(c) <= av[1]:
                return c
    for op, av in items:
        if op is C.RANGE:
            return chr(max(av[0], 0x20))
        if op is C.CATEGORY:
            return _category(av)
    for op, av in items:
        if op is C.LITERAL and chr(av).isalnum():
            return chr(av)
    for op, av in items:
        if op is C.LITERAL:
            return chr(av)
    return "a"


def emptied(shape: Shape, value: Any) -> Any:
    """The same value with every list and map empty, strings blank, numbers zero, booleans false."""
    kind = shape.type_name
    if kind == "structure":
        return {k: emptied(shape.members[k], v) for k, v in value.items()}  # type: ignore[attr-defined]
    if kind == "list":
        return []
    if kind == "map":
        return {}
    if kind == "string":
        return value if "enum" in shape.metadata else ""
    if kind in ("integer", "long"):
        return 0
    if kind in ("double", "float"):
        return 0.0
    if kind == "boolean":
        return False
    return value
