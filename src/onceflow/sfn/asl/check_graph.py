"""Graph checks of a schema-valid definition: transitions, terminal states, reachability.

Per container (the machine, each Parallel branch, each Map processor), in AWS's order:
dangling targets (`Missing 'Next' target: X` for every position, Next/Default/Choices/Catch),
then `MISSING_END_STATE` when no state can end the workflow (which suppresses the reachability
walk), then unreachable states. [AWS wording, recorded through emulator issues quoting AWS]
"""

from __future__ import annotations

from typing import Any

from onceflow.sfn.asl.diagnostics import Diagnostic

_TERMINAL_TYPES = ("Succeed", "Fail")


def graph_diagnostics(definition: dict) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    _container(definition, "", out)
    return out


def _container(machine: dict, prefix: str, out: list[Diagnostic]) -> None:
    states: dict = machine.get("States") or {}
    dangling = []
    for name, state in states.items():
        for target, loc in _transitions(state, f"{prefix}/States/{name}"):
            if target not in states:
                dangling.append(Diagnostic("ERROR", "MISSING_TRANSITION_TARGET",
                                           f"Missing 'Next' target: {target}", loc))
    start = machine.get("StartAt")
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


def _children(state: Any, loc: str, out: list[Diagnostic]) -> None:
    if not isinstance(state, dict):
        return
    for i, branch in enumerate(state.get("Branches") or []):
        if isinstance(branch, dict):
            _container(branch, f"{loc}/Branches[{i}]", out)
    for key in ("ItemProcessor", "Iterator"):
        if isinstance(state.get(key), dict):
            _container(state[key], f"{loc}/{key}", out)


def _is_terminal(state: Any) -> bool:
    return isinstance(state, dict) and (state.get("Type") in _TERMINAL_TYPES or state.get("End") is True)


def _transitions(state: Any, loc: str) -> list[tuple[str, str]]:
    if not isinstance(state, dict):
        return []
    out = []
    if isinstance(state.get("Next"), str):
        out.append((state["Next"], f"{loc}/Next"))
    for i, rule in enumerate(state.get("Choices") or []):
        if isinstance(rule, dict) and isinstance(rule.get("Next"), str):
            out.append((rule["Next"], f"{loc}/Choices[{i}]/Next"))
    if isinstance(state.get("Default"), str):
        out.append((state["Default"], f"{loc}/Default"))
    for i, catcher in enumerate(state.get("Catch") or []):
        if isinstance(catcher, dict) and isinstance(catcher.get("Next"), str):
            out.append((catcher["Next"], f"{loc}/Catch[{i}]/Next"))
    return out


def _reachable(start: Any, states: dict) -> set[str]:
    seen: set[str] = set()
    todo = [start] if start in states else []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(t for t, _ in _transitions(states[name], "") if t in states and t not in seen)
    return seen
