"""A fault rule: which calls it matches, what it does to them, and how a rule set is read and
checked. The fields are a superset of LocalStack's Chaos API rules (service, region, operation,
probability, error {statusCode, code}), so a chaos rule file works unchanged. Checking is all or
nothing: the first bad field is named (`rules[2].error.code`) and no rule of the set is kept."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from onceflow.faults import catalog
from onceflow.patterns.glob import Glob, iam_glob

WHEN = ("before", "after")
LAMBDA_KINDS = ("invoke_error", "duplicate", "crash")
FIELDS = {"service", "operation", "region", "account", "resource", "caller", "when", "error", "latency_ms",
          "timeout", "skip", "times", "probability", "seed", "kind", "description"}
ERROR_FIELDS = {"code", "statusCode", "message"}
# A rule with nothing to do but match fails the call as LocalStack's default does.
DEFAULT_CODE = "ServiceUnavailable"
MAX_GLOB = 2048
MAX_LATENCY_MS = 15 * 60 * 1000
_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")


class RuleError(ValueError):
    """A rule that cannot be kept; `field` names it (`rules[0].probability`)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = f"{field}: {message}"


@dataclass(frozen=True, slots=True)
class FaultError:
    code: str
    status: int
    message: str


@dataclass(slots=True, eq=False)
class Rule:
    id: int
    service: str | None  # boto3 name; None: every service
    operation: str | None  # None: every operation of the service(s)
    region: str | None = None
    account: str | None = None
    resource: Glob | None = None
    caller: Glob | None = None
    when: str = "before"
    error: FaultError | None = None
    latency_ms: int = 0
    timeout: bool = False
    skip: int = 0
    times: int | None = None
    probability: float = 1.0
    seed: str | None = None
    kind: str | None = None
    spec: dict[str, Any] = field(default_factory=dict)  # the rule as given, for GET and the store
    matched: int = 0
    fired: int = 0

    def draw(self, n: int) -> float:
        """The nth matching call's number in [0, 1): a function of (seed, n) alone, so a seeded rule
        fires on the same calls after a restart or a replay."""
        digest = hashlib.blake2b(f"{self.seed}:{n}".encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big") / 2**64

    def view(self) -> dict[str, Any]:
        return {"id": self.id, **self.spec, "matched": self.matched, "fired": self.fired}


def parse_rules(raw: Any, first_id: int = 1) -> list[Rule]:
    """`{"rules": [...]}` or a bare list (the Chaos API's body) -> checked rules."""
    if isinstance(raw, dict) and set(raw) <= {"rules"}:
        raw = raw.get("rules", [])
        where = "rules"
    else:
        where = "rules"
    if not isinstance(raw, list):
        raise RuleError(where, "must be a list of rules")
    return [parse_rule(item, f"{where}[{i}]", first_id + i) for i, item in enumerate(raw)]


def parse_rule(item: Any, where: str, rule_id: int) -> Rule:
    if not isinstance(item, dict):
        raise RuleError(where, "must be an object")
    unknown = sorted(set(item) - FIELDS)
    if unknown:
        raise RuleError(f"{where}.{unknown[0]}", "is not a rule field")
    service = _service(item.get("service"), f"{where}.service")
    operation = _operation(service, item.get("operation"), f"{where}.operation")
    kind = item.get("kind")
    if kind is not None:
        if kind not in LAMBDA_KINDS:
            raise RuleError(f"{where}.kind", f"must be one of {', '.join(LAMBDA_KINDS)}")
        if service != "lambda" or operation not in (None, "Invoke"):
            raise RuleError(f"{where}.kind", "applies to lambda Invoke only")
        operation = "Invoke"
    when = item.get("when", "after" if kind else "before")
    if when not in WHEN:
        raise RuleError(f"{where}.when", "must be before or after")
    if kind and when != "after":
        raise RuleError(f"{where}.when", f"a {kind} fault happens after the handler ran: when must be after")
    rule = Rule(rule_id, service, operation, when=when, kind=kind, spec=dict(item))
    rule.region = _region(item.get("region"), f"{where}.region")
    rule.account = _account(item.get("account"), f"{where}.account")
    rule.resource = _glob(item.get("resource"), f"{where}.resource")
    rule.caller = _glob(item.get("caller"), f"{where}.caller")
    rule.latency_ms = _int(item.get("latency_ms", 0), f"{where}.latency_ms", 0, MAX_LATENCY_MS)
    rule.timeout = _bool(item.get("timeout", False), f"{where}.timeout")
    rule.skip = _int(item.get("skip", 0), f"{where}.skip", 0, 10**9)
    times = item.get("times")
    rule.times = None if times is None else _int(times, f"{where}.times", 1, 10**9)
    probability = item.get("probability", 1)
    if isinstance(probability, bool) or not isinstance(probability, (int, float)) or not 0 <= probability <= 1:
        raise RuleError(f"{where}.probability", "must be a number from 0 to 1")
    rule.probability = float(probability)
    seed = item.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, str))):
        raise RuleError(f"{where}.seed", "must be an integer or a string")
    rule.seed = None if seed is None else str(seed)
    if "description" in item and not isinstance(item["description"], str):
        raise RuleError(f"{where}.description", "must be a string")
    rule.error = _error(item, rule, where)
    return rule


