"""Capacity providers (Lambda Managed Instances): Create/Get/Update/Delete/ListCapacityProviders,
ListFunctionVersionsByCapacityProvider, and the CapacityProviderConfig a function names one with.

On AWS a capacity provider is the EC2 fleet (VPC, operator role, instance requirements, scaling)
that runs the functions attached to it. onceflow has no EC2: it stores the provider in AWS's shape
and still runs the functions in its own warm workers, as it runs every other function. The VPC's
subnets and security groups are kept as given (there is no EC2 to look them up in); the operator
role is checked as CreateFunction checks an execution role (it must exist and trust Lambda).

States: a provider is created `Pending` (CreateCapacityProvider's answer) and is `Active` from the
next read on, as its fleet would be once launched; DeleteCapacityProvider answers `Deleting` and the
provider is gone at once.
"""

from __future__ import annotations

import builtins
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.errors import ServiceError, validation_error
from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import errors, paging
from onceflow.lambda_.service import LATEST_PUBLISHED_KEY, LambdaService

MANAGED_MIN_MEMORY = 2048  # MiB; also the MemorySize a managed-instances function gets by default
# The defaults AWS fills in for a function's LambdaManagedInstancesCapacityProviderConfig (as
# LocalStack's snapshot tests hold them to AWS's recorded answers).
_DEFAULT_MAX_CONCURRENCY = 16
_DEFAULT_GIB_PER_VCPU = 2.0
_OPTIONAL = ("InstanceRequirements", "CapacityProviderScalingConfig", "KmsKeyArn")


def arn_of(region: str, account: str, name: str) -> str:
    return f"arn:{partition(region)}:lambda:{region}:{account}:capacity-provider:{name}"


def _name(value: str) -> str:
    """CapacityProviderName is a name or the provider's ARN (the model's pattern)."""
    return value.rsplit(":capacity-provider:", 1)[-1]


def _not_found(arn: str) -> ServiceError:
    return errors.not_found(f"Capacity provider not found: {arn}")  # UNCONFIRMED wording


def _check_scaling(scaling: dict[str, Any] | None) -> None:
    scaling = scaling or {}
    if scaling.get("ScalingPolicies") and scaling.get("ScalingMode", "Auto") == "Auto":
        # AWS's answer as users recorded it (InvalidParameterValueException).
        raise errors.invalid("A scaling policy can't be specified when the scalingMode is set to Auto")


