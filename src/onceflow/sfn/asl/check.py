"""Static validation of a state machine definition, with AWS's diagnostic codes and wording.

`validate_definition(text)` returns Diagnostics (ValidateStateMachineDefinition lists them;
CreateStateMachine/UpdateStateMachine reject with `definition_error_message(diags)`).
Schema problems are reported first and alone; the graph checks (dangling transitions, no
terminal state, unreachable states) run only on a schema-valid definition, as AWS does.
Wording marked [AWS] is recorded from real AWS; the rest follows the same pattern (UNCONFIRMED).
"""

from __future__ import annotations

import json
from typing import Any

from onceflow.patterns.jackson import nesting_depth, source_location, text_refusal
from onceflow.sfn.asl.check_graph import graph_diagnostics
from onceflow.sfn.asl.check_states import StateChecker
from onceflow.sfn.asl.diagnostics import Diagnostic, SchemaErrors
from onceflow.sfn.asl.load import load

__all__ = ["Diagnostic", "definition_error_message", "definition_warnings", "validate_definition",
           "validation_result"]


def validate_definition(text: str, machine_type: str = "STANDARD") -> list[Diagnostic]:
    """All diagnostics for a definition string (empty list when it is valid)."""
    if not isinstance(text, str) or not text.strip():
        return [_not_an_object()]
    depth = nesting_depth(text)
    if depth > MAX_NESTING_DEPTH:
        return [Diagnostic("ERROR", "INVALID_JSON_DESCRIPTION", nesting_message())]
    try:
        definition = json.loads(text)
    except ValueError:
        reason, line, column = jackson_parse_error(text)
        where = source_location(text, line, column)
        return [Diagnostic("ERROR", "INVALID_JSON_DESCRIPTION", f"{reason}\n at {where}", where)]  # [AWS] shape
    except RecursionError:  # nested past Python's parser; Jackson stops at 1000 levels
        return [Diagnostic("ERROR", "INVALID_JSON_DESCRIPTION", "Document nesting depth exceeds the maximum allowed "
                           "(1000, from `StreamReadConstraints.getMaxNestingDepth()`)")]
    if not isinstance(definition, dict):
        return [_not_an_object()]
    errors = SchemaErrors()
    StateChecker(errors, machine_type, text).check_machine(definition)
    if errors.raw_cause is not None or errors.items:
        return errors.items
    return graph_diagnostics(load(text))  # cached: the engine runs the same nodes


def definition_warnings(text: str) -> list[Diagnostic]:
    """The static-analysis WARNINGs of a definition that parses as an object (none otherwise)."""
    from onceflow.sfn.asl.check_warnings import warning_diagnostics

    if not isinstance(text, str) or too_deep(text):
        return []
    try:
        definition = json.loads(text)
    except (ValueError, RecursionError):
        return []
    return warning_diagnostics(definition) if isinstance(definition, dict) else []


# Jackson's StreamReadConstraints default (AWS parses definitions and inputs with Jackson): deeper
# documents are refused before parsing, which also keeps every recursive walk of them shallow.
MAX_NESTING_DEPTH = 1000
def too_deep(text: str) -> bool:
    return nesting_depth(text) > MAX_NESTING_DEPTH


def nesting_message() -> str:
    """Jackson's message; it stops reading at the first level past the limit."""
    return (f"Document nesting depth ({MAX_NESTING_DEPTH + 1}) exceeds the maximum allowed ({MAX_NESTING_DEPTH}, "
            "from `StreamReadConstraints.getMaxNestingDepth()`)")


def _not_an_object() -> Diagnostic:
    return Diagnostic("ERROR", "SCHEMA_VALIDATION_FAILED", "Definition must be a valid JSON object")  # [AWS]


def jackson_parse_error(text: str) -> tuple[str, int, int]:
    """Why Jackson (which AWS parses definitions and inputs with) refuses `text`, and the 1-based
    line and column it reports: Jackson's String parser (patterns/jackson.py), the one EventBridge
    reads patterns with ([AWS] recorded here: 'not a definition' -> token 'not', column 4)."""
    refused = text_refusal(text)
    if refused is not None:
        return refused
    try:  # Jackson reads one value and stops where Python's json wants the end (AWS's words UNCONFIRMED)
        json.loads(text)
    except json.JSONDecodeError as e:
        return "Unexpected character", *_line_column(text, e.pos + 1)
    except ValueError:  # an integer past Python's 4300 digits; Jackson's own limit is 1000 (its words UNCONFIRMED)
        return "Number value length exceeds the maximum allowed (1000, from " \
               "`StreamReadConstraints.getMaxNumberLength()`)", 1, 1
    return "Invalid JSON", 1, 1  # not reached: only called for text json.loads refuses


def _line_column(text: str, pos: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


def definition_error_message(diags: list[Diagnostic]) -> str:
    """CreateStateMachine's InvalidDefinition message for these diagnostics. [AWS format]

    `Invalid State Machine Definition: 'CODE: message at /location, CODE: message'`; a few
    failures AWS reports in another shape carry their whole text (Map labels).
    """
    for d in diags:
        if d.raw:
            return d.message
    # (a JSON syntax error's message already ends with its position: CreateStateMachine's wording
    # for it is UNCONFIRMED, and it is not repeated)
    parts = [f"{d.code}: {d.message}" + (f" at {d.location}" if d.location is not None
                                         and d.code != "INVALID_JSON_DESCRIPTION" else "")
             for d in diags if d.severity == "ERROR"]
    return "Invalid State Machine Definition: '" + ", ".join(parts) + "'"


def validation_result(diags: list[Diagnostic], max_results: int = 100) -> dict[str, Any]:
    """ValidateStateMachineDefinition's output shape."""
    shown = diags[:max_results]
    return {"result": "FAIL" if any(d.severity == "ERROR" for d in diags) else "OK",
            "diagnostics": [d.as_api() for d in shown],
            "truncated": len(diags) > len(shown)}
