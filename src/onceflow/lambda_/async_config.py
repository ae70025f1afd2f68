"""EventInvokeConfig: how Event (asynchronous) invocations of a function, version or alias are
retried, how old an event may grow, and where the outcome is sent (OnSuccess / OnFailure).

Stored per qualifier ('' for the unqualified function, shown as `:$LATEST`, as AWS shows it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.lambda_ import errors, names, paging
from onceflow.lambda_.names import FunctionRef
from onceflow.lambda_.service import LambdaService

DEFAULT_RETRIES = 2
DEFAULT_MAX_AGE_S = 21600
# The destination services and the action the execution role needs on each (AWS checks it).
_DESTINATIONS = {"sqs": "SendMessage", "sns": "Publish", "lambda": "InvokeFunction", "events": "PutEvents"}


@dataclass(frozen=True)
class AsyncPolicy:
    """What the invoker applies to one Event invocation."""

    retries: int = DEFAULT_RETRIES
    max_age_s: int = DEFAULT_MAX_AGE_S
    on_success: str | None = None
    on_failure: str | None = None


class InvokeConfigs:
    def __init__(self, service: LambdaService) -> None:
        self.service = service
        self.store = service.store

    def _target(self, ctx: RequestContext, params: dict[str, Any]) -> tuple[FunctionRef, str]:
        """The function and qualifier a write or a list names; a missing one is answered in the words
        AWS records for these operations, whichever part is missing."""
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region, params.get("Qualifier"))
        try:
            return ref, self.service.existing_qualifier(ref)
        except ServiceError as err:
            if err.code != "ResourceNotFoundException":
                raise
            raise errors.not_found("The function doesn't exist.") from None

    def put(self, ctx: RequestContext, params: dict[str, Any], *, merge: bool) -> dict[str, Any]:
        members = ("MaximumRetryAttempts", "MaximumEventAgeInSeconds", "DestinationConfig")
        given = {m: params[m] for m in members if m in params}
        if not given:  # refused before the function is looked up (recorded)
            raise errors.invalid("You must specify at least one of error handling or destination setting.")
        ref, qualifier = self._target(ctx, params)
        stored = self.store.get_invoke_config(ref.key, qualifier)
        if merge and stored is None:
            raise _missing(ref, qualifier)
        config = {**(stored or {}), **given} if merge else given
        if "DestinationConfig" in given:
            self._check_destinations(ref, qualifier, given["DestinationConfig"])
        config["LastModified"] = datetime.now(UTC).timestamp()
        config["_qualifier"] = qualifier
        with self.store.db.transaction() as conn:
            self.store.put_invoke_config(conn, ref.key, qualifier, config)
        return _render(ref, qualifier, config)

    def get(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region, params.get("Qualifier"))
        qualifier = self.service.stored_qualifier(ref)  # no function, no version: the same answer
        config = self.store.get_invoke_config(ref.key, qualifier)
        if config is None:
            raise _missing(ref, qualifier)
        return _render(ref, qualifier, config)

    def delete(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region, params.get("Qualifier"))
        qualifier = self.service.stored_qualifier(ref)  # no function, no version: the same answer
        if self.store.get_invoke_config(ref.key, qualifier) is None:
            raise _missing(ref, qualifier)
        with self.store.db.transaction() as conn:
            self.store.delete_invoke_config(conn, ref.key, qualifier)

    def list(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, _ = self._target(ctx, {"FunctionName": params["FunctionName"]})
        names.unqualified(ref)
        rows = self.store.list_invoke_configs(ref.key)
        qualifiers = [r.get("_qualifier", "") for r in rows]
        rendered = [_render(ref, q, r) for q, r in zip(qualifiers, rows, strict=True)]
        return paging.page(rendered, params.get("Marker"), params.get("MaxItems") or 50,
                           "FunctionEventInvokeConfigs", lambda c: c)

    def policy_for(self, ref: FunctionRef) -> AsyncPolicy:
        """The configuration an Event invocation of `ref` (as invoked) runs under."""
        qualifier = "" if ref.qualifier in (None, "$LATEST") else str(ref.qualifier)
        config = self.store.get_invoke_config(ref.key, qualifier) or {}
        destinations = config.get("DestinationConfig") or {}
        return AsyncPolicy(
            retries=int(config.get("MaximumRetryAttempts", DEFAULT_RETRIES)),
            max_age_s=int(config.get("MaximumEventAgeInSeconds", DEFAULT_MAX_AGE_S)),
            on_success=(destinations.get("OnSuccess") or {}).get("Destination") or None,
            on_failure=(destinations.get("OnFailure") or {}).get("Destination") or None,
        )

    def _check_destinations(self, ref: FunctionRef, qualifier: str, destinations: dict[str, Any]) -> None:
        role = self.service.store.get_function(ref.key)["Role"]  # type: ignore[index]
        iam = self.service.role_checks
        for member in ("OnSuccess", "OnFailure"):
            arn = (destinations.get(member) or {}).get("Destination")
            if not arn:
                continue
            parts = arn.split(":")
            action = _DESTINATIONS.get(parts[2]) if len(parts) > 5 else None
            if action is None:  # another service's ARN: the whole configuration is named (recorded)
                raise errors.invalid(f"The provided destination config {_java_config(destinations)} is invalid.")
            if arn == ref.arn(qualifier or None) or arn == ref.arn():
                raise errors.invalid("You can't specify the function as a destination for itself.")
            if parts[2] == "lambda" and not self._function_exists(arn, ref):
                raise errors.invalid(f"The destination ARN {arn} is invalid.")
            if iam is not None and not iam.role_allows(ref.account, role, f"{parts[2]}:{action}", arn):
                raise errors.invalid(
                    f"The function's execution role does not have permissions to call {action} on {arn}"
                )

    def _function_exists(self, arn: str, ref: FunctionRef) -> bool:
        try:
            target = names.parse(arn, ref.account, ref.region)
            self.service.existing_qualifier(target)
        except ServiceError:
            return False
        return True


def _java_config(destinations: dict[str, Any]) -> str:
    """A DestinationConfig as Lambda's Java model prints it in its refusal."""
    def one(member: str) -> str:
        if member not in destinations:
            return "null"
        arn = (destinations.get(member) or {}).get("Destination")
        return f"{member}(destination={arn if arn else 'null'})"

    return f"DestinationConfig(onSuccess={one('OnSuccess')}, onFailure={one('OnFailure')})"


def _render(ref: FunctionRef, qualifier: str, config: dict[str, Any]) -> dict[str, Any]:
    destinations = config.get("DestinationConfig") or {}
    out: dict[str, Any] = {
        "LastModified": datetime.fromtimestamp(float(config["LastModified"]), UTC),
        "FunctionArn": ref.arn(qualifier or "$LATEST"),
    }
    if "MaximumRetryAttempts" in config:
        out["MaximumRetryAttempts"] = config["MaximumRetryAttempts"]
    if "MaximumEventAgeInSeconds" in config:
        out["MaximumEventAgeInSeconds"] = config["MaximumEventAgeInSeconds"]
    out["DestinationConfig"] = {
        "OnSuccess": dict(destinations.get("OnSuccess") or {}),
        "OnFailure": dict(destinations.get("OnFailure") or {}),
    }
    return out


def _missing(ref: FunctionRef, qualifier: str) -> Exception:
    return errors.not_found(f"The function {ref.arn(qualifier or '$LATEST')} doesn't have an EventInvokeConfig")
