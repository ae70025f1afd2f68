"""Definition text -> typed, frozen nodes (nodes.py), once per text.

`load(text)` is what the engine, TestState and the console read a stored definition through; the
checker (check.py) validates the raw JSON first (AWS's messages point into it) and then runs its
graph checks on the loaded nodes. A definition reaching `load` was validated at creation; a
missing or odd field still loads (with AWS's defaults) and loading never raises on a JSON object,
so a definition stored by an older version keeps running and TestState's unchecked state (or the
console's drawing) never turns a user's mistake into an internal error.
"""

from __future__ import annotations

import json
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from onceflow.sfn.asl.nodes import (
    DEFAULT_BACKOFF_RATE,
    DEFAULT_INTERVAL_SECONDS,
    DEFAULT_MAX_ATTEMPTS,
    Catcher,
    Machine,
    Program,
    Retrier,
    State,
)
from onceflow.sfn.asl.resources import parse_resource

ENDLESS = ("Succeed", "Fail")  # types that end their program without End


@lru_cache(maxsize=256)
def load(text: str) -> Machine:
    """The loaded form of a definition text (cached: definitions are immutable text)."""
    return load_definition(json.loads(text), text)


def load_definition(definition: dict[str, Any], text: str = "") -> Machine:
    ql = _language(definition.get("QueryLanguage"), "JSONPath")
    timeout = definition.get("TimeoutSeconds")
    return Machine(load_program(definition, ql), timeout if _is_int(timeout) else None, ql, text)


def load_program(program: dict[str, Any], default_language: str) -> Program:
    ql = _language(program.get("QueryLanguage"), default_language)
    states = program.get("States")
    loaded = {name: load_state(name, state, ql) for name, state in (states or {}).items()
              if isinstance(state, dict)} if isinstance(states, dict) else {}
    config = program.get("ProcessorConfig")
    mode = config.get("Mode", "INLINE") if isinstance(config, dict) else "INLINE"
    start = program.get("StartAt")
    return Program(start if isinstance(start, str) else "", MappingProxyType(loaded), ql, mode)


def load_state(name: str, state: dict[str, Any], default_language: str) -> State:
    stype = str(state.get("Type", ""))
    ql = _language(state.get("QueryLanguage"), default_language)
    nxt = state.get("Next")
    ends = state.get("End") is True or stype in ENDLESS
    resource = parse_resource(state.get("Resource")) if stype == "Task" else None
    branches = tuple(load_program(b, default_language) for b in _objects(state.get("Branches"))
                     ) if stype == "Parallel" else ()
    inner = state.get("ItemProcessor") or state.get("Iterator") if stype == "Map" else None
    return State(
        name=name, type=stype, query_language=ql, fields=MappingProxyType(state),
        next=None if ends or not isinstance(nxt, str) else nxt,
        retriers=tuple(load_retrier(r) for r in _objects(state.get("Retry"))),
        catchers=tuple(load_catcher(c) for c in _objects(state.get("Catch"))),
        resource=resource, branches=branches,
        processor=load_program(inner, default_language) if isinstance(inner, dict) else None,
    )


def load_retrier(retrier: dict[str, Any]) -> Retrier:
    cap = retrier.get("MaxDelaySeconds")
    return Retrier(
        error_equals=_names(retrier.get("ErrorEquals")),
        interval_seconds=_number(retrier.get("IntervalSeconds"), DEFAULT_INTERVAL_SECONDS),
        max_attempts=int(_number(retrier.get("MaxAttempts"), DEFAULT_MAX_ATTEMPTS)),
        backoff_rate=_number(retrier.get("BackoffRate"), DEFAULT_BACKOFF_RATE),
        max_delay_seconds=_number(cap, 0.0) if cap is not None and _is_number(cap) else None,
        full_jitter=retrier.get("JitterStrategy") == "FULL",
    )


def load_catcher(catcher: dict[str, Any]) -> Catcher:
    nxt = catcher.get("Next")
    return Catcher(_names(catcher.get("ErrorEquals")), nxt if isinstance(nxt, str) else "", MappingProxyType(catcher))


def _objects(value: Any) -> list[dict[str, Any]]:
    return [h for h in value if isinstance(h, dict)] if isinstance(value, list) else []


def _names(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value: Any, default: float) -> float:
    return float(value) if _is_number(value) else float(default)


def _language(value: Any, default: str) -> str:
    return value if value in ("JSONPath", "JSONata") else default


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
