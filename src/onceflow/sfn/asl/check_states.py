"""Schema checks of a definition: fields per state type and query language, field values.

Messages marked [AWS] are recorded from real AWS; the others follow the same patterns.
Locations use AWS's pointer style: `/States/A/Choices[0]/Next`.
"""

from __future__ import annotations

import re
from typing import Any

from onceflow.sfn.asl.check_map import check_map_fields
from onceflow.sfn.asl.choice import OPERATORS
from onceflow.sfn.asl.diagnostics import SchemaErrors
from onceflow.sfn.asl.intrinsics import is_intrinsic, is_valid_intrinsic
from onceflow.sfn.asl.jsonata import is_jsonata, jsonata_syntax_error, top_level_references
from onceflow.sfn.asl.paths import is_reference_path, is_valid_path
from onceflow.sfn.asl.resources import resource_problem
from onceflow.sfn.asl.timestamps import parse_wait_timestamp

STATE_TYPES = ("Task", "Wait", "Pass", "Succeed", "Fail", "Choice", "Parallel", "Map")
_MACHINE_FIELDS = ("Comment", "StartAt", "States", "TimeoutSeconds", "Version", "QueryLanguage")
_COMMON = ("Type", "Comment", "QueryLanguage")
_FLOW = ("Next", "End")
_IO = ("InputPath", "OutputPath", "Output")
_FIELDS: dict[str, tuple[str, ...]] = {
    "Pass": (*_COMMON, *_FLOW, *_IO, "Assign", "Parameters", "Result", "ResultPath"),
    "Task": (*_COMMON, *_FLOW, *_IO, "Assign", "Resource", "Parameters", "Arguments", "ResultSelector",
             "ResultPath", "Retry", "Catch", "TimeoutSeconds", "TimeoutSecondsPath", "HeartbeatSeconds",
             "HeartbeatSecondsPath", "Credentials"),
    "Choice": (*_COMMON, *_IO, "Assign", "Choices", "Default"),
    "Wait": (*_COMMON, *_FLOW, *_IO, "Assign", "Seconds", "Timestamp", "SecondsPath", "TimestampPath"),
    "Succeed": (*_COMMON, *_IO),
    "Fail": (*_COMMON, "Error", "Cause", "ErrorPath", "CausePath"),
    "Parallel": (*_COMMON, *_FLOW, *_IO, "Assign", "Branches", "Parameters", "Arguments",
                 "ResultSelector", "ResultPath", "Retry", "Catch"),
    "Map": (*_COMMON, *_FLOW, *_IO, "Assign", "ItemProcessor", "Iterator", "ItemsPath", "Items",
            "ItemSelector", "Parameters", "MaxConcurrency", "MaxConcurrencyPath", "ToleratedFailureCount",
            "ToleratedFailureCountPath", "ToleratedFailurePercentage", "ToleratedFailurePercentagePath",
            "ItemReader", "ItemBatcher", "ResultWriter", "Label", "ResultSelector", "ResultPath",
            "Retry", "Catch"),
}
JSONATA_ONLY = frozenset({"Output", "Arguments", "Items"})
JSONPATH_ONLY = frozenset({"InputPath", "OutputPath", "Parameters", "ResultSelector", "ResultPath",
                           "ItemsPath", "SecondsPath", "TimestampPath", "ErrorPath", "CausePath",
                           "TimeoutSecondsPath", "HeartbeatSecondsPath", "MaxConcurrencyPath",
                           "ToleratedFailureCountPath", "ToleratedFailurePercentagePath", "Iterator"})
_PATH_FIELDS = ("InputPath", "OutputPath", "ItemsPath", "SecondsPath", "TimestampPath", "ErrorPath",
                "CausePath", "TimeoutSecondsPath", "HeartbeatSecondsPath", "MaxConcurrencyPath",
                "ToleratedFailureCountPath", "ToleratedFailurePercentagePath")
_TEMPLATE_FIELDS = ("Parameters", "ResultSelector", "ItemSelector")
# Characters a Map Label may not contain (the execution-name rules) and AWS's odd report of them.
_LABEL_BAD = re.compile(r"[\s<>{}\[\]?*\"#%\\^|~`$&,;:/\x00-\x1f\x7f-\x9f\ufffe\uffff]")


