"""Mocked service integrations in Step Functions Local's mock configuration format.

    {"StateMachines": {"<machine name>": {"TestCases": {"<case>": {"<state>": "<response name>"}}}},
     "MockedResponses": {"<response name>": {"0": {"Return": ...}, "1-2": {"Throw": {"Error", "Cause"}}}}}

A StartExecution on `<machine arn>#<case>` runs that test case: each Task state it names answers the
mocked response for its invocation number (counted per state per execution from 0, so retries and
loops advance it) instead of making the call. The case is resolved at StartExecution into a
self-contained `MockCase` (state -> ranges) that is stored with the execution, so a later change of
the configuration (or a restart without it) does not change what a running execution sees.
Pure: no I/O besides `load_file`.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOP_FIELDS = ("StateMachines", "MockedResponses")
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


class MockConfigError(ValueError):
    """The file is not a mock configuration; the message names the place that is wrong."""


@dataclass(frozen=True)
class Mocked:
    """One invocation's answer: a result (Return) or an error (Throw)."""

    throws: bool
    result: Any = None
    error: str | None = None
    cause: str | None = None


# A state's responses: (first, last, answer) ranges, sorted and not overlapping.
Ranges = tuple[tuple[int, int, Mocked], ...]


@dataclass(frozen=True)
class MockCase:
    machine: str
    name: str
    states: dict[str, tuple[str, Ranges]]  # state name -> (response name, its ranges)

    def answer(self, state: str, invocation: int) -> Mocked | None:
        """The mocked answer of `state`'s invocation, None when the state is not mocked.
        Raises LookupError when the state is mocked but no range covers the invocation."""
        entry = self.states.get(state)
        if entry is None:
            return None
        response, ranges = entry
        for first, last, mocked in ranges:
            if first <= invocation <= last:
                return mocked
        raise LookupError(f"The mocked response '{response}' of state '{state}' defines no answer for "
                          f"invocation {invocation}")

    def to_json(self) -> str:
        return json.dumps({"machine": self.machine, "name": self.name, "states": {
            state: [response, [[a, b, _mocked_doc(m)] for a, b, m in ranges]]
            for state, (response, ranges) in self.states.items()}}, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> MockCase:
        doc = json.loads(text)
        return MockCase(doc["machine"], doc["name"], {
            state: (response, tuple((a, b, _parse_answer(m, "")) for a, b, m in ranges))
            for state, (response, ranges) in doc["states"].items()})


@dataclass(frozen=True)
class MockConfig:
    machines: dict[str, dict[str, dict[str, str]]]  # machine -> case -> state -> response name
    responses: dict[str, Ranges]
    document: dict[str, Any]  # as given, for GET /_onceflow/mock-config

    def test_case(self, machine: str, case: str) -> MockCase | None:
        cases = self.machines.get(machine)
        if cases is None or case not in cases:
            return None
        return MockCase(machine, case, {state: (name, self.responses[name]) for state, name in cases[case].items()})


def parse(doc: Any) -> MockConfig:
    """Validate a mock configuration (the decoded JSON) as a whole; MockConfigError on the first fault."""
    if not isinstance(doc, dict):
        raise MockConfigError("a mock configuration is a JSON object with StateMachines and MockedResponses")
    unknown = sorted(set(doc) - set(TOP_FIELDS))
    if unknown:
        raise MockConfigError(f"unknown top-level field {unknown[0]!r} (expected StateMachines, MockedResponses)")
    machines_doc = doc.get("StateMachines", {})
    responses_doc = doc.get("MockedResponses", {})
    _object(machines_doc, "StateMachines")
    _object(responses_doc, "MockedResponses")
    responses = {name: _parse_response(value, f"MockedResponses.{name}") for name, value in responses_doc.items()}
    machines: dict[str, dict[str, dict[str, str]]] = {}
    for machine, body in machines_doc.items():
        where = f"StateMachines.{machine}"
        _object(body, where)
        if set(body) != {"TestCases"}:
            raise MockConfigError(f"{where} must have exactly the field TestCases")
        cases = _object(body["TestCases"], f"{where}.TestCases")
        machines[machine] = {}
        for case, states in cases.items():
            case_where = f"{where}.TestCases.{case}"
            for state, response in _object(states, case_where).items():
                if not isinstance(response, str):
                    raise MockConfigError(f"{case_where}.{state} must name a mocked response (a string)")
                if response not in responses:
                    raise MockConfigError(f"{case_where}.{state} names the mocked response {response!r}, "
                                          "which MockedResponses does not define")
            machines[machine][case] = dict(states)
    return MockConfig(machines, responses, doc)


def load_file(path: Path | str) -> MockConfig:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise MockConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise MockConfigError(f"{path} is not JSON: {exc}") from None
    return parse(doc)


def split_case(arn: str) -> tuple[str, str | None]:
    """`<state machine arn>#<test case>` -> (arn, case); (arn, None) without '#'."""
    base, sep, case = arn.partition("#")
    return (base, case) if sep else (arn, None)


# ---------------------------------------------------------------------- TestState fieldValidationMode
def check_result(result: Any, shapes: dict[str, Any], output: str, strict: bool) -> str | None:
    """Why a mocked result does not conform to an operation's output shape (botocore's model
    `shapes`, the output shape's name), or None, in AWS's words (LocalStack's AWS-validated
    test_field_validation_mode* snapshots): "Field '<name>' must be a string", "Required field
    '<name>' is missing", ... naming the member, not its path. Members are named as Step
    Functions names them in results, first letter upper case ("ExecutionArn" for the API's
    "executionArn"), and matched exactly; fields the API does not define are not checked.
    PRESENT (strict=False) checks the fields given; STRICT also wants every required member."""
    if not isinstance(result, dict):
        return "The mocked result must be a JSON object"  # UNCONFIRMED wording
    return _check(result, shapes, shapes[output], "", strict)


def _check(value: Any, shapes: dict[str, Any], shape: dict[str, Any], name: str, strict: bool) -> str | None:
    kind = shape.get("type")
    if kind == "structure":
        if not isinstance(value, dict):
            return f"Field '{name}' must be an object"  # UNCONFIRMED wording
        for member_name, member in shape.get("members", {}).items():
            field = _pascal(member_name)
            if field not in value:
                if strict and member_name in shape.get("required", ()):
                    return f"Required field '{field}' is missing"
                continue
            problem = _check(value[field], shapes, shapes[member["shape"]], field, strict)
            if problem:
                return problem
        return None
    if kind == "list":
        if not isinstance(value, list):
            return f"Field '{name}' must be an array"
        member = shapes[shape["member"]["shape"]]
        return next((p for v in value if (p := _check(v, shapes, member, name, strict))), None)
    if kind == "map":
        if not isinstance(value, dict):
            return f"Field '{name}' must be an object"  # UNCONFIRMED wording
        member = shapes[shape["value"]["shape"]]
        return next((p for v in value.values() if (p := _check(v, shapes, member, name, strict))), None)
    return _check_scalar(value, shape, name)


def _check_scalar(value: Any, shape: dict[str, Any], name: str) -> str | None:
    kind = shape.get("type")
    if kind in ("string", "timestamp", "blob"):
        # a blob given as JSON (Lambda's Payload as an object) stays accepted: UNCONFIRMED
        if kind == "blob" and isinstance(value, (dict, list)):
            return None
        if not isinstance(value, str):
            return f"Field '{name}' must be a string"
        if kind == "string" and "enum" in shape and value not in shape["enum"]:
            return f"Field '{name}' is not an expected value"
        if "min" in shape and len(value) < shape["min"]:
            return f"Field '{name}' is smaller than the minimum length"
        if "max" in shape and len(value) > shape["max"]:
            return f"Field '{name}' is larger than the maximum length"  # UNCONFIRMED wording
        return None
    if kind in ("integer", "long", "float", "double"):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return f"Field '{name}' must be a number"
        if "min" in shape and value < shape["min"]:
            return f"Field '{name}' is less than the minimum value"
        if "max" in shape and value > shape["max"]:
            return f"Field '{name}' exceeds the maximum value"
        return None
    if kind == "boolean" and not isinstance(value, bool):
        return f"Field '{name}' must be a boolean"  # UNCONFIRMED wording
    return None  # documents


def _pascal(name: str) -> str:
    return name[:1].upper() + name[1:]


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise MockConfigError(f"{where} must be a JSON object")
    return value


def _parse_response(value: Any, where: str) -> Ranges:
    ranges: list[tuple[int, int, Mocked]] = []
    for key, answer in _object(value, where).items():
        m = _RANGE.match(key)
        if m is None:
            raise MockConfigError(f"{where}: invocation key {key!r} is not a number or a range such as '1-2'")
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) is not None else first
        if last < first:
            raise MockConfigError(f"{where}: invocation range {key!r} ends before it starts")
        ranges.append((first, last, _parse_answer(answer, f"{where}.{key}")))
    ranges.sort(key=lambda r: r[0])
    for (a1, b1, _), (a2, _b2, _) in itertools.pairwise(ranges):
        if a2 <= b1:
            raise MockConfigError(f"{where}: invocation ranges overlap at {a2} ({a1}-{b1} and {a2}-...)")
    return tuple(ranges)


