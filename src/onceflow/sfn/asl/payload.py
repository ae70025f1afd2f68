"""Payload templates: Parameters, ResultSelector, ItemSelector, Assign in JSONPath mode.

A key ending in `.$` takes its value from a path (`$.x`), the context object (`$$.x`), a
variable (`$x`) or an intrinsic function (`States.Format(...)`); the `.$` is dropped from the
output key. Everything else is copied. Objects and arrays are walked recursively.

Key order follows what AWS writes: the static keys in template order, then the `.$` keys in
the iteration order of a Java HashMap (observed in recorded outputs: e.g. template
`mergedJson.$, parsedJson.$, stringifiedJson.$` comes out as `parsedJson, mergedJson,
stringifiedJson`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from onceflow.sfn.asl.errors import PathNotFound
from onceflow.sfn.asl.intrinsics import evaluate_intrinsic, is_intrinsic
from onceflow.sfn.asl.paths import resolve_path, to_json

# Bytes of UTF-8 JSON in an execution's input and output, a state's input and output and a task's
# result: Step Functions' one payload quota (256 KiB). [AWS]
MAX_PAYLOAD = 262144


def evaluate_payload_template(template: Any, data: Any, context: Any,
                              variables: dict[str, Any] | None = None) -> Any:
    """Evaluate a JSONPath-mode payload template against the state's effective input `data`.

    Raises PathNotFound worded for the field ("The JSONPath '$.x' specified for the field
    'x.$' could not be found in the input '<input>'") and intrinsic failures as StateDataError;
    the engine adds the state prefix with `.in_state(name, entered_event_id)`.
    """
    if isinstance(template, dict):
        static = {k: evaluate_payload_template(v, data, context, variables)
                  for k, v in template.items() if not k.endswith(".$")}
        dynamic = {k[:-2]: k for k in template if k.endswith(".$")}
        for name in _hashmap_order(tuple(dynamic)):
            key = dynamic[name]
            static[name] = evaluate_value_expression(template[key], key, data, context, variables)
        return static
    if isinstance(template, list):
        return [evaluate_payload_template(v, data, context, variables) for v in template]
    return template


def evaluate_value_expression(expression: Any, field: str, data: Any, context: Any,
                              variables: dict[str, Any] | None = None) -> Any:
    """The value of one `.$` field: a path, a context path, a variable or an intrinsic call."""
    if not isinstance(expression, str):
        return expression
    try:
        if is_intrinsic(expression):
            return evaluate_intrinsic(expression, data, context, variables)
        return resolve_path(expression, data, context, variables)
    except PathNotFound as e:
        raise e.for_field(field, to_json(data)) from None


def java_string_hash(s: str) -> int:
    h = 0
    raw = s.encode("utf-16-be")
    for i in range(0, len(raw), 2):
        h = (31 * h + int.from_bytes(raw[i:i + 2], "big")) & 0xFFFFFFFF
    return h


@lru_cache(maxsize=4096)
def _hashmap_order(keys: tuple[str, ...]) -> list[str]:
    return java_hashmap_order(list(keys))


def java_hashmap_order(keys: list[str]) -> list[str]:
    """Iteration order of a java.util.HashMap filled with `keys` in this order.

    The final table size is the default 16 doubled while size > 0.75 * capacity; a resize keeps
    the relative order within a bucket, so the order is (bucket, insertion index).
    """
    capacity = 16
    while len(keys) > capacity * 0.75:
        capacity *= 2

    def bucket(k: str) -> int:
        h = java_string_hash(k)
        return (h ^ (h >> 16)) & (capacity - 1)

    return [k for _, _, k in sorted((bucket(k), i, k) for i, k in enumerate(keys))]
