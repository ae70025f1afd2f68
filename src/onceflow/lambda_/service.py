"""Lambda's rules for functions, versions, aliases and reserved concurrency.

Writes happen in one transaction after every check has passed, so a refused call changes nothing.
Invocation lives in invoke.py; this module resolves what an invocation runs (`resolve`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import cross_account, dead_letter, errors, names, paging, runtime_lifecycle, zips
from onceflow.lambda_.aliases import route
from onceflow.lambda_.names import FunctionRef
from onceflow.lambda_.settling import Settling
from onceflow.lambda_.store import LambdaStore

if TYPE_CHECKING:
    from onceflow.ports import Port
    from onceflow.s3.ports import ObjectStore

LATEST_PUBLISHED = "$LATEST.PUBLISHED"
LATEST_PUBLISHED_KEY = "_latest_published"  # the $LATEST.PUBLISHED version, kept in $LATEST's record
_CONFIG_MEMBERS = ("Role", "Handler", "Description", "Timeout", "MemorySize", "Runtime", "Environment",
                   "TracingConfig", "EphemeralStorage", "VpcConfig", "DeadLetterConfig", "SnapStart")  # fmt: skip
MIN_UNRESERVED = 100  # what an account keeps unreserved (docs: "the Unreserved account concurrency ... minus 100")


@dataclass(frozen=True)
class Resolved:
    """What an invocation of `ref` runs: the version's configuration and how it was named."""

    ref: FunctionRef
    config: dict[str, Any]
    executed_version: str  # "$LATEST" or "3"
    invoked_arn: str  # the ARN as invoked (unqualified for $LATEST, :alias via an alias)
    reserved: int | None
    provisioned: dict[str, int] = field(default_factory=dict)  # qualifier -> requested provisioned concurrency