class CapacityProviders:
    def __init__(self, service: LambdaService) -> None:
        self.service = service
        self.store = service.store

    # ------------------------------------------------------------------ the resource
    def create(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        name = _name(params["CapacityProviderName"])
        arn = arn_of(ctx.region, ctx.account, name)
        role = params["PermissionsConfig"]["CapacityProviderOperatorRoleArn"]
        if not self.service.role_usable(ctx.account, role):
            # AWS's words as a deployment tool recorded them (cdkd issue 3174/3227).
            raise errors.invalid("The operator role is invalid or doesn't have sufficient permissions")
        _check_scaling(params.get("CapacityProviderScalingConfig"))
        if self.store.get_capacity_provider(ctx.account, ctx.region, name) is not None:
            raise errors.conflict(f"Capacity provider already exists: {arn}")  # UNCONFIRMED wording
        vpc = params["VpcConfig"]
        record: dict[str, Any] = {
            "CapacityProviderArn": arn,
            "VpcConfig": {"SubnetIds": list(vpc["SubnetIds"]), "SecurityGroupIds": list(vpc["SecurityGroupIds"])},
            "PermissionsConfig": {"CapacityProviderOperatorRoleArn": role},
            **{member: params[member] for member in _OPTIONAL if params.get(member) is not None},
            "LastModified": cfg.now_lambda(),
            "_tags": dict(params.get("Tags") or {}),
        }
        with self.store.db.transaction() as conn:
            self.store.put_capacity_provider(conn, ctx.account, ctx.region, name, record)
        return {"CapacityProvider": _render(record, "Pending")}

    def _stored(self, ctx: RequestContext, value: str) -> tuple[str, dict[str, Any]]:
        name = _name(value)
        record = self.store.get_capacity_provider(ctx.account, ctx.region, name)
        if record is None:
            raise _not_found(arn_of(ctx.region, ctx.account, name))
        return name, record

    def get(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return {"CapacityProvider": _render(self._stored(ctx, params["CapacityProviderName"])[1])}

    def update(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        name, record = self._stored(ctx, params["CapacityProviderName"])
        if "CapacityProviderScalingConfig" in params:
            _check_scaling(params["CapacityProviderScalingConfig"])
            record["CapacityProviderScalingConfig"] = params["CapacityProviderScalingConfig"]
        record["LastModified"] = cfg.now_lambda()
        with self.store.db.transaction() as conn:
            self.store.put_capacity_provider(conn, ctx.account, ctx.region, name, record)
        return {"CapacityProvider": _render(record)}

    def delete(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        name, record = self._stored(ctx, params["CapacityProviderName"])
        # AWS: "You cannot delete a capacity provider that is currently being used by Lambda functions."
        if self.store.configs_on_provider(ctx.account, ctx.region, record["CapacityProviderArn"]):
            raise errors.conflict(  # UNCONFIRMED wording
                f"Capacity provider {record['CapacityProviderArn']} is in use by one or more function versions."
            )
        with self.store.db.transaction() as conn:
            self.store.delete_capacity_provider(conn, ctx.account, ctx.region, name)
        return {"CapacityProvider": _render(record, "Deleting")}

    def list(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        # Every stored provider is Active (see the module's docstring): a State filter keeps them or none.
        found = self.store.list_capacity_providers(ctx.account, ctx.region)
        if params.get("State") not in (None, "Active"):
            found = []
        return paging.page(found, params.get("Marker"), params.get("MaxItems") or 50, "CapacityProviders", _render)

    def function_versions(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        """The published versions running on the provider, $LATEST.PUBLISHED among them ($LATEST is not:
        on AWS a managed-instances function's environments are provisioned when a version is published)."""
        _, record = self._stored(ctx, params["CapacityProviderName"])
        arn = record["CapacityProviderArn"]
        versions = []
        for c in self.store.configs_on_provider(ctx.account, ctx.region, arn):
            if c.get("Version", "$LATEST") != "$LATEST":
                versions.append(c)
            elif _on(c.get(LATEST_PUBLISHED_KEY), arn):  # its $LATEST.PUBLISHED, published from it
                versions.append(c[LATEST_PUBLISHED_KEY])

        def item(c: dict[str, Any]) -> dict[str, Any]:
            return {"FunctionArn": errors.function_arn(ctx.region, ctx.account, c["FunctionName"], c["Version"]),
                    "State": "Active"}  # fmt: skip

        out = paging.page(versions, params.get("Marker"), params.get("MaxItems") or 50, "FunctionVersions", item)
        return {"CapacityProviderArn": arn, **out}

    # ------------------------------------------------------------------ tags
    @staticmethod
    def names(resource: str) -> bool:
        return ":capacity-provider:" in resource

    def list_tags(self, ctx: RequestContext, arn: str) -> dict[str, Any]:
        return {"Tags": dict(self._stored(ctx, arn)[1].get("_tags") or {})}

    def tag(self, ctx: RequestContext, arn: str, new: dict[str, str] | None = None,
            removed: builtins.list[str] | None = None) -> None:  # fmt: skip
        name, record = self._stored(ctx, arn)
        tags = {**(record.get("_tags") or {}), **(new or {})}
        record["_tags"] = {k: v for k, v in tags.items() if k not in (removed or [])}
        with self.store.db.transaction() as conn:
            self.store.put_capacity_provider(conn, ctx.account, ctx.region, name, record)

    # ------------------------------------------------------------------ a function's
    def function_config(self, account: str, region: str, given: dict[str, Any], memory: int | None) -> dict[str, Any]:
        """A function's CapacityProviderConfig with AWS's defaults filled in; its provider must exist
        and `memory` (the MemorySize it will have) be at least MANAGED_MIN_MEMORY."""
        check_managed_memory(memory)
        managed = dict(given.get("LambdaManagedInstancesCapacityProviderConfig") or {})
        arn = str(managed.get("CapacityProviderArn") or "")
        if arn != arn_of(region, account, _name(arn)) or self.store.get_capacity_provider(
            account, region, _name(arn)
        ) is None:
            raise errors.invalid(f"Capacity provider {arn} does not exist.")  # UNCONFIRMED wording
        managed.setdefault("PerExecutionEnvironmentMaxConcurrency", _DEFAULT_MAX_CONCURRENCY)
        managed.setdefault("ExecutionEnvironmentMemoryGiBPerVCpu", _DEFAULT_GIB_PER_VCPU)
        return {"LambdaManagedInstancesCapacityProviderConfig": managed}


def _on(config: dict[str, Any] | None, arn: str) -> bool:
    managed = ((config or {}).get("CapacityProviderConfig") or {}).get("LambdaManagedInstancesCapacityProviderConfig")
    return isinstance(managed, dict) and managed.get("CapacityProviderArn") == arn


def check_managed_memory(memory: int | None) -> None:
    if memory is not None and memory < MANAGED_MIN_MEMORY:
        # AWS's answer as users recorded it (ValidationException).
        raise validation_error(
            f"Lambda Managed Instance functions must have memory size greater than or equal to {MANAGED_MIN_MEMORY}"
        )


def _render(record: dict[str, Any], state: str = "Active") -> dict[str, Any]:
    return {"CapacityProviderArn": record["CapacityProviderArn"], "State": state,
            **{k: v for k, v in record.items() if not k.startswith("_") and k != "CapacityProviderArn"}}  # fmt: skip
