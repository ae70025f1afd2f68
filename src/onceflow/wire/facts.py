"""The per-service facts of the wire path, in one table beside the service specs (specs.py):
what each service does differently from the default, so no stage keeps a list of its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from onceflow.awsmodels.model import OperationModel


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


_OWN_CODE: dict[tuple[str, str], str] = {}  # (service, operation) -> its code, where it differs


def validation_code(service: str, op: OperationModel | None = None) -> str:
    """The code of a request the model refuses. A newer operation of a service whose usual code is
    another (Logs' deliveries and scheduled queries) lists ValidationException in its model and not
    the usual one: it answers with ValidationException, as AWS does."""
    code = facts(service).validation_code
    if op is None or code == DEFAULT.validation_code:
        return code
    key = (service, op.name)
    own = _OWN_CODE.get(key)
    if own is None:
        listed = {shape.error_code for shape in op.error_shapes}
        own = DEFAULT.validation_code if DEFAULT.validation_code in listed and code not in listed else code
        _OWN_CODE[key] = own
    return own


def body_limit(service: str, default: int) -> int:
    limit = facts(service).body_limit
    return default if limit is None else limit


def is_long_call(service: str, operation: str) -> bool:
    return operation in facts(service).long_calls
