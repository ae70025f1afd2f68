"""Input checks from the model's constraints, worded as AWS's coral validator words them.

`1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null`
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from botocore.model import Shape


class Problems:
    """Collects constraint violations; the service's validation error is raised from them at the end."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, value: Any, path: str, constraint: str) -> None:
        self.items.append(f"Value {render_value(value)} at '{path}' failed to satisfy constraint: {constraint}")

    def message(self) -> str:
        n = len(self.items)
        noun = "error" if n == 1 else "errors"
        return f"{n} validation {noun} detected: " + "; ".join(self.items)


def render_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, bytes):
        return "'java.nio.HeapByteBuffer'"
    return f"'{value}'"


def member_path(parent: str, name: str) -> str:
    step = name[:1].lower() + name[1:]
    return f"{parent}.{step}" if parent else step


# Java regex classes the models use, as Python character-class contents (inside [...]).
_JAVA_CLASSES = {
    "N": "\\d\u00b2\u00b3\u00b9\u00bc-\u00be\u2150-\u2189",
    "Z": " \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000",
    "ASCII": "\\x00-\\x7f",
    "Print": "\\x20-\\x7e",
}
_LETTER = "[^\\W\\d_]"  # a word character that is neither a digit nor '_': Java's \\p{L}
_CLASS_WITH_P = re.compile(r"\[(\^?)((?:[^\]\\]|\\.)*\\p\{\w+\}(?:[^\]\\]|\\.)*)\]")


@lru_cache(maxsize=4096)
def python_pattern(expr: str) -> str | None:
    """The model's (Java) pattern in Python's dialect, or None if it uses syntax we cannot translate.

    Java accepts \\p{L}/\\p{Z}/\\p{N}/\\p{ASCII}/\\p{Print}, UTF-16 surrogate pairs spelled as escapes,
    and `[\\w-_]` (a literal '-' after a class); Python's `re` accepts none of them.
    """
    text = expr.replace("\\uD800\\uDC00-\\uDBFF\\uDFFF", "\\U00010000-\\U0010FFFF")
    text = text.replace("\\w-_", "\\w\\-_")
    text = _CLASS_WITH_P.sub(_translate_class, text)
    text = text.replace("\\p{L}", _LETTER)
    for name, body in _JAVA_CLASSES.items():
        text = text.replace("\\p{" + name + "}", f"[{body}]")
    try:
        re.compile(text)
    except re.error:
        return None
    return text


def _translate_class(m: re.Match[str]) -> str:
    negated, body = m.group(1), m.group(2)
    for name, chars in _JAVA_CLASSES.items():
        body = body.replace("\\p{" + name + "}", chars)
    if "\\p{L}" not in body:
        return f"[{negated}{body}]"
    if negated:
        return m.group(0)  # leave untranslatable: compile fails and the check is skipped
    rest = body.replace("\\p{L}", "")
    return f"(?:{_LETTER}|[{rest}])" if rest else _LETTER


@lru_cache(maxsize=4096)
def _pattern(expr: str) -> re.Pattern[str] | None:
    text = python_pattern(expr)
    return re.compile(text) if text is not None else None


def check_scalar(shape: Shape, value: Any, path: str, problems: Problems) -> None:
    """Length, range, enum and pattern constraints of one scalar or collection value."""
    md = shape.metadata
    if not md:
        return
    if shape.type_name == "string":
        if "enum" in md and value not in md["enum"]:
            problems.add(value, path, "Member must satisfy enum value set: [" + ", ".join(md["enum"]) + "]")
            return
        length = len(value)
        if "min" in md and length < md["min"]:
            problems.add(value, path, f"Member must have length greater than or equal to {md['min']}")
        elif "max" in md and length > md["max"]:
            problems.add(value, path, f"Member must have length less than or equal to {md['max']}")
        elif "pattern" in md:
            rx = _pattern(md["pattern"])
            if rx is not None and rx.fullmatch(value) is None:
                problems.add(value, path, f"Member must satisfy regular expression pattern: {md['pattern']}")
    elif shape.type_name in ("integer", "long", "double", "float"):
        if "min" in md and value < md["min"]:
            problems.add(value, path, f"Member must have value greater than or equal to {md['min']}")
        elif "max" in md and value > md["max"]:
            problems.add(value, path, f"Member must have value less than or equal to {md['max']}")
    elif shape.type_name in ("list", "map", "blob"):
        length = len(value)
        if "min" in md and length < md["min"]:
            problems.add(value, path, f"Member must have length greater than or equal to {md['min']}")
        elif "max" in md and length > md["max"]:
            problems.add(value, path, f"Member must have length less than or equal to {md['max']}")
