"""A Distributed Map's run as its Map state drives it: the run's names, the service that keeps
its rows (sfn/maprun.py), each child's context object, and the run going on after a redrive."""

from __future__ import annotations

import functools
from typing import Any

from onceflow.sfn import maprun
from onceflow.sfn.asl.nodes import State
from onceflow.sfn.engine.effects import Fx
from onceflow.sfn.engine.states.common import Scope, iso
from onceflow.sfn.maprun import MapRuns, RunIds


def run_ids(scope: Scope, state: State, entered_id: int, attempt: int) -> RunIds:
    """mapRun:<machine>/<Label, or the state's name>:<id>, stable across replays; a retried Map
    starts a new run."""
    seed = f"{scope.rt.row['arn']}#{entered_id}" + (f"#{attempt}" if attempt else "")
    config = (state.get("ItemProcessor") or {}).get("ProcessorConfig") or {}
    return RunIds.of(scope.rt.row, state.get("Label") or state.name, seed, config.get("ExecutionType") == "EXPRESS")


def map_runs(scope: Scope) -> MapRuns | None:
    """The service's map runs (None in an in-memory run without a stack: TestState)."""
    try:
        service = scope.rt.engine.stack.services.get("stepfunctions")
    except AssertionError:
        return None
    return getattr(service, "map_runs", None)


def child_context(rt: Any, ids: RunIds, label: str, index: int, item_input: Any) -> dict[str, Any]:
    """A map run's child is an execution of its own in the context object ($$.Execution.Id...)."""
    name = ids.child_name(index)
    return {
        "Execution": {"Id": ids.prefix + name, "Input": item_input, "StartTime": iso(rt.clock.time()), "Name": name,
                      "RoleArn": rt.row["role_arn"], "RedriveCount": 0},
        "StateMachine": {"Id": ids.sm_arn, "Name": f"{rt.row['sm_arn'].rsplit(':', 1)[1]}/{label}"},
    }


def redriven(scope: Scope, ids: RunIds, runs: MapRuns | None) -> None:
    """A redriven parent goes on with its failed map run (engine/redrive.py keeps its successful
    children): MapRunRedriven, the run reopened, its unsuccessful children to be run again."""
    rt, fiber = scope.rt, scope.fiber
    count = 0
    while (recorded := rt.peek(fiber)) is not None and recorded.type == "MapRunRedriven":
        count = int((recorded.details or {}).get("redriveCount", count + 1))
        rt.emit(fiber, "MapRunRedriven", recorded.details)
    if runs is None or rt.replaying(fiber) or runs.run_status(ids.arn) not in ("FAILED", "ABORTED"):
        return
    rt.emit(fiber, "MapRunRedriven", {"mapRunArn": ids.arn, "redriveCount": count + 1})
    rt.write(functools.partial(maprun.redrive_run, run_arn=ids.arn, now=rt.clock.time()))
    runs.run_ended(ids.arn)  # the children stopped in the last attempt run again


def stopped_child(key: str) -> Fx:
    """In place of a child that StopExecution stopped before a restart: it does not run again."""
    return None
    yield
