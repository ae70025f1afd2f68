"""A function's configuration: validating what CreateFunction/UpdateFunctionConfiguration accept and
rendering the FunctionConfiguration shape (aws-semantics.md 2.1), in the model's member order.

The stored record holds the FunctionConfiguration members plus private keys starting with `_`
(`_code`: the zip's SHA-256 hex). State is not stored: updates take effect at once, so a response
to CreateFunction (or UpdateFunctionCode with Publish) says Pending / an update says InProgress, as
AWS's first answer does, and every later read says Active / Successful (PublishVersion's answer too,
as AWS records it), so `aws lambda wait function-active-v2` returns at once; only for a moment after
UpdateFunctionCode with Publish do reads of the new version say Pending and of $LATEST InProgress, as
AWS records them (settling.py). On AWS the move to Active / Successful gives the function a new
RevisionId; so here the first answer carries a revision of its own and the stored record the one
later reads see.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.awsmodels.recorded import LAMBDA_RUNTIMES
from onceflow.errors import validation_error
from onceflow.lambda_ import dead_letter, errors, runtime_lifecycle

if TYPE_CHECKING:
    from onceflow.lambda_.zips import CheckedZip

# The Python runtimes of Lambda's model: taken until their "block function create/update" day
# (runtime_lifecycle.py).
PYTHON_RUNTIMES = ("python2.7", "python3.6", "python3.7", "python3.8", "python3.9", "python3.10", "python3.11",
                   "python3.12", "python3.13", "python3.14")  # fmt: skip
MAX_TIMEOUT = 900
MAX_MEMORY = 10240
# The model's 32768 MB / 5400 s are Lambda Managed Instances' and durable functions'; a function
# here has Lambda's own 512-10240 MB of /tmp (quotas page), refused in the words of the other two.
MAX_EPHEMERAL = 10240
MAX_NAME = 64  # a bare function name; the model's 140 is for the whole ARN
MAX_ENVIRONMENT_BYTES = 4096

# Lambda sets these itself; a function may not (AWS docs: "Defined runtime environment variables").
RESERVED_ENV = (
    "_HANDLER", "_X_AMZN_TRACE_ID", "AWS_DEFAULT_REGION", "AWS_REGION", "AWS_EXECUTION_ENV",
    "AWS_LAMBDA_FUNCTION_NAME", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "AWS_LAMBDA_FUNCTION_VERSION",
    "AWS_LAMBDA_INITIALIZATION_TYPE", "AWS_LAMBDA_LOG_GROUP_NAME", "AWS_LAMBDA_LOG_STREAM_NAME",
    "AWS_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
    "AWS_LAMBDA_RUNTIME_API", "LAMBDA_TASK_ROOT", "LAMBDA_RUNTIME_DIR",
)  # fmt: skip


def now_lambda() -> str:
    """LastModified as Lambda writes it: 2019-09-26T20:28:40.438+0000."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}+0000"


def new_revision() -> str:
    return str(uuid.uuid4())


def check_runtime(runtime: str, all_runtimes: list[str], operation: str, today: date) -> None:
    """A Runtime given to CreateFunction (operation "create") or UpdateFunctionConfiguration ("update")."""
    if runtime in PYTHON_RUNTIMES:
        runtime_lifecycle.check(runtime, operation, today)
        return
    if runtime in all_runtimes:
        raise errors.invalid(f"onceflow runs Python functions only; the runtime {runtime} is not supported")
    raise errors.bad_runtime(runtime, LAMBDA_RUNTIMES)  # AWS's own list (recorded)


# Python runtimes SnapStart takes (docs: "Improving startup performance with Lambda SnapStart": Python 3.12
# and later); AWS refused python3.12 itself when LocalStack recorded it (2024-04), before that support came.
_SNAP_START_PYTHON = ("python3.12", "python3.13", "python3.14")


def check_snap_start(snap: dict[str, Any] | None, runtime: str) -> None:
    if (snap or {}).get("ApplyOn") == "PublishedVersions" and runtime not in _SNAP_START_PYTHON:
        raise errors.invalid(f"{runtime} is not supported for SnapStart enabled functions.")


