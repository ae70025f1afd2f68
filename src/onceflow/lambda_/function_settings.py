"""A function's smaller settings: provisioned concurrency (per version or alias, with that many
workers started ahead of the first invocation), a managed-instances version's scaling config, the
runtime management configuration and the recursive loop setting. They are kept in the function's
record (private `_` keys), so they go with the function; a provisioned config whose version or
alias is gone is not shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import errors, names
from onceflow.lambda_.names import FunctionRef
from onceflow.lambda_.service import LATEST_PUBLISHED, LATEST_PUBLISHED_KEY, MIN_UNRESERVED, LambdaService


def _provisioned_missing() -> ServiceError:
    message = "No Provisioned Concurrency Config found for this function"
    return ServiceError("ProvisionedConcurrencyConfigNotFoundException", message, 404,
                        extra={"Type": "User", "message": message})  # fmt: skip


Key = tuple[str, str, str]
# (function key, qualifier, requested) -> (allocated workers, Status)
StatusOf = Callable[[Key, str, int], tuple[int, str]]
# AWS's StatusReason when provisioned environments fail their init, as AWS answers quoted by users
# show it (e.g. the Terraform provider's "status reason: FUNCTION_ERROR_INIT_FAILURE", sst/ion#375);
# UNCONFIRMED by AWS's documentation, which only says "the reason ... could not be allocated".
_INIT_FAILED_REASON = "FUNCTION_ERROR_INIT_FAILURE"


class FunctionSettings:
    def __init__(self, service: LambdaService, provision: Callable[[Key], None],
                 provision_soon: Callable[[Key, str], None], status_of: StatusOf) -> None:  # fmt: skip
        self.service = service
        self.store = service.store
        self.provision = provision  # the pool's provisioned workers follow the function's configs
        self.provision_soon = provision_soon  # ... started behind the Put's answer, as on AWS
        self.status_of = status_of  # the workers warm now: IN_PROGRESS, READY or FAILED

    def _record(self, ctx: RequestContext, params: dict[str, Any]) -> tuple[FunctionRef, str, dict[str, Any]]:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region, params.get("Qualifier"))
        qualifier = self.service.existing_qualifier(ref)
        record = self.store.get_function(ref.key)
        assert record is not None  # existing_qualifier found it
        return ref, qualifier, record

    def _save(self, ref: FunctionRef, record: dict[str, Any]) -> None:
        with self.store.db.transaction() as conn:
            self.store.update_function(conn, ref.key, record)

    # ------------------------------------------------------------------ provisioned concurrency
    def _provisioned_target(self, ctx: RequestContext, params: dict[str, Any], *, put: bool = False
                            ) -> tuple[FunctionRef, str, dict[str, Any]]:  # fmt: skip
        """The version or alias a provisioned config is on. As AWS records it: $LATEST is refused first,
        and a missing alias or version is named as that alias or version even when the function is
        missing too."""
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region, params.get("Qualifier"))
        q = ref.qualifier
        if q is None or q == "$LATEST":
            if put:
                raise errors.invalid(
                    "Provisioned Concurrency Configs cannot be applied to unpublished function versions."
                )
            raise errors.invalid("The function resource provided must be an alias or a published version.")
        record = self.store.get_function(ref.key)
        if q != LATEST_PUBLISHED:
            if q.isdigit():
                if record is None or self.store.get_version(ref.key, int(q)) is None:
                    raise errors.function_not_found(ref.arn(q))
            elif record is None or self.store.get_alias(ref.key, q) is None:
                raise errors.alias_not_found(ref.arn(q))
        qualifier = self.service.existing_qualifier(ref)
        assert record is not None  # existing_qualifier found it
        return ref, qualifier, record

    def put_provisioned(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier, record = self._provisioned_target(ctx, params, put=True)
        entries = dict(record.get("_provisioned") or {})
        self._check_overlap(ref, qualifier, entries)
        wanted = int(params["ProvisionedConcurrentExecutions"])
        reserved = record.get("_reserved")
        others = sum(int(e["Requested"]) for q, e in entries.items() if q != qualifier)
        if reserved is not None and others + wanted > reserved:  # recorded
            raise errors.invalid(
                "Requested Provisioned Concurrency should not be greater than the reservedConcurrentExecution for "
                "function"
            )
        if reserved is None:
            self._check_unreserved(ctx, others + wanted)
        entry = {"Requested": wanted, "LastModified": cfg.now_lambda()}
        record["_provisioned"] = {**entries, qualifier: entry}
        self._save(ref, record)
        self.provision_soon(ref.key, qualifier)
        return {"RequestedProvisionedConcurrentExecutions": wanted, "AllocatedProvisionedConcurrentExecutions": 0,
                "AvailableProvisionedConcurrentExecutions": 0, "Status": "IN_PROGRESS",
                "LastModified": entry["LastModified"]}  # fmt: skip

    def _check_unreserved(self, ctx: RequestContext, total: int) -> None:
        """A function without reserved concurrency provisions out of the account's unreserved pool, which
        must keep its minimum (recorded, test_provisioned_concurrency_limits: both answers without a
        Type; the pool is what GetAccountSettings calls UnreservedConcurrentExecutions). UNCONFIRMED:
        provisioned concurrency of the account's other functions is not counted against the pool."""
        pool = self.service.unreserved_limit(ctx.account, ctx.region)
        if total > pool:
            raise errors.invalid("Specified ConcurrentExecutions for function is greater than account's unreserved "
                                 f"concurrency [{pool}].", typed=False)  # fmt: skip
        if pool - total < MIN_UNRESERVED:
            raise errors.invalid("Specified ConcurrentExecutions for function decreases account's "
                                 f"UnreservedConcurrentExecution below its minimum value of [{MIN_UNRESERVED}].",
                                 typed=False)  # fmt: skip

    def _check_overlap(self, ref: FunctionRef, qualifier: str, entries: dict[str, Any]) -> None:
        """A version and an alias to it may not both hold a config (AWS's recorded conflicts)."""
        if qualifier.isdigit():
            for other in entries:
                alias = None if other.isdigit() else self.store.get_alias(ref.key, other)
                if alias is not None and str(alias["FunctionVersion"]) == qualifier:
                    raise errors.conflict("Version is pointed by a Provisioned Concurrency alias")
            return
        alias = self.store.get_alias(ref.key, qualifier)
        if alias is not None and str(alias["FunctionVersion"]) in entries:
            raise errors.conflict(
                "Alias can't be used for Provisioned Concurrency configuration on an already Provisioned version"
            )

    def get_provisioned(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier, record = self._provisioned_target(ctx, params)
        entry = (record.get("_provisioned") or {}).get(qualifier)
        if entry is None:
            raise _provisioned_missing()
        return self._state(ref, qualifier, entry)

    def delete_provisioned(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        ref, qualifier, record = self._provisioned_target(ctx, params)
        entries = dict(record.get("_provisioned") or {})
        if entries.pop(qualifier, None) is None:
            return  # nothing to delete: AWS answers 204 (recorded)
        record["_provisioned"] = entries
        self._save(ref, record)
        self.provision(ref.key)

    def list_provisioned(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region)
        names.unqualified(ref)
        self.service.existing_qualifier(ref)
        record = self.store.get_function(ref.key) or {}
        out = []
        for qualifier, entry in sorted((record.get("_provisioned") or {}).items()):
            try:
                self.service.existing_qualifier(FunctionRef(ref.account, ref.region, ref.name, qualifier))
            except ServiceError:
                continue  # its version or alias was deleted
            out.append({"FunctionArn": ref.arn(qualifier), **self._state(ref, qualifier, entry)})
        return {"ProvisionedConcurrencyConfigs": out}

    def _state(self, ref: FunctionRef, qualifier: str, entry: dict[str, Any]) -> dict[str, Any]:
        """A config as AWS reports it: IN_PROGRESS until all its workers are warm, then READY with
        them allocated; FAILED with a StatusReason when the function's init failed."""
        n = int(entry["Requested"])
        allocated, status = self.status_of(ref.key, qualifier, n)
        out = {"RequestedProvisionedConcurrentExecutions": n, "AvailableProvisionedConcurrentExecutions": allocated,
               "AllocatedProvisionedConcurrentExecutions": allocated, "Status": status,
               "LastModified": entry["LastModified"]}  # fmt: skip
        if status == "FAILED":
            out["StatusReason"] = _INIT_FAILED_REASON
        return out

    # ------------------------------------------------------------------ scaling (Lambda Managed Instances)
    def _scaled(self, ctx: RequestContext, params: dict[str, Any]) -> tuple[FunctionRef, str, dict[str, Any]]:
        """A published version of a managed-instances function (Qualifier: a number or $LATEST.PUBLISHED)."""
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region)
        names.unqualified(ref)
        qualifier = params["Qualifier"]
        latest = self.service.latest(ref)
        if qualifier == LATEST_PUBLISHED:
            version = latest.get(LATEST_PUBLISHED_KEY)
        else:
            version = self.store.get_version(ref.key, int(qualifier)) if qualifier.isdigit() else None
        if version is None:
            raise errors.function_not_found(ref.arn(qualifier))
        if not version.get("CapacityProviderConfig"):  # UNCONFIRMED wording
            raise errors.invalid("Function scaling configuration is only supported for Lambda Managed Instances "
                                 "functions.")  # fmt: skip
        record = self.store.get_function(ref.key)
        assert record is not None  # latest() found it
        return ref, qualifier, record

    def put_scaling(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier, record = self._scaled(ctx, params)
        wanted = dict(params.get("FunctionScalingConfig") or {})
        low, high = wanted.get("MinExecutionEnvironments"), wanted.get("MaxExecutionEnvironments")
        if low is not None and high is not None and low > high:  # UNCONFIRMED wording
            raise errors.invalid("MinExecutionEnvironments must be less than or equal to MaxExecutionEnvironments.")
        record["_scaling"] = {**(record.get("_scaling") or {}), qualifier: wanted}
        self._save(ref, record)
        return {"FunctionState": "Active"}

    def get_scaling(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        """Applied = requested: onceflow's workers follow a function's invocations, not a count of
        environments, so there is nothing to wait for."""
        ref, qualifier, record = self._scaled(ctx, params)
        out: dict[str, Any] = {"FunctionArn": ref.arn(qualifier)}
        wanted = (record.get("_scaling") or {}).get(qualifier)
        if wanted is not None:
            out["AppliedFunctionScalingConfig"] = out["RequestedFunctionScalingConfig"] = wanted
        return out

    # ------------------------------------------------------------------ runtime management, recursion
    def get_runtime_management(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier, record = self._record(ctx, params)
        stored = (record.get("_runtime_management") or {}).get(qualifier) or {"UpdateRuntimeOn": "Auto"}
        return _runtime_management(ref, stored)

    def put_runtime_management(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, qualifier, record = self._record(ctx, params)
        mode = params["UpdateRuntimeOn"]
        if mode == "Manual" and not params.get("RuntimeVersionArn"):  # UNCONFIRMED wording
            raise errors.invalid("RuntimeVersionArn must be provided when UpdateRuntimeOn is Manual.")
        stored: dict[str, Any] = {"UpdateRuntimeOn": mode}
        if mode == "Manual":
            stored["RuntimeVersionArn"] = params["RuntimeVersionArn"]
        record["_runtime_management"] = {**(record.get("_runtime_management") or {}), qualifier: stored}
        self._save(ref, record)
        return _runtime_management(ref, stored)

    def get_recursion(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        _, _, record = self._record(ctx, params)
        return {"RecursiveLoop": record.get("_recursive_loop") or "Terminate"}

    def put_recursion(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref, _, record = self._record(ctx, params)
        record["_recursive_loop"] = params["RecursiveLoop"]
        self._save(ref, record)
        return {"RecursiveLoop": params["RecursiveLoop"]}




def _runtime_management(ref: FunctionRef, stored: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"UpdateRuntimeOn": stored["UpdateRuntimeOn"], "FunctionArn": ref.arn()}
    if stored.get("RuntimeVersionArn"):
        out["RuntimeVersionArn"] = stored["RuntimeVersionArn"]
    return out
