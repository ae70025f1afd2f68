"""Lambda aliases: a name for one published version (or $LATEST), optionally sending a weighted share
of its invocations to one other version (RoutingConfig)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from onceflow.context import RequestContext
from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import cross_account, errors, names, paging
from onceflow.lambda_.names import FunctionRef

if TYPE_CHECKING:
    from onceflow.lambda_.service import LambdaService


class Aliases:
    def __init__(self, service: LambdaService) -> None:
        self.service = service
        self.store = service.store

    def create(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region)
        names.unqualified(ref)
        alias = params["Name"]
        if params["FunctionVersion"] == "$LATEST":
            self.service.latest(ref)
        # A version of a missing function is not found as that version (recorded: "...-unknown:1").
        self.service.check_version_exists(ref, params["FunctionVersion"])
        self._check_routing(ref, params["FunctionVersion"], params.get("RoutingConfig"))
        if self.store.get_alias(ref.key, alias) is not None:
            raise errors.alias_exists(ref.arn(alias))
        record = {
            "AliasArn": ref.arn(alias),
            "Name": alias,
            "FunctionVersion": params["FunctionVersion"],
            "Description": params.get("Description", ""),
            **({"RoutingConfig": params["RoutingConfig"]} if _routes(params.get("RoutingConfig")) else {}),
            "RevisionId": cfg.new_revision(),
        }
        with self.store.db.transaction() as conn:
            self.store.put_alias(conn, ref.key, alias, record)
        return record

    def get(self, ctx: RequestContext, name: str, alias: str) -> dict[str, Any]:
        ref = cross_account.parse(ctx, name)
        self.service.latest(ref)
        record = self.store.get_alias(ref.key, alias)
        if record is None:
            raise errors.alias_not_found(ref.arn(alias))
        return record

    def update(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        record = self.get(ctx, params["FunctionName"], params["Name"])
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region)
        self.service.check_revision(record, params.get("RevisionId"))
        if "FunctionVersion" in params:
            self.service.check_version_exists(ref, params["FunctionVersion"])
        self._check_routing(ref, params.get("FunctionVersion", record["FunctionVersion"]),
                            params.get("RoutingConfig", record.get("RoutingConfig")))  # fmt: skip
        for member in ("FunctionVersion", "Description", "RoutingConfig"):
            if member in params:
                record[member] = params[member]
        if not _routes(record.get("RoutingConfig")):  # no weights: the alias shows no RoutingConfig (recorded)
            record.pop("RoutingConfig", None)
        record["RevisionId"] = cfg.new_revision()
        with self.store.db.transaction() as conn:
            self.store.put_alias(conn, ref.key, params["Name"], record)
        self.service.on_alias_change(ref.key)
        return record

    def delete(self, ctx: RequestContext, name: str, alias: str) -> None:
        ref = names.parse(name, ctx.account, ctx.region)
        with self.store.db.transaction() as conn:
            self.store.delete_alias(conn, ref.key, alias)  # AWS answers 204 even when it did not exist
            latest = self.store.get_function(ref.key)
            provisioned = dict((latest or {}).get("_provisioned") or {})
            if latest is not None and provisioned.pop(alias, None) is not None:  # the alias's config goes with it
                self.store.update_function(conn, ref.key, {**latest, "_provisioned": provisioned})
        self.service.on_alias_change(ref.key)

    def list(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = cross_account.parse(ctx, params["FunctionName"])
        self.service.latest(ref)
        aliases = self.store.list_aliases(ref.key)
        if params.get("FunctionVersion"):
            aliases = [a for a in aliases if a["FunctionVersion"] == params["FunctionVersion"]]
        return paging.page(aliases, params.get("Marker"), params.get("MaxItems") or 50, "Aliases", lambda a: a)

    def _check_routing(self, ref: FunctionRef, primary: str, routing: dict[str, Any] | None) -> None:
        """An alias may send a share of its invocations to one other published version."""
        weights = (routing or {}).get("AdditionalVersionWeights") or {}
        if not weights:
            return
        if primary == "$LATEST":
            # recorded without a Type member
            raise errors.invalid("$LATEST is not supported for an alias pointing to more than 1 version", typed=False)
        # Both wordings as LocalStack's provider has them, held to AWS's recorded answers by its snapshots.
        if len(weights) > 1:
            raise errors.invalid("Number of items in AdditionalVersionWeights cannot be greater than 1")
        for version in weights:  # its keys fit the model's pattern (wire/validate.py map_key_check)
            if version == primary:
                raise errors.invalid(
                    f"Invalid function version {version}. Function version {version} is already included "
                    "in routing configuration."
                )
            self.service.check_version_exists(ref, version)


def route(alias: dict[str, Any]) -> str:
    """The version one invocation of an alias runs: the additional version for its weight's share."""
    weights = (alias.get("RoutingConfig") or {}).get("AdditionalVersionWeights") or {}
    draw = random.random()
    for version, weight in weights.items():
        if draw < float(weight):
            return str(version)
        draw -= float(weight)
    return str(alias["FunctionVersion"])


def _routes(routing: dict[str, Any] | None) -> bool:
    """Whether a RoutingConfig sends anything elsewhere: an empty AdditionalVersionWeights is none."""
    return bool((routing or {}).get("AdditionalVersionWeights"))
