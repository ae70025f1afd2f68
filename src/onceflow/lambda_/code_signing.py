"""Code signing configs: Create/Get/Update/Delete/ListCodeSigningConfigs, a function's own
(Put/Get/DeleteFunctionCodeSigningConfig, or CreateFunction's CodeSigningConfigArn) and
ListFunctionsByCodeSigningConfig, stored and returned in AWS's shapes.

What onceflow cannot do is verify a signature: that takes AWS Signer's signing jobs and profiles,
which it does not serve. So every zip deployed to a function with a code signing config counts as
unsigned, and its policy decides as on AWS for unsigned code: `Warn` (the default) deploys it, with
a warning in the server's log (AWS: a CloudWatch metric and a CloudTrail entry); `Enforce` refuses the
deployment (CreateFunction, UpdateFunctionCode) with CodeVerificationFailedException. The check runs
when code is deployed, not when a config is attached to a function that already has code (as on AWS).
Layers count too (AWS: "any layers that you add to the function must also be signed by an allowed
signing profile"): a layer added by CreateFunction or UpdateFunctionConfiguration is unsigned code.
"""

from __future__ import annotations

import builtins
import logging
import re
import secrets
import string
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import errors, names, paging
from onceflow.lambda_.service import LambdaService

log = logging.getLogger("onceflow.lambda")

_ARN = re.compile(r"arn:aws[a-zA-Z-]*:lambda:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):code-signing-config:"
                  r"(?P<id>csc-[a-z0-9]{17})")  # fmt: skip
_POLICIES = ("Warn", "Enforce")
MAX_PUBLISHERS = 20


# The two not-found wordings are AWS's recorded answers (LocalStack's snapshots; not in AWS's
# documentation); the first is recorded without a Type member.
def _not_found(arn: str) -> ServiceError:
    return errors.not_found(f"The Lambda code signing configuration {arn} can not be found.", typed=False)


def _csc_not_found(arn: str) -> ServiceError:
    message = ("The code signing configuration cannot be found. Check that the provided configuration is not "
               f"deleted: {arn}.")  # fmt: skip
    return ServiceError("CodeSigningConfigNotFoundException", message, 404, extra={"Type": "User", "Message": message})


def _verification_failed(name: str) -> ServiceError:
    # AWS's words for unsigned code under Enforce (as CloudFormation relays them)
    message = ("Lambda cannot deploy the function. The function or layer might be signed using a signature that the "
               f"client is not configured to accept. Check the provided signature for {name}.")  # fmt: skip
    return ServiceError("CodeVerificationFailedException", message, 400, extra={"Type": "User", "Message": message})


