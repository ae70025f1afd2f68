"""A caller's JSON (execution input, task output, TestState input and variables): what is not JSON,
or is nested deeper than Jackson reads, is refused with the reason AWS's Jackson parser words."""

from __future__ import annotations

import json
import re
from typing import Any


def jackson_reason(text: str) -> str:
    """The Jackson-worded reason AWS gives for an execution input that is not JSON."""
    from onceflow.sfn.asl.check import nesting_message, too_deep

    if too_deep(text):
        return nesting_message()
    stripped = text.strip()
    if not stripped:
        return "Invalid execution input."
    if stripped[0].isalpha():
        word = re.match(r"[A-Za-z0-9_]+", stripped)
        return (f"Unrecognized token '{word.group(0) if word else stripped[0]}': was expecting (JSON String, Number, "
                "Array, Object or token 'null', 'true' or 'false')")
    try:
        json.loads(text)
    except RecursionError:
        return ("Document nesting depth exceeds the maximum allowed (1000, from "
                "`StreamReadConstraints.getMaxNestingDepth()`)")
    except json.JSONDecodeError as e:
        ch = text[e.pos] if e.pos < len(text) else None
        if ch is None:
            return "Unexpected end-of-input"
        if "property name" in e.msg:
            return f"Unexpected character ('{ch}' (code {ord(ch)})): was expecting double-quote to start field name"
        return f"Unexpected character ('{ch}' (code {ord(ch)}))"
    return "Invalid execution input."


def loads(text: str) -> Any:
    """JSON from a caller: a document nested deeper than Jackson reads is invalid, like malformed text."""
    from onceflow.sfn.asl.check import too_deep

    if too_deep(text):
        raise ValueError("nested too deep")
    return json.loads(text)
