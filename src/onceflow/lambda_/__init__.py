"""lambda_: Python functions deployed from zips and run in warm worker processes.

setup() builds the store, the service, the worker pool and the API, and registers them on the
stack. Code is stored in the database and unpacked under <data>/lambda/<sha256> (a temporary
folder with --in-memory). Workers are forked from a zygote (one per interpreter) that starts in the
background once functions exist or get created, and are stopped with the server.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from onceflow import internal
from onceflow.context import RequestContext
from onceflow.lambda_.account import AccountService
from onceflow.lambda_.api import LambdaApi
from onceflow.lambda_.capacity_providers import CapacityProviders, arn_of
from onceflow.lambda_.code_location import CodeLocations
from onceflow.lambda_.code_signing import CodeSigning
from onceflow.lambda_.cross_account import Policies
from onceflow.lambda_.durable import parse_callback_id as durable_callback_arn
from onceflow.lambda_.durable_api import DurableApi
from onceflow.lambda_.durable_driver import DurableDriver
from onceflow.lambda_.durable_store import DurableStore
from onceflow.lambda_.esm_setup import setup_mappings
from onceflow.lambda_.interpreters import Interpreters
from onceflow.lambda_.invoke import Invoker
from onceflow.lambda_.layers import Layers
from onceflow.lambda_.names import parse
from onceflow.lambda_.runtime.pool import Pool
from onceflow.lambda_.runtime.sandbox import Sandbox
from onceflow.lambda_.service import LambdaService
from onceflow.lambda_.store import LambdaStore
from onceflow.lambda_.urls import FunctionUrls
from onceflow.lambda_.urls import authorization_requests as url_requests
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    settings = stack.settings
    if settings.in_memory or settings.data_dir is None:
        code_root = Path(tempfile.mkdtemp(prefix="onceflow-lambda-"))
        owned_root: Path | None = code_root
    else:
        code_root, owned_root = Path(settings.data_dir) / "lambda", None
    interpreters = Interpreters(dict(settings.lambda_interpreters))
    sandbox = Sandbox()  # README "Lambda sandbox"
    stack.is_handler_uid = sandbox.is_handler_uid
    pool = Pool(settings.lambda_max_workers, sandbox=sandbox)
    store = LambdaStore(stack.db)
    service = LambdaService(
        store,
        code_root,
        _runtimes(),
        _role_lookup(stack),
        settings.lambda_account_concurrency,
        on_change=lambda key: pool.retire("/".join(key)),
        on_deploy=lambda config: pool.warm_up_soon(interpreters.get(config["Runtime"])),
    )
    service.s3 = stack.ports.objects  # S3Bucket/S3Key code, read from S3 (set up by its first read)
    service.role_checks = stack.ports.roles.get()  # set up before Lambda (CONTRACTS.md)
    service.code_locations = CodeLocations(settings.endpoint_url, store.get_code)
    service.layers = Layers(store, code_root, service.from_s3 if service.s3 is not None else None, service.location)
    service.code_signing = CodeSigning(service)
    service.capacity_providers = CapacityProviders(service)
    invoker = Invoker(
        service, pool, stack.ports, settings.endpoint_url, settings.lambda_max_workers, interpreters,
        time_scale=settings.time_scale, enforce_log_permissions=settings.enforce_iam,
    )  # fmt: skip

    def changed(key: tuple[str, str, str]) -> None:
        invoker.reconcile_provisioned(key)  # first: retire spares the workers still provisioned
        pool.retire("/".join(key))

    service.on_change = changed
    service.on_alias_change = invoker.provision  # provisioned workers follow the alias's version
    urls = FunctionUrls(service, invoker, settings.endpoint_url, lambda ctx, params: stack.authorize(ctx, params))
    api = LambdaApi(service, invoker, AccountService(store, settings.lambda_account_concurrency), urls)
    invoker.call = lambda principal, svc, op, params, region: internal.call(stack, principal, svc, op, params,
                                                                          region=region)  # fmt: skip
    stack.registry.add_api("lambda", api)
    durable_driver = DurableDriver(
        DurableStore(stack.db), service, time_scale=settings.time_scale, workers=settings.lambda_max_workers
    )
    durable_driver.run_invocation = invoker.run_invocation
    durable_driver.chained_call = lambda account, region, name, payload: _chained(invoker, account, region, name,
                                                                                  payload)  # fmt: skip
    invoker.durable = durable_driver
    stack.registry.add_api("lambda", DurableApi(durable_driver, service))
    stack.on_start.append(durable_driver.resume)  # running durable executions go on after a restart
    setup_mappings(stack, service, invoker)  # event source mappings (lambda_/esm_setup.py)
    stack.services["lambda"] = api
    stack.services["lambda_urls"] = urls  # wire/app.py hands function URL calls to it
    stack.resource_resolvers["lambda"] = _resolver
    # A function's (or layer version's) policy, weighed by the authorizer: across accounts it must grant.
    stack.resource_policies["lambda"] = Policies(store).lookup
    stack.action_resolvers["lambda"] = lambda ctx, params: url_requests(ctx, params, _resolver)
    # The zygote costs a second of CPU to start: only when functions exist (or get created).
    stack.on_start.append(lambda: _warm_up_for_existing(store, pool, interpreters))
    # Provisioned concurrency is ready before traffic, after a restart too (costs start-up time only
    # when such configs exist).
    stack.on_start.append(lambda: _provision_existing(store, invoker))
    stack.on_reset.append(invoker.logs.flush)  # before the tables are emptied, not after
    stack.on_reset.append(pool.retire_all)

    def shutdown() -> None:
        durable_driver.shutdown()
        invoker.shutdown()
        pool.shutdown()
        if owned_root is not None:
            shutil.rmtree(owned_root, ignore_errors=True)

    stack.on_shutdown.append(shutdown)


def _chained(
    invoker: Invoker, account: str, region: str, name: str, payload: bytes
) -> tuple[str | None, dict[str, Any] | None]:
    """A durable execution's chained invoke: the target invoked synchronously, its answer or its error."""
    out = invoker.invoke(account, region, name, payload)
    body = out.get("Payload") or b""
    text = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else str(body)
    if not out.get("FunctionError"):
        return text, None
    try:
        doc = json.loads(text)
    except ValueError:
        doc = {}
    doc = doc if isinstance(doc, dict) else {}
    return None, {
        "ErrorType": str(doc.get("errorType") or "Unhandled"),
        "ErrorMessage": str(doc.get("errorMessage") or ""),
    }


