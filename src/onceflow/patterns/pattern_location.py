"""Where an event pattern's refusal points: PatternError, and Jackson's position in the pattern text.

A refusal other than "not JSON" ends with where AWS's compiler (event-ruler, reading the text with
Jackson's streaming parser) stood when the rule failed (patterns/event_pattern.py's doc says which moments
are recorded). `_Spot` is that reader's position around each value; a PatternError names the object field
it was raised under (`where`, set by the innermost `at`) and the moment (`FIELD`: just after the field's
name, when Jackson has read the first token of its value, only the opening quote of a string; `END`: past
the whole value; `(i, FIELD | END)`: at or past the array's i-th item, past the array when there is none).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from onceflow.patterns.jackson import source_location

FIELD, END = "field", "end"
Moment = str | tuple[int, str]


class PatternError(ValueError):
    """A pattern AWS refuses; `reason` is AWS's text after "Event pattern is not valid. Reason: ".
    moment, where, twice, located: where the reason's location suffix points (see the module's doc)."""

    def __init__(self, reason: str, moment: Moment = FIELD, *, where: tuple[Any, str] | None = None,
                 twice: bool = False, located: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.moment = moment
        self.where = where
        self.twice = twice
        self.located = located


@contextmanager
def at(container: dict[str, Any], key: str) -> Iterator[None]:
    """Refusals raised while the field `key` of `container` is compiled are located at that field."""
    try:
        yield
    except PatternError as e:
        if e.where is None:
            e.where = (container, key)
        raise


def second_key(expr: dict[str, Any]) -> tuple[Any, str]:
    """A refusal of a second key is raised once Jackson has read that key (UNCONFIRMED)."""
    return expr, list(expr)[1]



class _Spot:
    """Jackson's reader around one value of the pattern text: `at` just after the token that starts it
    (past a bracket, past the opening quote of a string, past a number or literal), `end` past it."""

    __slots__ = ("at", "end", "fields", "items")

    def __init__(self, at: int) -> None:
        self.at = self.end = at
        self.fields: dict[str, _Spot] = {}
        self.items: list[_Spot] = []


_WS = re.compile(r"[ \t\r\n]*")
_STRING_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR_TOKEN = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def _scan(text: str, i: int) -> tuple[_Spot, int]:
    """The spot of the value at text[i:] (text is JSON that Python's parser took) and the index past it."""
    i = _WS.match(text, i).end()  # type: ignore[union-attr]  # the pattern matches empty text too
    c = text[i]
    if c in "{[":
        return _scan_container(text, i)
    m = (_STRING_TOKEN if c == '"' else _SCALAR_TOKEN).match(text, i)
    if m is None:
        raise ValueError(f"no JSON value at {i}")
    spot = _Spot(i + 1 if c == '"' else m.end())
    spot.end = m.end()
    return spot, m.end()


def _scan_container(text: str, i: int) -> tuple[_Spot, int]:
    spot, close = _Spot(i + 1), "}" if text[i] == "{" else "]"
    i += 1
    while True:
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        if text[i] == close:
            spot.end = i + 1
            return spot, i + 1
        if text[i] == ",":
            i += 1
            continue
        if close == "}":
            key = _STRING_TOKEN.match(text, i)
            if key is None:
                raise ValueError(f"no field name at {i}")
            i = _WS.match(text, key.end()).end() + 1  # type: ignore[union-attr]  # past the colon
            spot.fields[json.loads(key.group())], i = _scan(text, i)  # a repeated name: the last, as json's
        else:
            item, i = _scan(text, i)
            spot.items.append(item)


def _index(value: Any, spot: _Spot, spots: dict[int, _Spot]) -> None:
    """Each object of the parsed pattern (by identity) to its spot."""
    if isinstance(value, dict):
        spots[id(value)] = spot
        for k, v in value.items():
            _index(v, spot.fields[k], spots)
    elif isinstance(value, list):
        for v, s in zip(value, spot.items, strict=True):
            _index(v, s, spots)


def _moment_index(spot: _Spot, moment: Moment) -> int:
    if isinstance(moment, str):
        return spot.at if moment == FIELD else spot.end
    i, when = moment
    if i >= len(spot.items):  # no such item: Jackson read the end of the array
        return spot.end
    return spot.items[i].at if when == FIELD else spot.items[i].end


def locate(e: PatternError, value: dict[str, Any], text: str) -> None:
    """Append Jackson's location to the refusal's reason, where AWS appends one."""
    if not e.located or e.where is None or not text:
        return
    container, key = e.where
    spots: dict[int, _Spot] = {}
    try:
        _index(value, _scan(text, 0)[0], spots)
    except (ValueError, KeyError, IndexError, RecursionError):
        return  # text and value disagree (never for a text Python's parser took): no location then
    field = spots.get(id(container))
    if field is None or key not in field.fields:
        return
    at = _moment_index(field.fields[key], e.moment)
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    suffix = f"\n at {source_location(text, line, column)}"
    e.reason += suffix * 2 if e.twice else suffix
    e.args = (e.reason,)
