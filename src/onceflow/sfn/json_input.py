"""A caller's JSON (execution input, task output, TestState input and variables): what is not JSON,
or is nested deeper than Jackson reads, is refused with the reason AWS's Jackson parser words."""

from __future__ import annotations

import json
from typing import Any


def jackson_reason(text: str) -> str:
    """The Jackson-worded reason AWS gives for an execution input that is not JSON."""
    from onceflow.sfn.asl.check import jackson_parse_error, nesting_message, too_deep

    if too_deep(text):
        return nesting_message()
    if not text.strip():
        return "Invalid execution input."
    try:
        json.loads(text)
    except RecursionError:
        return ("Document nesting depth exceeds the maximum allowed (1000, from "
                "`StreamReadConstraints.getMaxNestingDepth()`)")
    except ValueError:
        return jackson_parse_error(text)[0]
    return "Invalid execution input."


def loads(text: str) -> Any:
    """JSON from a caller: a document nested deeper than Jackson reads is invalid, like malformed text."""
    from onceflow.sfn.asl.check import too_deep

    if too_deep(text):
        raise ValueError("nested too deep")
    return json.loads(text)
