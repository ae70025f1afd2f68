"""The per-service facts of the wire path, in one table beside the service specs (specs.py):
what each service does differently from the default, so no stage keeps a list of its own."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Facts:
    validation_code: str = "ValidationException"  # the code of a request the model refuses
    body_limit: int | None = None  # bytes; None: the server's --max-body
    long_calls: frozenset[str] = frozenset()  # operations that wait on user code: threads of their own


DEFAULT = Facts()
FACTS: dict[str, Facts] = {
    "iam": Facts(validation_code="ValidationError"),
    "sts": Facts(validation_code="ValidationError"),
    "cloudformation": Facts(validation_code="ValidationError"),
    "logs": Facts(validation_code="InvalidParameterException"),
    "lambda": Facts(body_limit=80 * 1024 * 1024,
                    long_calls=frozenset({"Invoke", "InvokeAsync", "InvokeWithResponseStream"})),
    # GetActivityTask long-polls for up to a minute.
    "stepfunctions": Facts(long_calls=frozenset({"StartSyncExecution", "GetActivityTask"})),
}


def facts(service: str) -> Facts:
    return FACTS.get(service, DEFAULT)


def validation_code(service: str) -> str:
    return facts(service).validation_code


def body_limit(service: str, default: int) -> int:
    limit = facts(service).body_limit
    return default if limit is None else limit


def is_long_call(service: str, operation: str) -> bool:
    return operation in facts(service).long_calls