class CodeSigning:
    def __init__(self, service: LambdaService) -> None:
        self.service = service
        self.store = service.store

    # ------------------------------------------------------------------ the configs
    def create(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        publishers = _publishers(params.get("AllowedPublishers"))
        policies = _policies(params.get("CodeSigningPolicies"))
        csc_id = "csc-" + "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(17))
        config = {
            "CodeSigningConfigId": csc_id,
            "CodeSigningConfigArn": f"arn:{ctx.partition}:lambda:{ctx.region}:{ctx.account}"
                                    f":code-signing-config:{csc_id}",
            "Description": params.get("Description", ""),
            "AllowedPublishers": publishers,
            "CodeSigningPolicies": policies,
            "LastModified": cfg.now_lambda(),
        }
        with self.store.db.transaction() as conn:
            self.store.put_csc(conn, ctx.account, ctx.region, csc_id, {**config, "_tags": params.get("Tags") or {}})
        return {"CodeSigningConfig": config}

    def get(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return {"CodeSigningConfig": _render(self._stored(params["CodeSigningConfigArn"])[1])}

    def update(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        (account, region, csc_id), config = self._stored(params["CodeSigningConfigArn"])
        if "AllowedPublishers" in params:
            config["AllowedPublishers"] = _publishers(params["AllowedPublishers"])
        if "CodeSigningPolicies" in params:
            config["CodeSigningPolicies"] = _policies(params["CodeSigningPolicies"])
        if "Description" in params:
            config["Description"] = params["Description"]
        config["LastModified"] = cfg.now_lambda()
        with self.store.db.transaction() as conn:
            self.store.put_csc(conn, account, region, csc_id, config)
        return {"CodeSigningConfig": _render(config)}

    def delete(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        arn = params["CodeSigningConfigArn"]
        (account, region, csc_id), _ = self._stored(arn)
        if self.store.functions_signed_by(account, region, _canonical(arn)):  # UNCONFIRMED wording
            raise errors.conflict(f"The code signing configuration {arn} is in use by one or more functions.")
        with self.store.db.transaction() as conn:
            self.store.delete_csc(conn, account, region, csc_id)

    def list(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        rendered = [_render(c) for c in self.store.list_cscs(ctx.account, ctx.region)]
        return _page(rendered, params, "CodeSigningConfigs")

    def functions(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        arn = params["CodeSigningConfigArn"]
        (account, region, _), _ = self._stored(arn)
        found = self.store.functions_signed_by(account, region, _canonical(arn))
        return _page([errors.function_arn(region, account, n) for n in found], params, "FunctionArns")

    def _stored(self, arn: str) -> tuple[tuple[str, str, str], dict[str, Any]]:
        found = _ARN.fullmatch(arn)
        if found is None:  # UNCONFIRMED wording (the model's pattern, as Lambda's validation names it)
            raise errors.invalid(
                f"1 validation error detected: Value '{arn}' at 'codeSigningConfigArn' failed to satisfy "
                "constraint: Member must satisfy regular expression pattern: " + _ARN.pattern
            )
        key = (found["account"], found["region"], found["id"])
        config = self.store.get_csc(*key)
        if config is None:
            raise _not_found(arn)
        return key, config

    # ------------------------------------------------------------------ tags (TagResource & co. on its ARN)
    @staticmethod
    def names(resource: str) -> bool:
        return ":code-signing-config:" in resource

    def list_tags(self, arn: str) -> dict[str, Any]:
        return {"Tags": dict(self._stored(arn)[1].get("_tags") or {})}

    def tag(self, arn: str, new: dict[str, str] | None = None, removed: builtins.list[str] | None = None) -> None:
        key, config = self._stored(arn)
        tags = {**(config.get("_tags") or {}), **(new or {})}
        config["_tags"] = {k: v for k, v in tags.items() if k not in (removed or [])}
        with self.store.db.transaction() as conn:
            self.store.put_csc(conn, *key, config)

    # ------------------------------------------------------------------ a function's
    def put_function(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region)
        names.unqualified(ref)
        arn = self.linkable(params["CodeSigningConfigArn"])  # checked before the function (recorded)
        record = self.service.store.get_function(ref.key)
        if record is None:
            raise errors.function_not_found(ref.arn())
        record["_csc"] = arn
        with self.store.db.transaction() as conn:
            self.store.update_function(conn, ref.key, record)
        return {"CodeSigningConfigArn": arn, "FunctionName": ref.name}

    def get_function(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region)
        names.unqualified(ref)
        record = self.service.store.get_function(ref.key)
        if record is None:
            raise errors.function_not_found(ref.arn())
        if not record.get("_csc"):  # no config: an empty answer (as LocalStack's snapshot-tested provider)
            return {}
        return {"CodeSigningConfigArn": record["_csc"], "FunctionName": ref.name}

    def delete_function(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region)
        names.unqualified(ref)
        record = self.service.store.get_function(ref.key)
        if record is None:
            raise errors.function_not_found(ref.arn())
        record.pop("_csc", None)
        with self.store.db.transaction() as conn:
            self.store.update_function(conn, ref.key, record)

    def linkable(self, arn: str) -> str:
        """The ARN a function may name (CreateFunction, PutFunctionCodeSigningConfig): an existing config."""
        found = _ARN.fullmatch(arn)
        if found is None or self.store.get_csc(found["account"], found["region"], found["id"]) is None:
            raise _csc_not_found(arn)
        return _canonical(arn)

    def check_deploy(self, csc_arn: str | None, function_name: str) -> None:
        """A zip is being deployed to `function_name`: what its config's policy says of unsigned code."""
        self._check(csc_arn, function_name, "the code of")

    def check_layers(
        self, csc_arn: str | None, before: builtins.list[dict[str, Any]], after: builtins.list[dict[str, Any]]
    ) -> None:
        """Layers are being set on a function: what its config's policy says of those it did not
        have already (unsigned code too; the ones it has were checked when they were added)."""
        had = {layer["Arn"] for layer in before}
        for layer in after:
            if layer["Arn"] not in had:
                self._check(csc_arn, layer["Arn"], "the layer")

    def _check(self, csc_arn: str | None, subject: str, kind: str) -> None:
        if not csc_arn:
            return
        found = _ARN.fullmatch(csc_arn)
        config = self.store.get_csc(found["account"], found["region"], found["id"]) if found else None
        if config is None:
            return
        if (config.get("CodeSigningPolicies") or {}).get("UntrustedArtifactOnDeployment") == "Enforce":
            raise _verification_failed(subject)
        log.warning("onceflow cannot verify code signatures: %s %s is deployed unverified "
                    "(UntrustedArtifactOnDeployment Warn in %s)", kind, subject, csc_arn)  # fmt: skip


def _canonical(arn: str) -> str:
    found = _ARN.fullmatch(arn)
    if not found:
        return arn
    region = found["region"]
    return f"arn:{partition(region)}:lambda:{region}:{found['account']}:code-signing-config:{found['id']}"


def _publishers(value: Any) -> dict[str, list[str]]:
    arns = list((value or {}).get("SigningProfileVersionArns") or [])
    bound = "greater than or equal to 1" if not arns else f"less than or equal to {MAX_PUBLISHERS}"
    if not arns or len(arns) > MAX_PUBLISHERS:
        raise errors.invalid(
            f"1 validation error detected: Value '{arns}' at 'allowedPublishers.signingProfileVersionArns' failed "
            f"to satisfy constraint: Member must have length {bound}"
        )
    return {"SigningProfileVersionArns": arns}


def _policies(value: Any) -> dict[str, str]:
    policy = (value or {}).get("UntrustedArtifactOnDeployment") or "Warn"
    if policy not in _POLICIES:
        raise errors.invalid(
            f"1 validation error detected: Value '{policy}' at 'codeSigningPolicies.untrustedArtifactOnDeployment' "
            f"failed to satisfy constraint: Member must satisfy enum value set: [{', '.join(_POLICIES)}]"
        )
    return {"UntrustedArtifactOnDeployment": policy}


def _render(config: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in config.items() if not k.startswith("_")}


def _page(items: list[Any], params: dict[str, Any], member: str) -> dict[str, Any]:
    return paging.page(items, params.get("Marker"), params.get("MaxItems") or 50, member, lambda c: c)