def check_limits(params: dict[str, Any]) -> None:
    timeout = params.get("Timeout")
    if timeout is not None and timeout > MAX_TIMEOUT:
        raise validation_error(
            f"1 validation error detected: Value '{timeout}' at 'timeout' failed to satisfy constraint: "
            f"Member must have value less than or equal to {MAX_TIMEOUT}"
        )
    memory = params.get("MemorySize")
    if memory is not None and memory > MAX_MEMORY:
        raise validation_error(
            f"1 validation error detected: Value '{memory}' at 'memorySize' failed to satisfy constraint: "
            f"Member must have value less than or equal to {MAX_MEMORY}"
        )
    ephemeral = (params.get("EphemeralStorage") or {}).get("Size")
    if ephemeral is not None and ephemeral > MAX_EPHEMERAL:
        raise validation_error(
            f"1 validation error detected: Value '{ephemeral}' at 'ephemeralStorage.size' failed to satisfy "
            f"constraint: Member must have value less than or equal to {MAX_EPHEMERAL}"
        )
    variables = (params.get("Environment") or {}).get("Variables") or {}
    # Its keys fit the model's pattern: checked on the wire (wire/validate.py map_key_check).
    reserved = [k for k in variables if k in RESERVED_ENV]
    if reserved:
        raise errors.invalid(
            "Lambda was unable to configure your environment variables because the environment variables you "
            "have provided contains reserved keys that are currently not supported for modification. "
            f"Reserved keys used in this request: {', '.join(reserved)}"
        )
    check_environment(params)


def check_name(name: str) -> None:
    if len(name) > MAX_NAME:
        raise errors.invalid(
            f"1 validation error detected: Value '{name}' at 'functionName' failed to satisfy constraint: "
            f"Member must have length less than or equal to {MAX_NAME}"
        )


def check_environment(params: dict[str, Any]) -> None:
    """Lambda measures the variables as a compact JSON object and names what it measured."""
    variables = (params.get("Environment") or {}).get("Variables")
    if not variables:
        return
    measured = json.dumps(variables, separators=(",", ":"), ensure_ascii=False)
    if len(measured.encode()) > MAX_ENVIRONMENT_BYTES:
        raise errors.invalid(
            "Lambda was unable to configure your environment variables because the environment variables you "
            f"have provided exceeded the 4KB limit. String measured: {measured}"
        )


def logging_config(stored: dict[str, Any] | None, name: str) -> dict[str, str]:
    """LoggingConfig as AWS shows it: levels only in the JSON format (INFO by default), the group
    /aws/lambda/<name> unless one was chosen."""
    stored = stored or {}
    fmt = stored.get("LogFormat") or "Text"
    out: dict[str, str] = {"LogFormat": fmt}
    if fmt == "JSON":
        out["ApplicationLogLevel"] = stored.get("ApplicationLogLevel") or "INFO"
        out["SystemLogLevel"] = stored.get("SystemLogLevel") or "INFO"
    out["LogGroup"] = stored.get("LogGroup") or f"/aws/lambda/{name}"
    return out


_LOG_LEVELS = ("ApplicationLogLevel", "SystemLogLevel")


