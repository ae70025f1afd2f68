"""TestState on a Map or Parallel state: a mocked one (`mock.result` is the state's result, its
iterations or branches not run; `mock.errorOutput` fails it, for its Retry and Catch), and the
Map's DEBUG inspection data (afterInputPath, afterItemsPath, afterItemSelector, afterItemBatcher,
toleratedFailureCount/Percentage, maxConcurrency), computed by the very functions a run uses.

`stateConfiguration.mapIterationFailureCount` says how many iterations failed: beyond the Map's
declared ToleratedFailureCount/Percentage the Map fails with States.ExceedToleratedFailureThreshold;
without those fields the count takes no effect (AWS's TestState recordings). A mocked Map still
reads its items, and fails when its ItemsPath finds no array. `mapItemReaderData` stands for what
the ItemReader would read (TestState reads no S3 object here).
"""

from __future__ import annotations

import json
from typing import Any

from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.asl.nodes import State
from onceflow.sfn.asl.paths import resolve_path
from onceflow.sfn.engine.effects import Fx
from onceflow.sfn.engine.events import Event
from onceflow.sfn.engine.states.common import Scope, context_object, enter_state, fail_in_state, input_path
from onceflow.sfn.engine.states.errors import catch
from onceflow.sfn.engine.states.fanout import (
    _batched,
    _failure_limit,
    _finish,
    _item_input,
    _items,
    _max_concurrency,
    _tolerance,
)
from onceflow.sfn.mocks import Mocked

EXCEEDED = ("States.ExceedToleratedFailureThreshold", "The specified tolerated failure threshold was exceeded")


def mocked_fanout(scope: Scope, state: State, raw: Any, mocked: Mocked | None, failures: int | None,
                  reader_data: Any, outcome: dict[str, Any]) -> Fx:
    """The Map or Parallel handler TestState runs instead of the real one; the error it fails with
    goes to `outcome["caught"]` (its <Type>StateFailed event has no details to read it from)."""
    name, ql, type_ = state.name, state.query_language, state.type
    rt = scope.rt
    entered, raw = enter_state(scope, type_, name, raw)
    ctx = context_object(scope, name, entered, 0)
    error: tuple[str | None, str | None] | None = None
    if type_ == "Map":  # a mocked Map still reads its items: a path to no array fails it (AWS)
        try:
            items = _test_items(scope, state, raw, ctx, reader_data)
            tolerated = _tolerance(scope, state, raw, ctx, ql) if failures is not None else None
        except StatesError as e:
            raise fail_in_state(scope, name, entered, e) from None
        # without ToleratedFailure* fields TestState takes no threshold from the count (AWS, recorded)
        if failures is not None and tolerated is not None and failures > _failure_limit(
                tolerated.get("ToleratedFailureCount"), tolerated.get("ToleratedFailurePercentage"), len(items)):
            error = EXCEEDED
    if error is None and mocked is not None and mocked.throws:
        error = (mocked.error, mocked.cause)
    if error is not None:
        outcome["caught"] = error
        rt.emit(scope.fiber, f"{type_}StateFailed", None)
        return catch(scope, state, name, raw, ctx, ql, error[0], error[1], type_)
    result = mocked.result if mocked is not None else None
    return _finish(scope, state, type_, name, entered, raw, ctx, result)
    yield  # a generator, as every state handler


def _test_items(scope: Scope, state: State, raw: Any, ctx: dict[str, Any], reader_data: Any) -> list[Any]:
    if "ItemReader" in state:
        return reader_data if isinstance(reader_data, list) else []
    if state.query_language == "JSONata":
        return _items(scope, state, raw, ctx, state.query_language)[0]
    data = input_path(state, raw, ctx, scope.variables)
    path = state.get("ItemsPath", "$")
    items = resolve_path(path, data, ctx, scope.variables)
    if not isinstance(items, list):
        # TestState's wording (test_state_context_object's recordings), not an execution's: a
        # context path is named from the context object's root ("$$.Execution.Input" as "$.Execution.Input")
        shown = path[1:] if path.startswith("$$") else path
        raise StatesError("States.Runtime", f'Reference path "{shown}" must point to array.')
    return list(items)


def map_inspection(scope: Scope, state: State, raw: Any, reader_data: Any) -> dict[str, Any]:
    """The Map's DEBUG inspection data (what a step that fails leaves out is simply absent)."""
    ql = state.query_language
    ctx = context_object(scope, state.name, _entered(scope), 0)
    out: dict[str, Any] = {}
    try:
        if ql != "JSONata":
            out["afterInputPath"] = _compact(input_path(state, raw, ctx, scope.variables))
        if "ItemReader" in state:
            items, data = (reader_data if isinstance(reader_data, list) else []), raw
        else:
            items = _test_items(scope, state, raw, ctx, reader_data)
            data = raw if ql == "JSONata" else input_path(state, raw, ctx, scope.variables)
            if ql != "JSONata":
                out["afterItemsPath"] = _compact(items)
        if "ItemSelector" in state or "Parameters" in state:  # AWS shows the step only when there is one
            selected = [_item_input(scope, state, data, ctx, ql, i, item) for i, item in enumerate(items)]
            out["afterItemSelector"] = _compact(selected)
        if isinstance(state.get("ItemBatcher"), dict):
            out["afterItemBatcher"] = _compact(_batched(scope, state, raw, data, ctx, ql, items))
        tolerated = _tolerance(scope, state, raw, ctx, ql) or {}
        if "ToleratedFailureCount" in tolerated:
            out["toleratedFailureCount"] = int(tolerated["ToleratedFailureCount"])
        if "ToleratedFailurePercentage" in tolerated:
            out["toleratedFailurePercentage"] = float(tolerated["ToleratedFailurePercentage"])
        out["maxConcurrency"] = _max_concurrency(state, raw, ctx, scope, ql)
    except StatesError:
        pass
    return out


def _entered(scope: Scope) -> Event:
    return Event(0, 0, "MapStateEntered", scope.rt.clock.time(), None, scope.fiber)


def inspection_json(value: Any) -> str:
    """A value as TestState's answer writes it: compact JSON, but a top-level array's items are
    joined by ", " (every array AWS's TestState recordings show: '["first", "second", "third"]',
    '[1, 4, 9]'; objects there are parsed by the recorder, so compact is assumed for them)."""
    if isinstance(value, list):
        return "[" + ", ".join(json.dumps(v, separators=(",", ":")) for v in value) + "]"
    return json.dumps(value, separators=(",", ":"))


_compact = inspection_json
