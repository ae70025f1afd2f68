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


@lru_cache(maxsize=4096)
def _pattern(expr: str) -> re.Pattern[str] | None:
    try:
        return re.compile(expr)
    except re.error:
        return None  # Java-only syntax (\p{...}); the service checks what matters


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