def merge_logging(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """UpdateFunctionConfiguration changes only the LoggingConfig members it names. Log levels are
    for the JSON format only: naming one while the format is (or stays) Text is refused in AWS's
    words (recorded), and a move to Text drops the levels kept (UNCONFIRMED: a later move back to
    JSON then shows INFO, not the former levels)."""
    merged = {**(old or {}), **{k: v for k, v in new.items() if v is not None}}
    if (merged.get("LogFormat") or "Text") == "Text":
        if any(new.get(level) is not None for level in _LOG_LEVELS):
            raise errors.invalid(
                'LogLevel is not supported when LogFormat is set to "Text". Remove LogLevel from your request or '
                'change the LogFormat to "JSON" and try again.'
            )
        for level in _LOG_LEVELS:
            merged.pop(level, None)
    return merged


def durable_config(given: dict[str, Any] | None, stored: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """DurableConfig as kept: what was given over what was kept, the retention the model documents as
    the default filled in (UNCONFIRMED: that AWS answers it when it was not given). None: not durable."""
    if given is None:
        return stored
    kept = {**(stored or {}), **given}
    kept.setdefault("RetentionPeriodInDays", 30)
    return kept


def check_durable_update(given: dict[str, Any] | None, stored: dict[str, Any] | None) -> None:
    """Durable execution is chosen at creation (docs, "Configure Lambda durable functions": "You can only
    enable durable execution when creating a function. You cannot enable it on existing functions.")."""
    if given is not None and stored is None:
        raise errors.invalid("DurableConfig can only be set when the function is created.")  # UNCONFIRMED wording


def runtime_version_arn(region: str, runtime: str, architectures: list[str] | None = None) -> str:
    # AWS names the runtime build by a hash; onceflow derives a stable one from the runtime name, and
    # the architecture's: an arm64 build is another (recorded: test_mixed_architecture's update names
    # another RuntimeVersionArn than its create).
    arch = (architectures or ["x86_64"])[0]
    name = runtime if arch == "x86_64" else f"{runtime}:{arch}"
    return f"arn:{partition(region)}:lambda:{region}::runtime:{hashlib.sha256(name.encode()).hexdigest()}"


def render(
    config: dict[str, Any], account: str, region: str, phase: str = "steady", revision: str | None = None
) -> dict[str, Any]:
    """FunctionConfiguration for a stored record. phase: 'create', 'update', 'steady' or
    'listed' (ListFunctions, ListVersionsByFunction: AWS leaves out the state members and
    RuntimeVersionConfig there, as its ListFunctions reference says and its recordings show);
    `revision` replaces the stored RevisionId (the first answer's, see the module's docstring)."""
    name = config["FunctionName"]
    version = config.get("Version", "$LATEST")
    qualifier = None if version == "$LATEST" else version
    out: dict[str, Any] = {
        "FunctionName": name,
        "FunctionArn": errors.function_arn(region, account, name, qualifier),
        "Runtime": config["Runtime"],
        "Role": config["Role"],
        "Handler": config["Handler"],
        "CodeSize": config["CodeSize"],
        "Description": config.get("Description", ""),
        "Timeout": config.get("Timeout", 3),
        "MemorySize": config.get("MemorySize", 128),
        "LastModified": config["LastModified"],
        "CodeSha256": config["CodeSha256"],
        "Version": version,
    }
    if config.get("Environment") is not None:
        out["Environment"] = {"Variables": dict(config["Environment"].get("Variables") or {})}
    if config.get("VpcConfig") is not None:
        vpc = config["VpcConfig"]
        out["VpcConfig"] = {
            "SubnetIds": list(vpc.get("SubnetIds") or []),
            "SecurityGroupIds": list(vpc.get("SecurityGroupIds") or []),
            "VpcId": "",
            "Ipv6AllowedForDualStack": bool(vpc.get("Ipv6AllowedForDualStack")),
        }
    dlq = dead_letter.render(config.get("DeadLetterConfig"))
    if dlq is not None:
        out["DeadLetterConfig"] = dlq
    out["TracingConfig"] = {"Mode": (config.get("TracingConfig") or {}).get("Mode", "PassThrough")}
    out["RevisionId"] = revision or config["RevisionId"]
    if config.get("Layers"):
        out["Layers"] = [{"Arn": layer["Arn"], "CodeSize": layer["CodeSize"]} for layer in config["Layers"]]
    out.update(_state(phase))
    out["PackageType"] = "Zip"
    out["Architectures"] = list(config.get("Architectures") or ["x86_64"])
    out["EphemeralStorage"] = {"Size": (config.get("EphemeralStorage") or {}).get("Size", 512)}
    if config.get("CapacityProviderConfig"):  # Lambda Managed Instances: no SnapStart (as AWS answers)
        out["CapacityProviderConfig"] = config["CapacityProviderConfig"]
    else:
        apply_on = (config.get("SnapStart") or {}).get("ApplyOn", "None")
        # A published version of a SnapStart function is optimized (recorded, test_lambda_api
        # test_snapstart_lifecycle: GetFunction of version 1 says On, $LATEST Off). UNCONFIRMED: that
        # PublishVersion's own answer already says On (its versions are active at once here).
        optimized = apply_on == "PublishedVersions" and qualifier is not None
        out["SnapStart"] = {"ApplyOn": apply_on, "OptimizationStatus": "On" if optimized else "Off"}
    if config.get("DurableConfig") is not None:
        out["DurableConfig"] = dict(config["DurableConfig"])
    if phase != "listed":
        out["RuntimeVersionConfig"] = {"RuntimeVersionArn": runtime_version_arn(region, config["Runtime"],
                                                                           config.get("Architectures"))}
    out["LoggingConfig"] = logging_config(config.get("LoggingConfig"), name)
    return out


def as_named(shown: dict[str, Any], account: str, region: str, qualifier: str | None) -> dict[str, Any]:
    """A rendered configuration whose FunctionArn carries the qualifier it was asked for, as AWS answers:
    `:$LATEST` when $LATEST is named (GetFunction with Qualifier=$LATEST, ListVersionsByFunction,
    ListFunctions with FunctionVersion=ALL), the alias when read through one, none when none was."""
    return {**shown, "FunctionArn": errors.function_arn(region, account, shown["FunctionName"], qualifier)}


def _state(phase: str) -> dict[str, str]:
    if phase == "create":
        return {"State": "Pending", "StateReason": "The function is being created.", "StateReasonCode": "Creating"}
    if phase == "update":
        return {
            "State": "Active",
            "LastUpdateStatus": "InProgress",
            "LastUpdateStatusReason": "The function is being created.",
            "LastUpdateStatusReasonCode": "Creating",
        }
    if phase == "listed":
        return {}
    return {"State": "Active", "LastUpdateStatus": "Successful"}


# What is not configuration: bookkeeping, and what changes on every write.
_NOT_CONFIGURATION = ("Version", "RevisionId", "LastModified", "FunctionArn")


def fingerprint(config: dict[str, Any]) -> str:
    """What PublishVersion compares: a version is only published when code or configuration
    (any member, the description too) changed since the last one."""
    kept = {k: v for k, v in config.items() if not k.startswith("_") and k not in _NOT_CONFIGURATION}
    return json.dumps(kept, sort_keys=True, default=str)


def new_record(
    name: str, params: dict[str, Any], checked: CheckedZip, logging_base: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The stored $LATEST record of a new function (FunctionConfiguration members + private keys)."""
    return {
        "FunctionName": name,
        "Runtime": params["Runtime"],
        "Role": params["Role"],
        "Handler": params["Handler"],
        "CodeSize": checked.size,
        "Description": params.get("Description", ""),
        "Timeout": params.get("Timeout", 3),
        "MemorySize": params.get("MemorySize", 128),
        "LastModified": now_lambda(),
        "CodeSha256": checked.sha256_b64,
        "Version": "$LATEST",
        "Environment": params.get("Environment"),
        "TracingConfig": params.get("TracingConfig"),
        "RevisionId": new_revision(),
        "Architectures": params.get("Architectures"),
        "EphemeralStorage": params.get("EphemeralStorage"),
        "Layers": params.get("Layers"),
        "VpcConfig": params.get("VpcConfig"),
        "DeadLetterConfig": params.get("DeadLetterConfig"),
        "SnapStart": params.get("SnapStart"),
        "DurableConfig": durable_config(params.get("DurableConfig")),
        "LoggingConfig": merge_logging(logging_base, params.get("LoggingConfig") or {}),
        "_code": checked.sha256_hex,
        "_published": None,
    }
