"""The AWS-recorded Step Functions corpus (../shared/conformance/sfn) for the pure-language tests.

`load(group)` yields the recorded cases; `matches(expected, actual)` compares JSON values the
way the corpus runner does (type-strict, `<placeholder>` tokens match any text);
`run_simple(case)` runs a definition without Task states (Pass, Choice, Wait, Succeed, Fail, and
Map and Parallel around them) through the engine's runtime and state handlers in memory
(engine/memory.py), so the cases that need no task call check the language pieces and the state
code together, including AWS's cause texts.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from onceflow.sfn.engine.memory import run_definition
from onceflow.sfn.engine.states import run_execution
from shared_data import SFN_CORPUS as CORPUS

_TOKEN = re.compile(r"<[A-Za-z0-9_:\-. ]{1,80}>|snf_role_arn|111111111111")


def load(*groups: str, kinds: tuple[str, ...] = ("execution",)) -> list[dict]:
    out = []
    for group in groups:
        for f in sorted((CORPUS / "cases").glob(f"{group}/*.json")):
            case = json.loads(f.read_text())
            if case["kind"] in kinds:
                out.append(case)
    return out


def ids(cases: list[dict]) -> list[str]:
    return [c["id"] for c in cases]


def matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, str):
        if not isinstance(actual, str):
            return False
        if expected == actual or expected in ("date", "timestamp"):
            return True
        parts = _TOKEN.split(expected)
        pattern = ".+?".join(re.escape(p) for p in parts)
        return re.fullmatch(pattern, actual, re.S) is not None
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and \
            all(matches(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and \
            all(matches(e, a) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, bool) or expected is None:
        return actual is expected
    if isinstance(expected, (int, float)):
        return not isinstance(actual, bool) and isinstance(actual, (int, float)) and \
            isinstance(expected, float) == isinstance(actual, float) and expected == actual
    return bool(expected == actual)


def is_simple(case: dict) -> bool:
    """No Task anywhere (Map iterations and Parallel branches included): it runs without a server."""
    return "Task" not in _types(case["definition"])


def _types(program: dict) -> list[str]:
    out = []
    for state in program["States"].values():
        out.append(state.get("Type"))
        for inner in [*state.get("Branches", []), state.get("ItemProcessor"), state.get("Iterator")]:
            if isinstance(inner, dict):
                out += _types(inner)
    return out


# The execution as the recorded context objects name it (the corpus's placeholders match these).
ROW = {"arn": "arn:aws:states:us-east-1:111111111111:execution:machine-x:exec-y",
       "sm_arn": "arn:aws:states:us-east-1:111111111111:stateMachine:machine-x", "name": "exec-y",
       "region": "us-east-1", "account": "111111111111", "role_arn": "arn:aws:iam::111111111111:role/r",
       "redrive_count": 0}
START = datetime(2024, 1, 1, tzinfo=UTC).timestamp()  # StartTime and EnteredTime 2024-01-01T00:00:00.000Z


def run_simple(case: dict) -> tuple[str, Any, str | None, str | None]:
    """(status, output, error, cause) of a definition without Task states, run by the engine's own
    runtime and state handlers in memory (no server; Waits end by jumping the clock)."""
    run = run_definition(json.dumps(case["definition"]), case["input"], ROW, run_execution, start=START)
    return run.status, run.output, run.error, run.cause
