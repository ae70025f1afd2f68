"""Graph checks of a schema-valid definition: transitions, terminal states, reachability.

They run on the loaded nodes (load.py; schema-valid, so every field has its type). Per container
(the machine, each Parallel branch, each Map processor), in AWS's order:
dangling targets (`Missing 'Next' target: X` for every position, Next/Default/Choices/Catch),
then `MISSING_END_STATE` when no state can end the workflow (which suppresses the reachability
walk), then unreachable states. [AWS wording, recorded through emulator issues quoting AWS]
"""

from __future__ import annotations

from collections.abc import Mapping

from onceflow.sfn.asl.diagnostics import Diagnostic
from onceflow.sfn.asl.load import ENDLESS
from onceflow.sfn.asl.nodes import Machine, Program, State


def graph_diagnostics(machine: Machine) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    _container(machine.program, "", out)
    return out


def _container(program: Program, prefix: str, out: list[Diagnostic]) -> None:
    states = program.states
    dangling = []
    for name, state in states.items():
        for target, loc in _transitions(state, f"{prefix}/States/{name}"):
            if target not in states:
                dangling.append(Diagnostic("ERROR", "MISSING_TRANSITION_TARGET",
                                           f"Missing 'Next' target: {target}", loc))
    start = program.start_at
    if start not in states:
        dangling.insert(0, Diagnostic("ERROR", "MISSING_TRANSITION_TARGET",
                                      f"Missing 'Next' target: {start}", f"{prefix}/StartAt"))
    out.extend(dangling)
    if not any(_is_terminal(s) for s in states.values()):
        out.append(Diagnostic("ERROR", "MISSING_END_STATE", "Workflow has no terminal state"))
    else:
        reached = _reachable(start, states)
        for name in states:
            if name not in reached:
                out.append(Diagnostic("ERROR", "MISSING_TRANSITION_TARGET",
                                      f'State "{name}" is not reachable.', f"{prefix}/States/{name}"))
    for name, state in states.items():
        _children(state, f"{prefix}/States/{name}", out)


def _children(state: State, loc: str, out: list[Diagnostic]) -> None:
    for i, branch in enumerate(state.branches):
        _container(branch, f"{loc}/Branches[{i}]", out)
    if state.processor is not None:
        key = "ItemProcessor" if "ItemProcessor" in state else "Iterator"
        _container(state.processor, f"{loc}/{key}", out)


def _is_terminal(state: State) -> bool:
    return state.type in ENDLESS or state.get("End") is True


def _transitions(state: State, loc: str) -> list[tuple[str, str]]:
    out = []
    if isinstance(state.get("Next"), str):
        out.append((state["Next"], f"{loc}/Next"))
    for i, rule in enumerate(state.get("Choices") or []):
        if isinstance(rule, dict) and isinstance(rule.get("Next"), str):
            out.append((rule["Next"], f"{loc}/Choices[{i}]/Next"))
    if isinstance(state.get("Default"), str):
        out.append((state["Default"], f"{loc}/Default"))
    for i, catcher in enumerate(state.catchers):
        out.append((catcher.next, f"{loc}/Catch[{i}]/Next"))
    return out


def _reachable(start: str, states: Mapping[str, State]) -> set[str]:
    seen: set[str] = set()
    todo = [start] if start in states else []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(t for t, _ in _transitions(states[name], "") if t in states and t not in seen)
    return seen