class LambdaService:
    def __init__(
        self,
        store: LambdaStore,
        code_root: Path,
        runtimes: list[str],
        role_lookup: Callable[[str, str], dict[str, Any] | None] | None,
        account_limit: int,
        on_change: Callable[[tuple[str, str, str]], None],
        on_deploy: Callable[[dict[str, Any]], None] = lambda _config: None,
    ) -> None:
        self.store = store
        self.code_root = code_root
        self.runtimes = runtimes
        self.role_lookup = role_lookup  # (account, role arn) -> role or None; None until IAM exists
        self.account_limit = account_limit
        self.on_change = on_change  # retires warm workers of a function
        self.on_deploy = on_deploy  # a function was created: get its runtime's zygote ready
        # An alias moved or went: its provisioned workers follow (set by setup to the invoker's).
        self.on_alias_change: Callable[[tuple[str, str, str]], None] = lambda _key: None
        self.s3: Port[ObjectStore] | None = None  # S3: code given as S3Bucket/S3Key is read from it
        self.role_checks: Any = None  # IAM's service (role_allows), set by setup when IAM exists
        self.layers: Any = None  # layers.Layers, set by setup
        self.code_locations: Any = None  # code_location.CodeLocations (GetFunction's Code.Location), set by setup
        self.code_signing: Any = None  # code_signing.CodeSigning, set by setup
        self.capacity_providers: Any = None  # capacity_providers.CapacityProviders, set by setup
        self.today = runtime_lifecycle.today_utc  # the day runtime deprecation is judged on
        self._unzipped_sizes: dict[str, int] = {}
        self.settling = Settling()  # the moment after UpdateFunctionCode with Publish (settling.py)

    # ------------------------------------------------------------------ helpers
    def _ref(self, ctx: RequestContext, name: str, qualifier: str | None = None) -> FunctionRef:
        return cross_account.parse(ctx, name, qualifier)  # another account's only where served (and granted)

    def latest(self, ref: FunctionRef) -> dict[str, Any]:
        config = self.store.get_function(ref.key)
        if config is None:
            raise errors.function_not_found(ref.arn())
        return config

    def role_usable(self, account: str, role_arn: str) -> bool:
        """Whether the role exists and lets Lambda assume it (an execution or operator role)."""
        if self.role_lookup is None:
            return True
        role = self.role_lookup(account, role_arn)
        return role is not None and _trusts_lambda(role.get("AssumeRolePolicyDocument"))

    def _check_role(self, account: str, role_arn: str) -> None:
        if self.role_lookup is not None and role_arn.split(":")[4:5] != [account]:
            raise errors.cross_account_role()
        if not self.role_usable(account, role_arn):
            raise errors.role_cannot_be_assumed()

    def _layers(self, ctx: RequestContext, params: dict[str, Any]) -> list[dict[str, Any]] | None:
        if params.get("Layers") is None:
            return None
        if self.layers is None:
            raise errors.invalid(f"Layer version {params['Layers'][0]} does not exist.")
        return self.layers.check(ctx.account, ctx.region, list(params["Layers"]))

    def _check_combined(self, code: bytes | str, layers: list[dict[str, Any]]) -> None:
        """Lambda's quota on a function's code and its layers unpacked together (each alone is
        checked with its zip). `code` is the zip, or the SHA-256 of a stored one."""
        if not layers:
            return
        total = sum(self._unzipped(layer["_code"]) for layer in layers)
        total += zips.unzipped_size(code) if isinstance(code, bytes) else self._unzipped(code)
        if total > errors.MAX_UNZIPPED_BYTES:
            raise errors.invalid(f"Function code combined with layers exceeds the maximum allowed size of "
                                 f"{errors.MAX_UNZIPPED_BYTES} bytes. The actual size is {total} bytes.")  # fmt: skip

    def _unzipped(self, sha256_hex: str) -> int:
        """A stored zip's unpacked size (zips never change under their hash: read once)."""
        if sha256_hex not in self._unzipped_sizes:
            self._unzipped_sizes[sha256_hex] = zips.unzipped_size(self.store.get_code(sha256_hex))
        return self._unzipped_sizes[sha256_hex]

    def _managed(self, ctx: RequestContext, given: dict[str, Any] | None, memory: int) -> dict[str, Any] | None:
        """A Lambda Managed Instances function's CapacityProviderConfig, checked (capacity_providers.py)."""
        if given is None:
            return None
        assert self.capacity_providers is not None  # set by setup, with the service
        return dict(self.capacity_providers.function_config(ctx.account, ctx.region, given, memory))

    def _check_vpc(self, account: str, vpc: dict[str, Any] | None, role_arn: str) -> None:
        """A VPC onceflow cannot attach: AWS first wants the role to manage network interfaces, then
        looks the subnets up in EC2, where none of them exists here. An empty one is accepted."""
        subnets = (vpc or {}).get("SubnetIds") or []
        if not subnets and not (vpc or {}).get("SecurityGroupIds"):
            return
        iam = self.role_checks
        if iam is not None and not iam.role_allows(account, role_arn, "ec2:CreateNetworkInterface", "*"):
            raise errors.invalid(
                "The provided execution role does not have permissions to call CreateNetworkInterface on EC2"
            )
        if subnets:
            raise errors.invalid(
                "Error occurred while DescribeSubnets. EC2 Error Code: InvalidSubnetID.NotFound. "
                f"EC2 Error Message: The subnet ID '{subnets[0]}' does not exist"
            )
        raise errors.invalid("Error occurred while DescribeSecurityGroups. EC2 Error Code: "
                             "InvalidGroup.NotFound. EC2 Error Message: The security group "
                             f"'{(vpc or {})['SecurityGroupIds'][0]}' does not exist")  # fmt: skip

    def _zip(self, code: dict[str, Any], account: str = "") -> zips.CheckedZip:
        data = code.get("ZipFile")
        if data is None and code.get("S3Bucket"):
            data = self.from_s3(account, code)
        if data is None:
            raise errors.no_code()
        if isinstance(data, str):  # tolerate a base64 string from callers that did not decode it
            try:
                data = base64.b64decode(data, validate=True)
            except binascii.Error:
                raise errors.bad_zip() from None
        checked = zips.check_zip(bytes(data))
        zips.unpack(checked, self.code_root)
        return checked

    def from_s3(self, account: str, code: dict[str, Any]) -> bytes:
        """The zip an S3Bucket/S3Key(/S3ObjectVersion) names, read as the caller's account; S3's
        error in the words Lambda wraps it in."""
        try:
            s3 = self.s3.get() if self.s3 is not None else None
            if s3 is None or not code.get("S3Key"):
                raise ServiceError("NoSuchBucket", "The specified bucket does not exist", 404)
            obj = s3.object(account, code["S3Bucket"], code["S3Key"], code.get("S3ObjectVersion"))
            return b"".join(s3.body(obj))  # only its unpacked size is bounded (zips.check_upload: a direct upload's)
        except ServiceError as err:
            raise errors.invalid(f"Error occurred while GetObject. S3 Error Code: {err.code}. S3 Error Message: "
                                 f"{err.message}") from None

    def location(self, config: dict[str, Any]) -> str:
        """Where the zip of a function's (or layer version's) `_code` is downloaded from: GetFunction's
        Code.Location, GetLayerVersion's Content.Location."""
        if self.code_locations is None:
            return self.code_dir(config).as_uri()
        return str(self.code_locations.url(config["_code"]))

    def code_dir(self, config: dict[str, Any]) -> Path:
        return zips.ensure_unpacked(config["_code"], self.code_root, self.store.get_code)

    # ------------------------------------------------------------------ create / read
    def create_function(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        zips.check_upload(params.get("Code") or {}, ctx.body_bytes, "CreateFunction")
        ref = names.parse(params["FunctionName"], ctx.account, ctx.region, creating=True)
        names.unqualified(ref)
        cfg.check_name(ref.name)
        if params.get("PackageType") == "Image" or (params.get("Code") or {}).get("ImageUri"):
            raise errors.invalid("onceflow runs Zip packages only; container images are not supported")
        if not params.get("Runtime") or not params.get("Handler"):
            raise errors.invalid(
                "Runtime and Handler are mandatory parameters for functions created with deployment packages."
            )
        cfg.check_runtime(params["Runtime"], self.runtimes, "create", self.today())
        cfg.check_snap_start(params.get("SnapStart"), params["Runtime"])
        cfg.check_limits(params)
        layers = self._layers(ctx, params)
        self._check_role(ctx.account, params["Role"])
        self._check_vpc(ctx.account, params.get("VpcConfig"), params["Role"])
        dead_letter.check(params.get("DeadLetterConfig"), ctx.account, params["Role"], self.role_checks)
        managed = self._managed(ctx, params.get("CapacityProviderConfig"), params.get("MemorySize", 2048))
        if self.store.get_function(ref.key) is not None:
            raise errors.function_exists(ref.name)
        csc = params.get("CodeSigningConfigArn")
        if csc and self.code_signing is not None:
            csc = self.code_signing.linkable(csc)
            self.code_signing.check_deploy(csc, ref.name)
            self.code_signing.check_layers(csc, [], layers or [])
        checked = self._zip(params.get("Code") or {}, ctx.account)
        self._check_combined(checked.data, layers or [])
        # Lambda Managed Instances: 2048 MB and JSON logs unless told otherwise
        record = cfg.new_record(ref.name, params, checked, {"LogFormat": "JSON"} if managed is not None else None)
        if managed is not None:
            record.update(CapacityProviderConfig=managed, MemorySize=params.get("MemorySize", 2048))
        if csc and self.code_signing is not None:
            record["_csc"] = csc
        record["Layers"] = layers
        with self.store.db.transaction() as conn:
            self.store.put_code(conn, checked.sha256_hex, checked.data)
            if not self.store.insert_function(conn, ref.key, record):
                raise errors.function_exists(ref.name)
            if params.get("Tags"):
                self.store.set_tags(conn, ref.key, dict(params["Tags"]))
            version = self._publish_as(conn, ref, record, params.get("PublishTo")) if params.get("Publish") else None
        self.on_deploy(record)
        shown = version or record
        # With Publish the answer is the new version's, under the unqualified ARN (as AWS answers)
        return cfg.as_named(cfg.render(shown, ctx.account, ctx.region, "create", cfg.new_revision()), ctx.account,
                            ctx.region, None)  # fmt: skip

    def get_configuration(self, ctx: RequestContext, name: str, qualifier: str | None) -> dict[str, Any]:
        resolved = self.resolve(cross_account.owner(ctx, name), ctx.region, name, qualifier, invoking=False)
        return self._named(ctx, resolved)

    def get_function(self, ctx: RequestContext, name: str, qualifier: str | None) -> dict[str, Any]:
        resolved = self.resolve(cross_account.owner(ctx, name), ctx.region, name, qualifier, invoking=False)
        out: dict[str, Any] = {
            "Configuration": self._named(ctx, resolved),
            "Code": {"RepositoryType": "S3", "Location": self.location(resolved.config)},
        }
        tags = self.store.get_tags(resolved.ref.key)
        if tags:
            out["Tags"] = tags
        if resolved.reserved is not None:
            out["Concurrency"] = {"ReservedConcurrentExecutions": resolved.reserved}
        return out

    def _named(self, ctx: RequestContext, resolved: Resolved) -> dict[str, Any]:
        account = resolved.ref.account  # the function's own (another account's, reached by its ARN)
        moment = self.settling.shown(resolved.ref.key, resolved.executed_version)
        phase, revision = moment if moment is not None else ("steady", None)
        shown = cfg.render(resolved.config, account, ctx.region, phase, revision)
        return cfg.as_named(shown, account, ctx.region, resolved.ref.qualifier)

    def list_functions(
        self, ctx: RequestContext, marker: str | None, max_items: int | None, version: str | None = None
    ) -> dict[str, Any]:
        limit = max_items or 50
        if version == "ALL":  # every function's $LATEST followed by its published versions
            rows = self.store.list_functions(ctx.account, ctx.region, None, 1_000_000)
            every = [
                c for r in rows for c in (r, *self.store.list_versions((ctx.account, ctx.region, r["FunctionName"])))
            ]
            return paging.page(every, marker, limit, "Functions", lambda c: _listed(c, ctx.account, ctx.region))
        after = paging.decode_marker(marker)
        rows = self.store.list_functions(ctx.account, ctx.region, after, limit + 1)
        out: dict[str, Any] = {"Functions": [cfg.render(r, ctx.account, ctx.region, "listed") for r in rows[:limit]]}
        if len(rows) > limit:
            out["NextMarker"] = paging.encode_marker(rows[limit - 1]["FunctionName"])
        return out

    # ------------------------------------------------------------------ updates
    def update_code(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        zips.check_upload(params, ctx.body_bytes, "UpdateFunctionCode")
        ref = self._ref(ctx, params["FunctionName"])
        names.unqualified(ref)
        record = self.latest(ref)
        self.check_revision(record, params.get("RevisionId"))
        if params.get("ImageUri"):  # every function here is a Zip package (recorded: zipfile-to-image-error)
            raise errors.invalid("Please don't provide ImageUri when updating a function with packageType Zip.")
        if self.code_signing is not None:
            self.code_signing.check_deploy(record.get("_csc"), ref.name)
        checked = self._zip(params, ctx.account)
        self._check_combined(checked.data, record.get("Layers") or [])
        if params.get("Architectures"):  # the code is built for it (recorded: test_mixed_architecture)
            record["Architectures"] = list(params["Architectures"])
        if params.get("DryRun"):
            preview = {**record, "CodeSha256": checked.sha256_b64, "CodeSize": checked.size}
            return cfg.render(preview, ctx.account, ctx.region, "update")
        record.update(CodeSha256=checked.sha256_b64, CodeSize=checked.size, _code=checked.sha256_hex)
        return self._save_update(ctx, ref, record, bool(params.get("Publish")), checked)

    def update_configuration(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = self._ref(ctx, params["FunctionName"])
        names.unqualified(ref)
        record = self.latest(ref)
        self.check_revision(record, params.get("RevisionId"))
        if "Runtime" in params:
            cfg.check_runtime(params["Runtime"], self.runtimes, "update", self.today())
            pinned = ((record.get("_runtime_management") or {}).get("") or {}).get("UpdateRuntimeOn") == "Manual"
            if pinned and params["Runtime"] != record["Runtime"]:  # AWS's words, as a Terraform user recorded them
                raise errors.invalid("Cannot change runtime identifier when runtime management configuration is set "
                                     "to 'Manual'. Change the runtime management configuration to 'Auto' or "
                                     "'FunctionUpdate', then retry.")  # fmt: skip
        runtime = params.get("Runtime", record["Runtime"])
        cfg.check_snap_start(params.get("SnapStart", record.get("SnapStart")), runtime)
        cfg.check_limits(params)
        layers = self._layers(ctx, params)
        if "Role" in params:
            self._check_role(ctx.account, params["Role"])
        if "VpcConfig" in params:
            self._check_vpc(ctx.account, params["VpcConfig"], params.get("Role") or record["Role"])
        if "DeadLetterConfig" in params:  # checked when given, as the VPC is (against the role it will have)
            dead_letter.check(params["DeadLetterConfig"], ctx.account, params.get("Role") or record["Role"],
                              self.role_checks)  # fmt: skip
        if "CapacityProviderConfig" in params:
            if not record.get("CapacityProviderConfig"):
                # AWS's answer (as LocalStack's snapshot tests record it): a function cannot move onto one.
                raise errors.invalid("CapacityProviderConfig isn't supported for Lambda Default functions.")
            record["CapacityProviderConfig"] = self._managed(
                ctx, params["CapacityProviderConfig"], params.get("MemorySize", record["MemorySize"]))
        elif record.get("CapacityProviderConfig") and "MemorySize" in params:
            self._managed(ctx, record["CapacityProviderConfig"], params["MemorySize"])
        cfg.check_durable_update(params.get("DurableConfig"), record.get("DurableConfig"))
        for member in _CONFIG_MEMBERS:
            if member in params and not dead_letter.unchanged_by(member, params[member]):
                record[member] = params[member]
        if "DurableConfig" in params:
            record["DurableConfig"] = cfg.durable_config(params["DurableConfig"], record.get("DurableConfig"))
        if layers is not None:
            self._check_combined(record["_code"], layers)
            if self.code_signing is not None:
                self.code_signing.check_layers(record.get("_csc"), record.get("Layers") or [], layers)
            record["Layers"] = layers
        if "LoggingConfig" in params:
            record["LoggingConfig"] = cfg.merge_logging(record.get("LoggingConfig"), params["LoggingConfig"])
        return self._save_update(ctx, ref, record, False, None)

    def _save_update(
        self, ctx: RequestContext, ref: FunctionRef, record: dict[str, Any], publish: bool,
        checked: zips.CheckedZip | None,
    ) -> dict[str, Any]:  # fmt: skip
        record.update(LastModified=cfg.now_lambda(), RevisionId=cfg.new_revision())
        before = record.get("_published")
        with self.store.db.transaction() as conn:
            if checked is not None:
                self.store.put_code(conn, checked.sha256_hex, checked.data)
            self.store.update_function(conn, ref.key, record)
            version = self._publish(conn, ref, record) if publish else None
        self.on_change(ref.key)
        if version is not None and not (before is not None and version.get("Version") == str(before)):
            # a new version: Pending (no LastUpdateStatus, recorded 2024) under the revision its first
            # reads show too, and $LATEST InProgress meanwhile (settling.py)
            revision = cfg.new_revision()
            self.settling.start(ref.key, version["Version"], "create", revision)
            self.settling.start(ref.key, "$LATEST", "update", cfg.new_revision())
            return cfg.render(version, ctx.account, ctx.region, "create", revision)
        self.settling.forget(ref.key, "$LATEST")
        if version is not None:  # nothing changed: the last version, returned again as it stands
            return cfg.render(version, ctx.account, ctx.region)
        return cfg.render(record, ctx.account, ctx.region, "update", cfg.new_revision())

    @staticmethod
    def check_revision(record: dict[str, Any], revision: str | None) -> None:
        if revision and revision != record["RevisionId"]:
            raise errors.revision_mismatch()

    def delete_function(self, ctx: RequestContext, name: str, qualifier: str | None) -> None:
        ref = self._ref(ctx, name, qualifier)
        if ref.qualifier == "$LATEST":  # refused before the function is looked up, as AWS records it
            raise errors.invalid("$LATEST version cannot be deleted without deleting the function.")
        self.latest(ref)
        with self.store.db.transaction() as conn:
            if ref.qualifier:
                version = _version_number(ref.qualifier)
                if version is None:
                    raise errors.function_not_found(ref.arn(ref.qualifier))
                if self.store.get_version(ref.key, version) is None:
                    return  # deleting a version that is not there is idempotent on AWS (recorded)
                users = [a["Name"] for a in self.store.list_aliases(ref.key) if a["FunctionVersion"] == ref.qualifier]
                if users:
                    raise errors.conflict(
                        f"Unable to delete version because the following aliases reference it: {users}"
                    )
                self.store.delete_version(conn, ref.key, version)
            else:
                self.store.delete_function(conn, ref.key)
        self.settling.forget(ref.key, ref.qualifier)
        self.on_change(ref.key)

    # ------------------------------------------------------------------ versions
    def publish_version(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        ref = self._ref(ctx, params["FunctionName"])
        names.unqualified(ref)
        record = self.latest(ref)
        self.check_revision(record, params.get("RevisionId"))
        expected = params.get("CodeSha256")
        if expected and expected != record["CodeSha256"]:
            raise errors.invalid(
                f"CodeSHA256 ({expected}) is different from current CodeSHA256 in $LATEST "
                f"({record['CodeSha256']}). Please try again with the CodeSHA256 in $LATEST."
            )
        with self.store.db.transaction() as conn:
            version = self._publish_as(conn, ref, record, params.get("PublishTo"), params.get("Description"))
        # Active and Successful at once, with the revision later reads see (recorded 2022-2024); also
        # when nothing changed and the last version is returned again.
        return cfg.render(version, ctx.account, ctx.region)

    def _publish_as(self, conn: Any, ref: FunctionRef, record: dict[str, Any], publish_to: str | None,
                    description: str | None = None) -> dict[str, Any]:  # fmt: skip
        """A numbered version, or with PublishTo=LATEST_PUBLISHED (Lambda Managed Instances) $LATEST
        republished as the function's one `$LATEST.PUBLISHED` version, kept in its record."""
        if publish_to != "LATEST_PUBLISHED":
            return self._publish(conn, ref, record, description)
        if not record.get("CapacityProviderConfig"):  # UNCONFIRMED wording
            raise errors.invalid("PublishTo LATEST_PUBLISHED is only supported for Lambda Managed Instances functions.")
        version = {**{k: v for k, v in record.items() if k != LATEST_PUBLISHED_KEY}, "Version": LATEST_PUBLISHED,
                   "RevisionId": cfg.new_revision(), "LastModified": cfg.now_lambda(), "_published": None}  # fmt: skip
        if description is not None:
            version["Description"] = description
        record[LATEST_PUBLISHED_KEY] = version
        self.store.update_function(conn, ref.key, record)
        return version

    def _publish(
        self, conn: Any, ref: FunctionRef, record: dict[str, Any], description: str | None = None
    ) -> dict[str, Any]:
        """Publish $LATEST as a new version, or return the last version when nothing changed."""
        latest = record.get("_published")
        now = cfg.fingerprint(record)
        if latest is not None:
            last = self.store.get_version(ref.key, int(latest))
            # $LATEST as it was when `last` was published (a version's own Description may differ)
            then = record.get("_published_fp") or (cfg.fingerprint(last) if last is not None else None)
            if last is not None and then == now:
                return last
        number = self.store.next_version(conn, ref.key)
        version = {**{k: v for k, v in record.items() if k != LATEST_PUBLISHED_KEY}, "Version": str(number),
                   "RevisionId": cfg.new_revision(), "_published": None, "LastModified": cfg.now_lambda()}  # fmt: skip
        if description is not None:
            version["Description"] = description
        self.store.insert_version(conn, ref.key, number, version)
        record["_published"], record["_published_fp"] = number, now
        record["RevisionId"] = cfg.new_revision()  # a publish gives $LATEST a new revision too (recorded)
        self.store.update_function(conn, ref.key, record)
        return version

    def list_versions(self, ctx: RequestContext, name: str, marker: str | None, max_items: int | None) -> dict:
        ref = self._ref(ctx, name)
        names.unqualified(ref)
        everything = [self.latest(ref), *self.store.list_versions(ref.key)]
        return paging.page(everything, marker, max_items or 50, "Versions",
                     lambda c: _listed(c, ref.account, ctx.region))  # fmt: skip

    # ------------------------------------------------------------------ concurrency
    def put_concurrency(self, ctx: RequestContext, name: str, value: int) -> dict[str, Any]:
        ref = self._ref(ctx, name)
        # Recorded (test_lambda_api test_function_concurrency_exceptions): `:$LATEST` is refused here too,
        # unlike names.unqualified's operations.
        if ref.qualifier:
            raise errors.invalid(
                "This operation is permitted on Lambda functions only. Aliases and versions do not support this "
                "operation. Please specify either a function name or an unqualified function ARN."
            )
        record = self.store.get_function(ref.key)
        if record is None:  # recorded with `:$LATEST`, before the value is weighed
            raise errors.function_not_found(ref.arn("$LATEST"))
        provisioned = sum(int(e["Requested"]) for e in (record.get("_provisioned") or {}).values())
        if value < provisioned:  # recorded, spaces and all, without a Type
            raise errors.invalid(f" ReservedConcurrentExecutions  {value} should not be lower than function's total "
                                 f"provisioned concurrency [{provisioned}].", typed=False)  # fmt: skip
        others = self.store.total_reserved(ref.account, ctx.region, excluding=ref.name)  # the function's account
        if self.account_limit - others - value < MIN_UNRESERVED:
            raise errors.invalid(
                "Specified ReservedConcurrentExecutions for function decreases account's "
                f"UnreservedConcurrentExecution below its minimum value of [{MIN_UNRESERVED}]."
            )
        with self.store.db.transaction() as conn:
            self.store.set_reserved(conn, ref.key, value)
        return {"ReservedConcurrentExecutions": value}

    def get_concurrency(self, ctx: RequestContext, name: str) -> dict[str, Any]:
        ref = self._ref(ctx, name)
        reserved = self.latest(ref).get("_reserved")
        return {} if reserved is None else {"ReservedConcurrentExecutions": reserved}

    def delete_concurrency(self, ctx: RequestContext, name: str) -> None:
        ref = self._ref(ctx, name)
        self.latest(ref)
        with self.store.db.transaction() as conn:
            self.store.set_reserved(conn, ref.key, None)

    def unreserved_limit(self, account: str, region: str) -> int:
        return self.account_limit - self.store.total_reserved(account, region)

    def check_version_exists(self, ref: FunctionRef, version: str) -> None:
        if version == "$LATEST":
            return
        number = _version_number(version)
        if number is None or self.store.get_version(ref.key, number) is None:
            raise errors.function_not_found(ref.arn(version))

    @staticmethod
    def stored_qualifier(ref: FunctionRef) -> str:
        """What a qualifier's settings are stored under, unchecked: reads of one setting (an invoke
        config, a URL config) answer "not there" without looking the function or version up, as AWS does."""
        return "" if ref.qualifier is None or ref.qualifier == "$LATEST" else ref.qualifier

    def existing_qualifier(self, ref: FunctionRef) -> str:
        """'' for the unqualified function (or $LATEST), else the version or alias named, which must
        exist: what policies, invoke configs and URLs are stored under."""
        self.latest(ref)
        q = ref.qualifier
        if q is None or q == "$LATEST":
            return ""
        if q == LATEST_PUBLISHED:
            if not (self.store.get_function(ref.key) or {}).get(LATEST_PUBLISHED_KEY):
                raise errors.function_not_found(ref.arn(q))
            return q
        number = _version_number(q)
        if number is None:
            if self.store.get_alias(ref.key, q) is None:
                raise errors.function_not_found(ref.arn(q))
        elif self.store.get_version(ref.key, number) is None:
            raise errors.function_not_found(ref.arn(q))
        return q

    # ------------------------------------------------------------------ resolution
    def resolve(self, account: str, region: str, name: str, qualifier: str | None, *, invoking: bool) -> Resolved:
        """The configuration a name + qualifier designates; Invoke's not-found names `:$LATEST`."""
        ref = names.parse(name, account, region, qualifier)
        latest = self.store.get_function(ref.key)
        if latest is None:
            raise errors.function_not_found(ref.arn(ref.qualifier or ("$LATEST" if invoking else None)))
        reserved = latest.get("_reserved")
        provisioned = {k: int(e["Requested"]) for k, e in (latest.get("_provisioned") or {}).items()}
        q = ref.qualifier
        published = latest.get(LATEST_PUBLISHED_KEY)
        if q == LATEST_PUBLISHED or (q is None and invoking and published is not None):
            # AWS: an unqualified invocation of a managed-instances function runs $LATEST.PUBLISHED
            if published is None:
                raise errors.function_not_found(ref.arn(q))
            return Resolved(ref, published, LATEST_PUBLISHED, ref.arn(q), reserved, provisioned)
        if q is None or q == "$LATEST":
            return Resolved(ref, latest, "$LATEST", ref.arn(q), reserved, provisioned)
        number = _version_number(q)
        if number is None:
            alias = self.store.get_alias(ref.key, q)
            if alias is None:
                raise errors.function_not_found(ref.arn(q))
            target = route(alias)
            config = latest if target == "$LATEST" else self.store.get_version(ref.key, int(target))
            if config is None:
                raise errors.function_not_found(ref.arn(q))
            return Resolved(ref, config, target, ref.arn(q), reserved, provisioned)
        config = self.store.get_version(ref.key, number)
        if config is None:
            raise errors.function_not_found(ref.arn(q))
        return Resolved(ref, config, q, ref.arn(q), reserved, provisioned)


def _listed(config: dict[str, Any], account: str, region: str) -> dict[str, Any]:
    """A version in a list of versions: every one named by its qualifier, $LATEST too."""
    return cfg.as_named(cfg.render(config, account, region, "listed"), account, region,
                        config.get("Version", "$LATEST"))  # fmt: skip


def _trusts_lambda(document: Any) -> bool:
    """Whether a trust policy lets lambda.amazonaws.com assume the role (lenient when unreadable)."""
    if not isinstance(document, dict):
        return True
    statements = document.get("Statement")
    statements = statements if isinstance(statements, list) else [statements]
    for st in statements:
        if not isinstance(st, dict) or st.get("Effect") != "Allow":
            continue
        actions = st.get("Action")
        actions = actions if isinstance(actions, list) else [actions]
        if not any(a in ("sts:AssumeRole", "sts:*", "*") for a in actions):
            continue
        principal = st.get("Principal")
        if principal == "*":
            return True
        services = principal.get("Service") if isinstance(principal, dict) else None
        services = services if isinstance(services, list) else [services]
        if "lambda.amazonaws.com" in services:
            return True
    return False


def _version_number(value: str) -> int | None:
    return int(value) if value.isdigit() else None