class StateChecker:
    def __init__(self, errors: SchemaErrors, machine_type: str, raw_text: str) -> None:
        self.errors = errors
        self.express = machine_type == "EXPRESS"
        self.raw_text = raw_text
        self.top_language = "JSONPath"

    def add(self, message: str, location: str | None) -> None:
        self.errors.add(message, location)

    # ----------------------------------------------------------------- machine and containers
    def check_machine(self, machine: dict[str, Any]) -> None:
        ql = machine.get("QueryLanguage", "JSONPath")
        if ql not in ("JSONPath", "JSONata"):
            self.add("The field 'QueryLanguage' should have one of these values: [JSONPath, JSONata]",
                     "/QueryLanguage")
        self.top_language = "JSONata" if ql == "JSONata" else "JSONPath"
        for key in machine:
            if key not in _MACHINE_FIELDS:
                self.add(f"Field '{key}' is not supported", "/")
        self._container(machine, "", top=True)
        if "TimeoutSeconds" in machine and not _is_nat(machine["TimeoutSeconds"]):
            self.add("The value for the field 'TimeoutSeconds' must be a positive integer", "/TimeoutSeconds")

    def _container(self, machine: dict[str, Any], prefix: str, top: bool = False) -> None:
        missing = [f for f in ("States", "StartAt") if f not in machine]
        if missing:  # [AWS] "These fields are required: [States, StartAt] at /"
            self.add(f"These fields are required: [{', '.join(missing)}]", prefix or "/")
        if not top and "QueryLanguage" in machine:
            self.add("Field 'QueryLanguage' is not supported", prefix)
        if "StartAt" in machine and not isinstance(machine["StartAt"], str):
            self.add("The value for the field 'StartAt' must be a STRING", f"{prefix}/StartAt")
        states = machine.get("States")
        if states is None:
            return
        if not isinstance(states, dict):
            self.add("The value for the field 'States' must be an OBJECT", f"{prefix}/States")
            return
        for name, state in states.items():
            loc = f"{prefix}/States/{name}"
            if len(name) > 80:
                self.add("The state name must be at most 80 characters long", loc)
            if not isinstance(state, dict):
                self.add("The value for the state must be an OBJECT", loc)
                continue
            self._state(state, loc)

    # ----------------------------------------------------------------- one state
    def _state(self, state: dict[str, Any], loc: str) -> None:
        stype = state.get("Type")
        if "Type" not in state:
            self.add("These fields are required: [Type]", loc)
            return
        if stype not in STATE_TYPES:  # [AWS]
            self.add(f"The field 'Type' should have one of these values: [{', '.join(STATE_TYPES)}]",
                     f"{loc}/Type")
            return
        lang = self._language(state, loc)
        allowed = _FIELDS[stype]
        for key in state:
            if key not in allowed:
                self.add(f"Field '{key}' is not supported", loc)
            elif lang == "JSONPath" and key in JSONATA_ONLY:
                self.add(f"The QueryLanguage is set to 'JSONPath', but field '{key}' is only supported "
                         f"for the 'JSONata' QueryLanguage", loc)
            elif lang == "JSONata" and key in JSONPATH_ONLY:
                self.add(f"The QueryLanguage is set to 'JSONata', but field '{key}' is only supported "
                         f"for the 'JSONPath' QueryLanguage", loc)
        self._flow(state, stype, loc)
        if lang == "JSONPath":
            self._jsonpath_fields(state, loc)
        else:
            self._jsonata_fields(state, loc)
        getattr(self, f"_{stype.lower()}")(state, loc, lang)
        for key in ("Retry", "Catch"):
            if key in state:
                self._handlers(state[key], key, f"{loc}/{key}", lang)

    def _language(self, state: dict[str, Any], loc: str) -> str:
        ql: str | None = state.get("QueryLanguage")
        if ql is None:
            return self.top_language
        if ql not in ("JSONPath", "JSONata"):
            self.add("The field 'QueryLanguage' should have one of these values: [JSONPath, JSONata]",
                     f"{loc}/QueryLanguage")
            return self.top_language
        if ql == "JSONPath" and self.top_language == "JSONata":  # [AWS]
            self.add("'QueryLanguage' can not be 'JSONPath' if set to 'JSONata' for whole state machine", loc)
        return ql

    def _flow(self, state: dict[str, Any], stype: str, loc: str) -> None:
        if "Next" in state and not isinstance(state["Next"], str):
            self.add("The value for the field 'Next' must be a STRING", f"{loc}/Next")
        if "End" in state and not isinstance(state["End"], bool):
            self.add("The value for the field 'End' must be a BOOLEAN", f"{loc}/End")
        if stype in ("Choice", "Succeed", "Fail"):
            return
        has_next, ends = "Next" in state, state.get("End") is True
        if has_next and ends:
            self.add("Only one of these fields is allowed: [Next, End]", loc)
        elif not has_next and not ends:
            self.add("Exactly one of these fields is required: [Next, End]", loc)

    # ----------------------------------------------------------------- JSONPath-mode values
    def _jsonpath_fields(self, state: dict[str, Any], loc: str) -> None:
        for key in _PATH_FIELDS:
            if key not in state or state[key] is None:
                continue
            if key in ("ErrorPath", "CausePath"):  # these also take an intrinsic function call
                if not _valid_dynamic_value(state[key]):
                    self.add(f"The value for the field '{key}' must be a valid JSONPath or a valid intrinsic "
                             f"function call", f"{loc}/{key}")
            elif not is_valid_path(state[key]):
                self.add(f"The value for the field '{key}' must be a valid JSONPath", f"{loc}/{key}")
        if "ResultPath" in state and state["ResultPath"] is not None:
            rp = state["ResultPath"]
            if not is_reference_path(rp) or not rp.startswith("$") or rp.startswith("$$"):
                self.add("The value for the field 'ResultPath' must be a valid ReferencePath",
                         f"{loc}/ResultPath")
        for key in (*_TEMPLATE_FIELDS, "Assign"):
            if key in state:
                self._template(state[key], f"{loc}/{key}")

    def _template(self, value: Any, loc: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k.endswith(".$"):
                    if not _valid_dynamic_value(v):  # [AWS]
                        self.add(f"The value for the field '{k}' must be a valid JSONPath or a valid "
                                 f"intrinsic function call", loc)
                else:
                    self._template(v, loc)
        elif isinstance(value, list):
            for v in value:
                self._template(v, loc)

    # ----------------------------------------------------------------- JSONata-mode values
    def _jsonata_fields(self, state: dict[str, Any], loc: str) -> None:
        for key, value in state.items():
            if key in ("Type", "Comment", "QueryLanguage", "Next", "End", "Default", "Resource",
                       "Choices", "Branches", "ItemProcessor", "Iterator", "Retry", "Catch"):
                continue
            self._expressions(value, f"{loc}/{key}")

    def _expressions(self, value: Any, loc: str) -> None:
        if is_jsonata(value):
            expr = value[2:-2].strip()
            problem = jsonata_syntax_error(expr)
            if problem is not None:
                self.errors.add(problem, loc, code="INVALID_JSONATA_EXPRESSION")
                return
            for name in top_level_references(expr):  # [AWS]
                self.errors.add(f"Reference to '{name}' at the top level is not supported.", loc,
                                code="UNSUPPORTED_JSONATA_EXPRESSION")
        elif isinstance(value, dict):
            for k, v in value.items():
                self._expressions(v, f"{loc}/{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                self._expressions(v, f"{loc}[{i}]")

    # ----------------------------------------------------------------- per type
    def _pass(self, state: dict[str, Any], loc: str, lang: str) -> None:
        pass

    def _succeed(self, state: dict[str, Any], loc: str, lang: str) -> None:
        pass

    def _fail(self, state: dict[str, Any], loc: str, lang: str) -> None:
        for a, b in (("Error", "ErrorPath"), ("Cause", "CausePath")):
            if a in state and b in state:
                self.add(f"Only one of these fields is allowed: [{a}, {b}]", loc)

    def _wait(self, state: dict[str, Any], loc: str, lang: str) -> None:
        given = [k for k in ("Seconds", "Timestamp", "SecondsPath", "TimestampPath") if k in state]
        if len(given) != 1:
            self.add("Exactly one of these fields is required: [Seconds, Timestamp, SecondsPath, "
                     "TimestampPath]", loc)
        seconds = state.get("Seconds")
        if seconds is not None and not is_jsonata(seconds) and not _is_nat(seconds, allow_zero=True):
            self.add("The value for the field 'Seconds' must be a non-negative integer", f"{loc}/Seconds")
        stamp = state.get("Timestamp")
        if isinstance(stamp, str) and not (lang == "JSONata" and is_jsonata(stamp)) \
                and parse_wait_timestamp(stamp) is None:
            self.add("String does not match RFC3339 timestamp", f"{loc}/Timestamp")  # [AWS]

    def _task(self, state: dict[str, Any], loc: str, lang: str) -> None:
        if "Resource" not in state:
            self.add("These fields are required: [Resource]", loc)
            return
        problem = resource_problem(state["Resource"], self.express)
        if problem:
            self.add(problem, f"{loc}/Resource")
        creds = state.get("Credentials")
        if creds is not None and not (isinstance(creds, dict) and
                                      any(k in creds for k in ("RoleArn", "RoleArn.$", "RoleArnPath"))):
            self.add("The field 'RoleArn' is required but was missing", f"{loc}/Credentials")  # [AWS]
        for key in ("TimeoutSeconds", "HeartbeatSeconds"):
            v = state.get(key)
            if v is not None and not is_jsonata(v) and not _is_nat(v):
                self.add(f"The value for the field '{key}' must be a positive integer", f"{loc}/{key}")

    def _choice(self, state: dict[str, Any], loc: str, lang: str) -> None:
        choices = state.get("Choices")
        if choices is None:
            self.add("These fields are required: [Choices]", loc)
            return
        if not isinstance(choices, list) or not choices:
            self.add("The value for the field 'Choices' must be a non-empty ARRAY", f"{loc}/Choices")
            return
        for i, rule in enumerate(choices):
            self._rule(rule, f"{loc}/Choices[{i}]", lang, top=True)

    def _rule(self, rule: Any, loc: str, lang: str, top: bool) -> None:
        if not isinstance(rule, dict):
            self.add("The choice rule must be an OBJECT", loc)
            return
        if top and "Next" not in rule:
            self.add("These fields are required: [Next]", loc)
        if lang == "JSONata":
            if "Condition" not in rule:
                self.add("These fields are required: [Condition]", loc)
            return
        if "Condition" in rule:
            self.add("The QueryLanguage is set to 'JSONPath', but field 'Condition' is only supported "
                     "for the 'JSONata' QueryLanguage", loc)
            return
        if "And" in rule or "Or" in rule:
            key = "And" if "And" in rule else "Or"
            if not isinstance(rule[key], list) or not rule[key]:
                self.add(f"The value for the field '{key}' must be a non-empty ARRAY", f"{loc}/{key}")
                return
            for j, sub in enumerate(rule[key]):
                self._rule(sub, f"{loc}/{key}[{j}]", lang, top=False)
            return
        if "Not" in rule:
            self._rule(rule["Not"], f"{loc}/Not", lang, top=False)
            return
        ops = [k for k in rule if k in OPERATORS]
        if "Variable" not in rule:
            self.add("These fields are required: [Variable]", loc)
        elif not is_valid_path(rule["Variable"]):
            self.add("The value for the field 'Variable' must be a valid JSONPath", f"{loc}/Variable")
        if len(ops) != 1:
            self.add("A choice rule must have exactly one comparison operator", loc)
        elif ops[0].endswith("Path") and not is_valid_path(rule[ops[0]]):
            self.add(f"The value for the field '{ops[0]}' must be a valid JSONPath", f"{loc}/{ops[0]}")

    def _parallel(self, state: dict[str, Any], loc: str, lang: str) -> None:
        branches = state.get("Branches")
        if branches is None:
            self.add("These fields are required: [Branches]", loc)
            return
        if not isinstance(branches, list) or not branches:
            self.add("The value for the field 'Branches' must be a non-empty ARRAY", f"{loc}/Branches")
            return
        for i, branch in enumerate(branches):
            if isinstance(branch, dict):
                self._container(branch, f"{loc}/Branches[{i}]")

    def _map(self, state: dict[str, Any], loc: str, lang: str) -> None:
        key = "ItemProcessor" if "ItemProcessor" in state else "Iterator" if "Iterator" in state else None
        if key is None:
            self.add("These fields are required: [ItemProcessor]", loc)
        elif isinstance(state[key], dict):
            processor = {k: v for k, v in state[key].items() if k != "ProcessorConfig"}
            self._container(processor, f"{loc}/{key}")
        check_map_fields(state, loc, lang, self.add, self._template)
        label = state.get("Label")
        if isinstance(label, str):
            bad = _LABEL_BAD.search(label)
            if bad:  # [AWS] reported as an internal (Python) ValueError quoting the whole definition:
                # Args is the repr of its args list, so a '"' in the message turns the quotes single
                msg = f"Label contains invalid character: {bad.group(0)!r}"
                self.errors.add_raw(f"Error=ValueError Args={[msg]!r} in definition '{self.raw_text}'.")
            elif len(label) > 40:
                self.add("The value for the field 'Label' must be at most 40 characters long", f"{loc}/Label")

    # ----------------------------------------------------------------- Retry / Catch
    def _handlers(self, handlers: Any, kind: str, loc: str, lang: str) -> None:
        if not isinstance(handlers, list):
            self.add(f"The value for the field '{kind}' must be an ARRAY", loc)
            return
        for i, h in enumerate(handlers):
            hloc = f"{loc}[{i}]"
            if not isinstance(h, dict):
                self.add("The value must be an OBJECT", hloc)
                continue
            required = ["ErrorEquals"] + (["Next"] if kind == "Catch" else [])
            missing = [f for f in required if f not in h]
            if missing:
                self.add(f"These fields are required: [{', '.join(missing)}]", hloc)
                continue
            errors = h["ErrorEquals"]
            if not isinstance(errors, list) or not errors:
                self.add("The value for the field 'ErrorEquals' must be a non-empty ARRAY", f"{hloc}/ErrorEquals")
            elif "States.ALL" in errors and (len(errors) > 1 or i != len(handlers) - 1):
                self.add(f"States.ALL must appear alone in ErrorEquals and in the last {kind[:-1].lower()}"
                         f"{'er' if kind == 'Catch' else 'ier'}", f"{hloc}/ErrorEquals")
            if kind == "Retry":
                self._retrier(h, hloc)
            elif "ResultPath" in h and h["ResultPath"] is not None and not is_reference_path(h["ResultPath"]):
                self.add("The value for the field 'ResultPath' must be a valid ReferencePath", f"{hloc}/ResultPath")

    def _retrier(self, r: dict[str, Any], loc: str) -> None:
        for key in ("IntervalSeconds", "MaxDelaySeconds"):
            if key in r and not _is_nat(r[key]):
                self.add(f"The value for the field '{key}' must be a positive integer", f"{loc}/{key}")
        if "MaxAttempts" in r and not _is_nat(r["MaxAttempts"], allow_zero=True):
            self.add("The value for the field 'MaxAttempts' must be a non-negative integer", f"{loc}/MaxAttempts")
        rate = r.get("BackoffRate", 2.0)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or rate < 1.0:
            self.add("The value for the field 'BackoffRate' must be a number >= 1.0", f"{loc}/BackoffRate")
        if r.get("JitterStrategy", "NONE") not in ("FULL", "NONE"):
            self.add("The field 'JitterStrategy' should have one of these values: [FULL, NONE]",
                     f"{loc}/JitterStrategy")


def _is_nat(v: Any, allow_zero: bool = False) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and (v >= 0 if allow_zero else v > 0) \
        and v <= 99999999


def _valid_dynamic_value(v: Any) -> bool:
    if not isinstance(v, str):
        return False
    if is_intrinsic(v):
        return is_valid_intrinsic(v)
    return is_valid_path(v)
