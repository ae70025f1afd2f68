"""Layers: PublishLayerVersion (from a zip, or from onceflow's S3), their versions, and what a function's Layers become
at run time: the layers' files laid over each other in the order given (a later layer's file wins),
in one folder that the worker puts where Lambda's /opt is on the path (/opt/python and its
site-packages after the task root; /opt/bin on PATH).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import errors, policy, zips
from onceflow.lambda_.store import Key, LambdaStore

MAX_LAYERS = 5
_LAYER_ARN = re.compile(
    r"arn:aws[a-zA-Z-]*:lambda:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):layer:(?P<name>[a-zA-Z0-9-_]+)"
    r"(?::(?P<version>\d+))?"
)


def layer_arn(region: str, account: str, name: str, version: int | None = None) -> str:
    arn = f"arn:{partition(region)}:lambda:{region}:{account}:layer:{name}"
    return f"{arn}:{version}" if version is not None else arn


class Layers:
    def __init__(
        self,
        store: LambdaStore,
        code_root: Path,
        from_s3: Callable[[str, dict[str, Any]], bytes] | None,
        location: Callable[[dict[str, Any]], str],
    ) -> None:
        self.store = store
        self.code_root = code_root
        # a config with `_code` -> the URL its zip is downloaded from (LambdaService.location: the same
        # presigned URL as GetFunction's Code.Location)
        self.location = location
        # (account, Content) -> the zip S3Bucket/S3Key(/S3ObjectVersion) name, read from onceflow's S3
        # with S3's error in Lambda's words (LambdaService.from_s3)
        self.from_s3 = from_s3

    def _key(self, ctx: RequestContext, name: str) -> Key:
        found = _LAYER_ARN.fullmatch(name)
        if found is None:
            return (ctx.account, ctx.region, name)
        return (found["account"], found["region"], found["name"])

    def publish(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        key = self._key(ctx, params["LayerName"])
        content = params.get("Content") or {}
        zips.check_upload(content, ctx.body_bytes, "PublishLayerVersion")
        data = content.get("ZipFile")
        if data is None:
            if not content.get("S3Bucket"):
                raise errors.invalid("Please provide a source for layer content.")  # UNCONFIRMED wording
            if self.from_s3 is None:  # no S3 service: every bucket is one that does not exist
                raise errors.invalid(
                    "Error occurred while GetObject. S3 Error Code: NoSuchBucket. S3 Error Message: "
                    "The specified bucket does not exist"
                )
            data = self.from_s3(ctx.account, content)
        checked = zips.check_zip(bytes(data))
        zips.unpack(checked, self.code_root)
        config: dict[str, Any] = {
            "CodeSha256": checked.sha256_b64,
            "CodeSize": checked.size,
            "Description": params.get("Description", ""),
            "CreatedDate": cfg.now_lambda(),
            "CompatibleRuntimes": params.get("CompatibleRuntimes"),
            "CompatibleArchitectures": params.get("CompatibleArchitectures"),
            "LicenseInfo": params.get("LicenseInfo"),
            "_code": checked.sha256_hex,
        }
        with self.store.db.transaction() as conn:
            self.store.put_code(conn, checked.sha256_hex, checked.data)
            version = self.store.next_layer_version(conn, key)
            config["Version"] = version
            self.store.put_layer(conn, key, version, config, checked.sha256_hex)
        return self._render(key, config)

    def get(self, ctx: RequestContext, name: str, version: int) -> dict[str, Any]:
        _check_number(version)
        key = self._key(ctx, name)
        config = self.store.get_layer(key, version)
        if config is None:
            raise errors.not_found("The resource you requested does not exist.")
        return self._render(key, config)

    def get_by_arn(self, ctx: RequestContext, arn: str) -> dict[str, Any]:
        found = _LAYER_ARN.fullmatch(arn)
        if found is None or found["version"] is None:
            raise errors.not_found("The resource you requested does not exist.")
        return self.get(ctx, arn.rsplit(":", 1)[0], int(found["version"]))

    def delete(self, ctx: RequestContext, name: str, version: int) -> None:
        _check_number(version)
        key = self._key(ctx, name)
        with self.store.db.transaction() as conn:  # AWS answers 204 for a version that is not there
            self.store.delete_layer(conn, key, version)

    def list_versions(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        key = self._key(ctx, params["LayerName"])
        rows = [c for c in self.store.list_layer_versions(key) if _compatible(c, params)]
        return {"LayerVersions": [self._item(key, c) for c in rows]}

    def list_layers(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        out = []
        for name in self.store.list_layer_names(ctx.account, ctx.region):
            key = (ctx.account, ctx.region, name)
            matching = [c for c in self.store.list_layer_versions(key) if _compatible(c, params)]
            if matching:
                out.append({"LayerName": name, "LayerArn": layer_arn(*_arn_parts(key)),
                            "LatestMatchingVersion": self._item(key, matching[0])})  # fmt: skip
        return {"Layers": out}

    # ------------------------------------------------------------------ layer version policies
    def add_permission(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        key, version, config = self._version(ctx, params)
        _check_revision(config, params.get("RevisionId"))
        current = config.get("_policy") or policy.empty()
        principal = params["Principal"]
        stmt: dict[str, Any] = {
            "Sid": params["StatementId"],
            "Effect": "Allow",
            "Principal": "*" if principal == "*" else {"AWS": _account_root(principal, ctx.partition)},
            "Action": params["Action"],
            "Resource": layer_arn(*_arn_parts(key), version),
        }
        if params.get("OrganizationId"):
            stmt["Condition"] = {"StringEquals": {"aws:PrincipalOrgID": params["OrganizationId"]}}
        config["_policy"] = policy.add(current, stmt)
        config["_policy_revision"] = cfg.new_revision()
        with self.store.db.transaction() as conn:
            self.store.update_layer(conn, key, version, config)
        return {"Statement": json.dumps(stmt, separators=(",", ":")), "RevisionId": config["_policy_revision"]}

    def remove_permission(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        key, version, config = self._version(ctx, params)
        _check_revision(config, params.get("RevisionId"))
        config["_policy"] = policy.remove(config.get("_policy"), params["StatementId"])
        config["_policy_revision"] = cfg.new_revision()
        with self.store.db.transaction() as conn:
            self.store.update_layer(conn, key, version, config)

    def get_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        _, _, config = self._version(ctx, params)
        doc = config.get("_policy")
        if not doc or not doc["Statement"]:
            raise errors.not_found("No policy is associated with the given resource.")
        return {"Policy": json.dumps(doc, separators=(",", ":")), "RevisionId": config["_policy_revision"]}

    def _version(self, ctx: RequestContext, params: dict[str, Any]) -> tuple[Key, int, dict[str, Any]]:
        key = self._key(ctx, params["LayerName"])
        version = int(params["VersionNumber"])
        config = self.store.get_layer(key, version)
        if config is None:  # the policy calls name the version (recorded)
            raise errors.not_found(f"Layer version {layer_arn(*_arn_parts(key), version)} does not exist.")
        return key, version, config

    # ------------------------------------------------------------------ functions' layers
    def check(self, account: str, region: str, arns: list[str]) -> list[dict[str, Any]]:
        """The layer versions a function names, checked: [{"Arn", "CodeSize"}] as FunctionConfiguration
        shows them (with the private `_code` for the run)."""
        if len(arns) > MAX_LAYERS:
            raise errors.invalid(f"Cannot reference more than {MAX_LAYERS} layers.")
        out = []
        seen: dict[str, str] = {}  # layer ARN -> the version ARN first naming it
        for arn in arns:
            layer = arn.rsplit(":", 1)[0]
            if layer in seen:  # recorded: the first two versions of one layer are named, even the same one twice
                raise errors.invalid(
                    "Two different versions of the same layer are not allowed to be referenced in the same function. "
                    f"{seen[layer]} and {arn} are versions of the same layer."
                )
            seen[layer] = arn
            found = _LAYER_ARN.fullmatch(arn)
            if found is not None and found["region"] != region:  # recorded
                raise errors.invalid(
                    f"Layers are not in the same region as the function. Layers are expected to be in region {region}."
                )
            config = None
            if found is not None and found["version"] is not None:
                config = self.store.get_layer((found["account"], found["region"], found["name"]),
                                              int(found["version"]))  # fmt: skip
            if config is None:
                raise errors.invalid(f"Layer version {arn} does not exist.")
            out.append({"Arn": arn, "CodeSize": config["CodeSize"], "_code": config["_code"]})
        return out

    def opt_dir(self, layers: list[dict[str, Any]]) -> str | None:
        """The folder standing for /opt: the layers unpacked over each other in order (built once)."""
        if not layers:
            return None
        shas = [layer["_code"] for layer in layers]
        target = self.code_root / ("opt-" + hashlib.sha256(":".join(shas).encode()).hexdigest()[:32])
        if target.is_dir():
            return str(target)
        tmp = Path(tempfile.mkdtemp(prefix=".opt-", dir=self.code_root))
        try:
            for sha in shas:
                source = zips.ensure_unpacked(sha, self.code_root, self.store.get_code)
                shutil.copytree(source, tmp, symlinks=False, dirs_exist_ok=True)
            try:
                tmp.rename(target)
            except OSError:
                if not target.is_dir():
                    raise
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return str(target)

    def _render(self, key: Key, config: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "Content": {
                "Location": self.location(config),
                "CodeSha256": config["CodeSha256"],
                "CodeSize": config["CodeSize"],
            },
            "LayerArn": layer_arn(*_arn_parts(key)),
            "LayerVersionArn": layer_arn(*_arn_parts(key), config["Version"]),
        }
        return {**out, **self._details(config)}

    def _item(self, key: Key, config: dict[str, Any]) -> dict[str, Any]:
        return {"LayerVersionArn": layer_arn(*_arn_parts(key), config["Version"]), **self._details(config)}

    @staticmethod
    def _details(config: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"Description": config.get("Description", ""), "CreatedDate": config["CreatedDate"],
                               "Version": config["Version"]}  # fmt: skip
        for member in ("CompatibleArchitectures", "CompatibleRuntimes"):  # given empty, shown empty (recorded)
            if config.get(member) is not None:
                out[member] = config[member]
        if config.get("LicenseInfo"):
            out["LicenseInfo"] = config["LicenseInfo"]
        return out


def _check_number(version: int) -> None:
    if version < 1:  # recorded for GetLayerVersion and DeleteLayerVersion
        raise errors.invalid("Layer Version Cannot be less than 1")


def _account_root(principal: str, partition: str) -> str:
    return principal if principal.startswith("arn:") else f"arn:{partition}:iam::{principal}:root"


def _check_revision(config: dict[str, Any], wanted: str | None) -> None:
    if wanted and wanted != config.get("_policy_revision"):
        raise errors.revision_mismatch("GetLayerPolicy")


def _arn_parts(key: Key) -> tuple[str, str, str]:
    account, region, name = key
    return region, account, name


def _compatible(config: dict[str, Any], params: dict[str, Any]) -> bool:
    runtime, arch = params.get("CompatibleRuntime"), params.get("CompatibleArchitecture")
    if runtime and runtime not in (config.get("CompatibleRuntimes") or []):
        return False
    return not (arch and arch not in (config.get("CompatibleArchitectures") or []))
