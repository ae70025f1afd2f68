"""TestState: one state run on its own, with the same state code as executions, kept in memory.

The state runs in a throw-away runtime on the in-memory engine (memory.py): its commits stay in a
list and its task calls are made inline. Retriers are not waited on: an error a retrier would take
is reported as RETRIABLE, an error a catcher takes as CAUGHT_ERROR with the catcher's Next, others
as FAILED. The request's checks, the context the state runs in and the inspection data follow
AWS's recorded answers (LocalStack's AWS-validated TestState snapshots; the cases are in
tests/service/test_sfn_test_state_recorded.py).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Generator
from functools import lru_cache
from typing import Any

from onceflow.awsmodels import files
from onceflow.awsmodels.partitions import partition
from onceflow.sfn import errors as E
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.asl.load import load_state
from onceflow.sfn.asl.nodes import State
from onceflow.sfn.asl.retry import error_matches, find_retrier, retry_delay_seconds, should_retry
from onceflow.sfn.engine.events import Event
from onceflow.sfn.engine.integrations import resolve_integration
from onceflow.sfn.engine.integrations.http_task import TRACE as HTTP_TRACE
from onceflow.sfn.engine.memory import MemoryEngine
from onceflow.sfn.engine.runner import Runtime
from onceflow.sfn.engine.state import History
from onceflow.sfn.engine.states import HANDLERS
from onceflow.sfn.engine.states.common import Scope, input_path, iso, result_path, template
from onceflow.sfn.engine.states.fanout_test import inspection_json, map_inspection, mocked_fanout
from onceflow.sfn.mocks import MockCase, Mocked, check_result

FAILURE_EVENTS = {"TaskFailed", "TaskTimedOut", "LambdaFunctionFailed", "LambdaFunctionTimedOut",
                  "MapStateFailed", "ParallelStateFailed", "TaskStartFailed"}
# A TestState call holds a request thread: an expression that never returns ends after this long
# with States.Timeout (TestState has no TimeoutSeconds of its own).
TEST_STATE_LIMIT_S = 60.0


def test_state_mock(mock: dict[str, Any] | None, state: dict[str, Any], reveal_secrets: bool = False) -> Mocked | None:
    """TestState's `mock` (result or errorOutput) as the answer its Task, Map or Parallel gives
    instead of running; ValidationException for a mock that is not one (AWS's recorded wordings:
    LocalStack's test_state_mock_validation and test_test_state_mock_scenarios snapshots)."""
    kind = state.get("Type")
    if mock is None:
        if kind in ("Map", "Parallel"):  # their iterations or branches never run in TestState
            raise E.test_state_needs_mock()
        if _has_task_token(state):  # [AWS] supported "only when a mock is specified" (API reference)
            raise E.test_state_pattern_needs_mock()
        return None
    if kind not in ("Task", "Map", "Parallel"):
        raise E.validation(f"State type '{kind}' is not supported when a mock is specified")
    has_result, has_error = mock.get("result") is not None, mock.get("errorOutput") is not None
    if has_result and has_error:
        raise E.validation("A test mock should have only one of the following fields: [result, errorOutput].")
    if not has_result and not has_error:
        raise E.validation("A mock must specify exactly one of result or errorOutput")  # UNCONFIRMED wording
    if reveal_secrets:
        raise E.validation("TestState does not support RevealSecrets when a mock is specified.")
    if has_error:
        error = mock["errorOutput"].get("error")
        if not error:
            raise E.validation("mock.errorOutput.error is required when mock.errorOutput is specified")
        return Mocked(True, error=error, cause=mock["errorOutput"].get("cause"))
    try:
        result = json.loads(mock["result"])
    except ValueError:
        raise E.validation("Mocked result must be valid JSON") from None
    if kind == "Map":
        _check_map_result(result, state)
    elif kind == "Parallel":
        _check_parallel_result(result, state)
    mode = mock.get("fieldValidationMode") or "STRICT"
    # A Map's or Parallel's result has no API model to check it against.
    model = _output_model(state.get("Resource")) if mode != "NONE" and kind == "Task" else None
    if model is not None:
        shapes, output = model
        problem = check_result(result, shapes, output, strict=mode == "STRICT")
        if problem:
            raise E.validation(f"Mock result schema validation error: {problem}")
    return Mocked(False, result=result)


def _check_map_result(result: Any, state: dict[str, Any]) -> None:
    """A Map's result is its iterations' results (an array), or with a ResultWriter the writer's
    summary (an object)."""
    if "ResultWriter" in state:
        if not isinstance(result, dict):
            raise E.validation("Mocked result must be a JSON object.")
    elif not isinstance(result, list):
        raise E.validation("Mocked result must be an array.")


def _check_parallel_result(result: Any, state: dict[str, Any]) -> None:
    """A Parallel's result holds one item per branch."""
    if not isinstance(result, list):
        raise E.validation("Mocked result must be an array.")
    branches = state.get("Branches")
    if isinstance(branches, list) and len(result) != len(branches):
        raise E.validation("Mocked result must contain the same number of items as number of Parallel branches.")


def find_state(machine: dict[str, Any], name: str, where: str = "") -> tuple[Any, str] | None:
    """The state `name` of a whole definition and its location ("/States/M/ItemProcessor/States/S"):
    TestState's stateName reaches states inside a Map's ItemProcessor (or Iterator) and a
    Parallel's Branches too (AWS: test_test_state_machine_scenarios' HandleItem)."""
    states = machine.get("States")
    if not isinstance(states, dict):
        return None
    if name in states:
        return states[name], f"{where}/States/{name}"
    for key, state in states.items():
        if not isinstance(state, dict):
            continue
        here = f"{where}/States/{key}"
        inner = [(f"{here}/{part}", state[part]) for part in ("ItemProcessor", "Iterator") if part in state]
        branches = state.get("Branches")
        if isinstance(branches, list):
            inner += [(f"{here}/Branches/{i}", branch) for i, branch in enumerate(branches)]
        for location, sub in inner:
            found = find_state(sub, name, location) if isinstance(sub, dict) else None
            if found is not None:
                return found
    return None


# TestState's `context`: the fields a context object may hold (the Map's are refused), by part.
_CONTEXT_FIELDS: dict[str, dict[str, str]] = {
    "Execution": {"Id": "string", "Input": "any", "Name": "string", "RoleArn": "string", "StartTime": "string",
                  "RedriveCount": "number", "RedriveTime": "string"},
    "State": {"EnteredTime": "string", "Name": "string", "RetryCount": "number"},
    "StateMachine": {"Id": "string", "Name": "string"},
    "Task": {"Token": "string"},
}


def test_state_context(text: str | None, state: dict[str, Any]) -> dict[str, Any] | None:
    """TestState's `context`, the whole of $$ for the state, checked as AWS checks it (LocalStack's
    AWS-validated test_state_context_object snapshot): ValidationException "Invalid Context object
    provided: ..." for a field it may not hold, a wrong type, or a Task part where the state
    has no task token."""
    if text is None:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        raise _bad_context("Context object must be valid JSON") from None  # UNCONFIRMED wording
    if not isinstance(doc, dict):
        raise _bad_context("Context object must be a JSON object")  # UNCONFIRMED wording
    for part, value in doc.items():
        if part == "Map":
            raise _bad_context("'Map' field is not supported when mocking a Context object")
        fields = _CONTEXT_FIELDS.get(part)
        if fields is None:
            raise _bad_context(f"Field '{part}' is not allowed")
        if not isinstance(value, dict):
            raise _bad_context(f"{part} must be an object")  # UNCONFIRMED wording
        for key, item in value.items():
            _check_context_field(part, key, item, fields)
    if "Task" in doc and not _has_task_token(state):
        raise _bad_context("Context object contains 'Task' when state is not a Task state with a '.sync' or "
                           "'.waitForTaskToken' service integration pattern")
    return doc


def _check_context_field(part: str, key: str, item: Any, fields: dict[str, str]) -> None:
    kind = fields.get(key)
    if kind is None:
        raise _bad_context(f"Field '{key}' is not allowed")
    if kind == "string" and not isinstance(item, str):
        raise _bad_context(f"{part}.{key} must be a string")
    if kind == "number" and (isinstance(item, bool) or not isinstance(item, (int, float))):
        raise _bad_context(f"{part}.{key} must be a number")  # UNCONFIRMED wording


def _has_task_token(state: dict[str, Any]) -> bool:
    resource = state.get("Resource")
    return state.get("Type") == "Task" and isinstance(resource, str) and resource.endswith(
        (".waitForTaskToken", ".sync", ".sync:2"))


def _bad_context(problem: str) -> Exception:
    return E.validation(f"Invalid Context object provided: {problem}")


# integration service names that botocore spells otherwise (aws-sdk:sfn, the optimized states:)
_BOTOCORE_NAMES = {"sfn": "stepfunctions", "states": "stepfunctions", "eventbridge": "events"}


@lru_cache(maxsize=256)
def _output_model(resource: Any) -> tuple[dict[str, Any], str] | None:
    """(botocore shapes, output shape name) of a Task resource's API call;
    None when there is none to check against: bare Lambda ARNs and activities (any JSON), .sync
    results (another call's output), or an operation botocore does not know."""
    if not isinstance(resource, str):
        return None
    integ = resolve_integration(resource)
    if integ.kind in ("bare_lambda", "activity") or not integ.resource_type or "." in integ.resource:
        return None
    service = integ.resource_type.split(":", 1)[-1]
    service = _BOTOCORE_NAMES.get(service, service)
    action = integ.resource[:1].upper() + integ.resource[1:]
    try:
        model = files.default().load_service_model(service)
    except files.ModelNotFound:
        return None
    op = model["operations"].get(action)
    if op is None or "output" not in op:
        return None
    return model["shapes"], op["output"]["shape"]


def run_test_state(engine: Any, account: str, region: str, state: dict[str, Any], name: str, role_arn: str,
                   state_input: Any, variables: dict[str, Any], query_language: str, *,
                   mocked: Mocked | None = None, inspection_level: str = "INFO",
                   retry_count: int = 0, reveal_secrets: bool = False, map_failures: int | None = None,
                   reader_data: Any = None, context: dict[str, Any] | None = None) -> dict[str, Any]:
    inline = MemoryEngine(engine.stack, scale=1e9, halting=engine)  # a Wait state does not wait in TestState
    now = time.time()
    prefix = f"arn:{partition(region)}:states:{region}:{account}"
    execution = str(uuid.uuid4())
    row = {  # AWS runs the state in an express execution (its $states.context, recorded)
        "arn": f"{prefix}:express:TestStateMachine:{execution}",
        "sm_arn": f"{prefix}:stateMachine:TestStateMachine", "account": account,
        "region": region, "name": execution, "input": json.dumps(state_input), "start": now,
        "role_arn": role_arn, "redrive_count": 0, "definition": json.dumps({"StartAt": name, "States": {}}),
    }
    if mocked is not None:  # the Task answers the mock for its one invocation (no retry is taken here)
        row["mock_case"] = MockCase("TestStateMachine", "TestState", {name: ("mock", ((0, 0, mocked),))}).to_json()
    inline.events.append(Event(1, 0, "ExecutionStarted", now, None, "r"))
    node = load_state(name, state, query_language)
    tested = load_state(name, {k: v for k, v in state.items() if k != "Retry"}, query_language)
    if mocked is None and tested.type == "Task" and ":activity:" in str(state.get("Resource", "")):
        # AWS's TestState runs no activity (no worker could take it): only a mocked one. UNCONFIRMED wording.
        raise E.validation("TestState does not support Activity tasks unless they are mocked")
    outcome: dict[str, Any] = {}

    def root(rt: Runtime) -> Generator[Any, Any, None]:
        rt.emit("r", "ExecutionStarted", None, update=False)
        scope = Scope(rt, "r", dict(variables), query_language, HANDLERS)
        fanout = tested.type in ("Map", "Parallel") and (mocked is not None or map_failures is not None)
        try:
            if fanout:  # mocked: its iterations or branches do not run (fanout_test.py)
                outcome["next"], outcome["output"] = yield from mocked_fanout(
                    scope, tested, state_input, mocked, map_failures, reader_data, outcome)
            else:
                outcome["next"], outcome["output"] = yield from HANDLERS[tested.type](scope, tested, state_input)
        except StatesError as e:
            outcome["error"], outcome["cause"] = e.error or None, e.cause or None
        outcome["variables"] = scope.variables

    rt = Runtime(inline, row, History(list(inline.events)), root)
    if context is None:
        # "StateName" even for a stateName of a whole definition (test_state_with_variables)
        # and RetryCount only where a state can retry, as in an execution (a Pass there has none)
        context = _own_context(row, state_input, "StateName",
                               retry_count if state.get("Type") in ("Task", "Map", "Parallel") else None)
        rt.context_adds_token = True
    rt.context_given = context
    rt.deadline = now + TEST_STATE_LIMIT_S
    traced: list[dict[str, Any]] = []  # TRACE: an HTTP Task's request and response (inline calls see it)
    token = HTTP_TRACE.set((traced, reveal_secrets)) if inspection_level == "TRACE" else None
    try:
        while rt.drive() == "inflight":
            pass
    finally:
        if token is not None:
            HTTP_TRACE.reset(token)
    if inline.closed is not None and "error" not in outcome:
        outcome["error"], outcome["cause"] = inline.closed
    out = _result(node, state_input, outcome, inline.events, retry_count)
    if inspection_level in ("DEBUG", "TRACE"):
        out["inspectionData"].update(_debug_data(node, state_input, variables, inline.events, context or {}))
    if traced:
        out["inspectionData"].update(traced[-1])
    if inspection_level in ("DEBUG", "TRACE") and node.type == "Map":
        scope = Scope(rt, "r", dict(variables), query_language, HANDLERS)
        out["inspectionData"].update(map_inspection(scope, node, state_input, reader_data))
    if inspection_level in ("DEBUG", "TRACE") and out["status"] == "SUCCEEDED" and node.type in ("Map", "Parallel"):
        out["inspectionData"].update(_fanout_result_data(node, mocked, context or {}, variables))
    if inspection_level not in ("DEBUG", "TRACE"):
        del out["inspectionData"]  # AWS answers INFO with the outcome alone (every INFO recording)
    return out


def _debug_data(state: State, state_input: Any, variables: dict[str, Any], events: list[Event],
                ctx: dict[str, Any]) -> dict[str, str]:
    """DEBUG's data-processing steps of a Task or Pass: the effective input after InputPath and
    Parameters (Arguments in JSONata), and the result after ResultSelector and ResultPath."""
    data: dict[str, str] = {}
    scheduled = next((e for e in events if e.type in ("TaskScheduled", "LambdaFunctionScheduled")), None)
    params = None
    if scheduled is not None and scheduled.details:
        params = scheduled.details.get("parameters", scheduled.details.get("input"))
    if state.query_language == "JSONata":
        if params is not None:
            data["afterArguments"] = _compact(json.loads(params))
        return data
    try:
        effective = input_path(state, state_input, ctx, variables)
        data["afterInputPath"] = _compact(effective)
        if state.type == "Pass":
            return _pass_data(state, state_input, effective, ctx, variables)
    except StatesError:
        return data
    if params is not None:
        data["afterParameters"] = _compact(json.loads(params))
    succeeded = next((e for e in events if e.type in ("TaskSucceeded", "LambdaFunctionSucceeded")), None)
    if succeeded is None or not succeeded.details or "output" not in succeeded.details:
        return data
    result = json.loads(succeeded.details["output"])
    try:
        if "ResultSelector" in state:
            result = template(state["ResultSelector"], result, ctx, variables)
        data["afterResultSelector"] = _compact(result)
        data["afterResultPath"] = _compact(result_path(state, state_input, result))
    except StatesError:
        pass
    return data


def _own_context(row: dict[str, Any], state_input: Any, name: str, retry_count: int | None) -> dict[str, Any]:
    """The context object TestState gives a state when the call gives none, as AWS records it
    (test_state_configuration's $states.context): no RedriveCount, the state's RetryCount."""
    # without roleArn the member is there and null (test_state_with_variables[base_expressions])
    execution: dict[str, Any] = {"Id": row["arn"], "Input": state_input, "Name": row["name"],
                                 "RoleArn": row["role_arn"] or None, "StartTime": iso(row["start"])}
    state: dict[str, Any] = {"Name": name, "EnteredTime": iso(row["start"])}
    if retry_count is not None:
        state["RetryCount"] = retry_count
    return {"Execution": execution,
            "StateMachine": {"Id": row["sm_arn"], "Name": row["sm_arn"].rsplit(":", 1)[1]}, "State": state}


def _fanout_result_data(state: State, mocked: Mocked | None, ctx: dict[str, Any],
                        variables: dict[str, Any]) -> dict[str, str]:
    """A mocked Map's or Parallel's afterResultSelector (JSONPath): its result through ResultSelector."""
    if mocked is None or mocked.throws or state.query_language == "JSONata":
        return {}
    result = mocked.result
    try:
        if "ResultSelector" in state:
            result = template(state["ResultSelector"], result, ctx, variables)
    except StatesError:
        return {}
    return {"afterResultSelector": _compact(result)}


def _pass_data(state: State, state_input: Any, effective: Any, ctx: dict[str, Any],
               variables: dict[str, Any]) -> dict[str, str]:
    """A Pass state's DEBUG steps as AWS records them (test_test_state_scenarios): with a Result,
    that Result is the result and the input steps are not shown; without one, Parameters' output
    is what the result steps start from, and no `result` is shown."""
    if "Result" in state:
        result = state["Result"]
        data = {"result": _compact(result)}
    else:
        data = {"afterInputPath": _compact(effective)}
        if "Parameters" in state:
            effective = template(state["Parameters"], effective, ctx, variables)
        result = effective
        data["afterParameters"] = _compact(result)
    data["afterResultSelector"] = _compact(result)
    data["afterResultPath"] = _compact(result_path(state, state_input, result))
    return data


_compact = inspection_json


def _result(state: State, state_input: Any, outcome: dict[str, Any], events: list[Event],
            retry_count: int = 0) -> dict[str, Any]:
    failure = next((e for e in events if e.type in FAILURE_EVENTS), None)
    caught = outcome.get("caught") or (None, None)  # a mocked Map/Parallel error (its Failed event has no details)
    error = outcome.get("error") or ((failure.details or {}).get("error") if failure else None) or caught[0]
    cause = outcome.get("cause") or ((failure.details or {}).get("cause") if failure else None) or caught[1]
    inspection: dict[str, Any] = {"input": _compact(state_input)}
    succeeded = next((e for e in events if e.type in ("TaskSucceeded", "LambdaFunctionSucceeded")), None)
    if succeeded is not None and succeeded.details:
        inspection["result"] = succeeded.details.get("output")
    if outcome.get("variables"):
        inspection["variables"] = _compact(outcome["variables"])
    out: dict[str, Any] = {}
    retrier = find_retrier(state.retriers, error) if failure is not None else None
    retriable = retrier is not None and should_retry(state.retriers[retrier], retry_count)
    details: dict[str, int] = {}  # which retrier or catcher took the error (AWS's errorDetails)
    if retrier is not None:
        if retriable:
            details["retryBackoffIntervalSeconds"] = int(retry_delay_seconds(state.retriers[retrier],
                                                                             retry_count + 1))
        details["retryIndex"] = retrier
    if retriable:
        out.update({"error": error, "cause": cause, "status": "RETRIABLE"})
    elif "error" in outcome or ("output" not in outcome):
        out.update({k: v for k, v in (("error", error), ("cause", cause)) if v is not None})
        out["status"] = "FAILED"
    else:
        out["output"] = _compact(outcome["output"])
        if outcome.get("next"):
            out["nextState"] = outcome["next"]
        if failure is not None:
            out.update({k: v for k, v in (("error", error), ("cause", cause)) if v is not None})
            out["status"] = "CAUGHT_ERROR"
            caught_by = next((i for i, c in enumerate(state.catchers) if error_matches(c.error_equals, error)), None)
            if caught_by is not None:
                details["catchIndex"] = caught_by
        else:
            # Succeed, Choice: no result steps; JSONata has no ResultPath (AWS)
            if state.type in ("Task", "Map", "Parallel") and state.query_language != "JSONata":
                inspection["afterResultPath"] = out["output"]
            out["status"] = "SUCCEEDED"
    if details:
        inspection["errorDetails"] = details
    out["inspectionData"] = inspection
    return out


__all__ = ["find_state", "run_test_state", "test_state_context", "test_state_mock"]