def _warm_up_for_existing(store: LambdaStore, pool: Pool, interpreters: Interpreters) -> None:
    for runtime in store.runtimes_in_use():
        pool.warm_up_soon(interpreters.get(runtime))


def _provision_existing(store: LambdaStore, invoker: Invoker) -> None:
    for key, _ in store.provisioned():
        invoker.provision(key)


def _role_lookup(stack: Stack) -> Any:
    """IAM's role lookup, resolved at call time so setup order and a missing IAM are both fine."""

    def lookup(account: str, role_arn: str) -> dict[str, Any] | None:
        iam = stack.ports.roles.get()
        if iam is None:
            return {"Arn": role_arn}  # no IAM service yet: accept any well-formed role ARN
        return iam.get_role_by_arn(account, role_arn)

    return lookup


def _resolver(ctx: RequestContext, params: dict[str, Any]) -> list[str]:
    """The function ARN a call acts on, qualified when the call names a version or alias (the layer
    version's ARN for layer calls)."""
    if params.get("DurableExecutionArn"):
        return [str(params["DurableExecutionArn"])]
    if params.get("ResourceArn"):  # the resource-policy calls name their function (version, alias) by ARN
        return [str(params["ResourceArn"])]
    if params.get("CallbackId"):  # a callback's id names its execution (durable.py)
        try:
            return [durable_callback_arn(str(params["CallbackId"]))[0]]
        except Exception:  # a malformed id is the handler's error to report
            return ["*"]
    if params.get("LayerName") or ctx.operation == "GetLayerVersionByArn":
        return [_layer_resource(ctx, params)]
    if params.get("CapacityProviderName"):
        provider = str(params["CapacityProviderName"]).rsplit(":capacity-provider:", 1)[-1]
        return [arn_of(ctx.region, ctx.account, provider)]
    name = params.get("FunctionName") or params.get("Resource")
    if not name:
        return [str(params["CodeSigningConfigArn"])] if params.get("CodeSigningConfigArn") else ["*"]
    try:
        # Another account's ARN names that account's function, for its policy to be weighed; CreateFunction
        # there is refused by the service itself, as AWS answers it (names.parse `creating`).
        foreign = ctx.operation != "CreateFunction"
        ref = parse(name, ctx.account, ctx.region, params.get("Qualifier"), foreign=foreign)
    except Exception:  # a malformed name is the handler's error to report, not authorization's
        return [f"arn:{ctx.partition}:lambda:{ctx.region}:{ctx.account}:function:{name}"]
    return [ref.arn(ref.qualifier)]


def _layer_resource(ctx: RequestContext, params: dict[str, Any]) -> str:
    if ctx.operation == "GetLayerVersionByArn":
        return str(params.get("Arn") or "*")
    name = str(params["LayerName"])
    arn = name if name.startswith("arn:") else f"arn:{ctx.partition}:lambda:{ctx.region}:{ctx.account}:layer:{name}"
    version = params.get("VersionNumber")
    return f"{arn}:{version}" if version is not None and ctx.operation != "PublishLayerVersion" else arn


def _runtimes() -> list[str]:
    """The Runtime enum of Lambda's model (onceflow.awsmodels), for Lambda's 'must satisfy enum value set'
    message, read on first use."""
    return _Runtimes()  # type: ignore[return-value]


class _Runtimes(Sequence[str]):
    @cached_property
    def names(self) -> list[str]:
        from onceflow.awsmodels import files

        return list(files.default().load_service_model("lambda")["shapes"]["Runtime"]["enum"])

    def __getitem__(self, index: Any) -> Any:
        return self.names[index]

    def __len__(self) -> int:
        return len(self.names)