def _parse_answer(answer: Any, where: str) -> Mocked:
    _object(answer, where)
    if len(answer) != 1 or next(iter(answer)) not in ("Return", "Throw"):
        raise MockConfigError(f"{where} must have exactly one of Return or Throw")
    if "Return" in answer:
        return Mocked(False, result=answer["Return"])
    throw = _object(answer["Throw"], f"{where}.Throw")
    extra = sorted(set(throw) - {"Error", "Cause"})
    if extra:
        raise MockConfigError(f"{where}.Throw has unknown field {extra[0]!r} (expected Error, Cause)")
    error, cause = throw.get("Error"), throw.get("Cause")
    if not isinstance(error, str) or not error:
        raise MockConfigError(f"{where}.Throw.Error must be a non-empty string")
    if cause is not None and not isinstance(cause, str):
        raise MockConfigError(f"{where}.Throw.Cause must be a string")
    return Mocked(True, error=error, cause=cause)


def _mocked_doc(m: Mocked) -> dict[str, Any]:
    if not m.throws:
        return {"Return": m.result}
    throw: dict[str, Any] = {"Error": m.error}
    if m.cause is not None:
        throw["Cause"] = m.cause
    return {"Throw": throw}


__all__ = ["MockCase", "MockConfig", "MockConfigError", "Mocked", "load_file", "parse", "split_case"]