def _service(value: Any, where: str) -> str | None:
    if value is None or value == "*":
        return None
    name = catalog.service_name(value) if isinstance(value, str) else None
    if name is None:
        raise RuleError(where, f"unknown service {value!r}; onceflow serves {', '.join(catalog.SERVED)}")
    return name


def _operation(service: str | None, value: Any, where: str) -> str | None:
    if value is None or value == "*":
        return None
    if service is None:
        raise RuleError(where, "an operation needs a service")
    if not isinstance(value, str) or value not in catalog.operations(service):
        raise RuleError(where, f"unknown {service} operation {value!r}")
    return value


def _region(value: Any, where: str) -> str | None:
    if value is None or value == "*":
        return None
    if not isinstance(value, str) or not _REGION.match(value):
        raise RuleError(where, f"not a region name: {value!r}")
    return value


def _account(value: Any, where: str) -> str | None:
    if value is None or value == "*":
        return None
    value = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(value, str) or len(value) != 12 or not value.isdigit():
        raise RuleError(where, "must be a 12-digit account id")
    return value


def _glob(value: Any, where: str) -> Glob | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise RuleError(where, "must be a non-empty glob (* any run of characters, ? one character)")
    if len(value) > MAX_GLOB or any(ord(c) < 32 for c in value):
        raise RuleError(where, f"malformed glob: at most {MAX_GLOB} printable characters")
    return iam_glob(value)


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RuleError(where, f"must be an integer from {low} to {high}")
    return int(value)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise RuleError(where, "must be true or false")
    return value


def _error(item: dict[str, Any], rule: Rule, where: str) -> FaultError | None:
    given = item.get("error")
    if given is None:
        if rule.kind in ("duplicate", "crash"):
            return None
        if rule.kind is None and (rule.latency_ms or (rule.timeout and rule.when == "after")):
            return None  # a delay only
        given = {}
    elif rule.kind in ("duplicate", "crash"):
        raise RuleError(f"{where}.error", f"a {rule.kind} fault has no error of its own")
    if not isinstance(given, dict):
        raise RuleError(f"{where}.error", "must be an object {code, statusCode, message}")
    unknown = sorted(set(given) - ERROR_FIELDS)
    if unknown:
        raise RuleError(f"{where}.error.{unknown[0]}", "is not an error field")
    services = [rule.service] if rule.service else list(catalog.SERVED)
    default = "ServiceException" if rule.kind == "invoke_error" else DEFAULT_CODE
    code = given.get("code", default)
    if not isinstance(code, str):
        raise RuleError(f"{where}.error.code", "must be a string")
    specs = [catalog.errors(s, rule.operation).get(code) for s in services]
    if any(s is None for s in specs):
        what = f"{rule.service} {rule.operation}" if rule.operation else (rule.service or "every service")
        raise RuleError(f"{where}.error.code", f"{what} cannot return {code}")
    spec = specs[0]
    assert spec is not None
    status = given.get("statusCode", spec.status)
    status = _int(status, f"{where}.error.statusCode", 400, 599)
    message = given.get("message", spec.message)
    if not isinstance(message, str):
        raise RuleError(f"{where}.error.message", "must be a string")
    if rule.kind == "invoke_error" and spec.code not in ("ServiceException", "TooManyRequestsException"):
        raise RuleError(f"{where}.error.code", "an invoke_error is ServiceException or TooManyRequestsException")
    return FaultError(spec.code, status, message)
