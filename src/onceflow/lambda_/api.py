"""Lambda operations: parsed REST-JSON requests in, output shapes out (see CONTRACTS.md)."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.lambda_ import cross_account, streaming
from onceflow.lambda_.account import AccountService
from onceflow.lambda_.aliases import Aliases
from onceflow.lambda_.async_config import InvokeConfigs
from onceflow.lambda_.capacity_providers import CapacityProviders
from onceflow.lambda_.function_settings import FunctionSettings
from onceflow.lambda_.invoke import Invoker
from onceflow.lambda_.permissions import Permissions
from onceflow.lambda_.service import LambdaService
from onceflow.lambda_.urls import FunctionUrls
from onceflow.registry import operation


class LambdaApi:
    def __init__(self, service: LambdaService, invoker: Invoker, account: AccountService, urls: FunctionUrls) -> None:
        self.service = service
        self.invoker = invoker
        self.account = account
        self.permissions = Permissions(service)
        self.invoke_configs = invoker.async_configs = InvokeConfigs(service)
        self.urls = urls
        self.settings = FunctionSettings(service, invoker.provision, invoker.provision_soon, invoker.provisioned_status)
        self.aliases = Aliases(service)
        self.capacity: CapacityProviders = service.capacity_providers

    # ------------------------------------------------------------------ functions
    @operation("CreateFunction")
    def create_function(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.create_function(ctx, params)

    @operation("GetFunction")
    def get_function(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.get_function(ctx, params["FunctionName"], params.get("Qualifier"))

    @operation("GetFunctionConfiguration")
    def get_function_configuration(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.get_configuration(ctx, params["FunctionName"], params.get("Qualifier"))

    @operation("ListFunctions")
    def list_functions(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.list_functions(
            ctx, params.get("Marker"), params.get("MaxItems"), params.get("FunctionVersion")
        )

    @operation("UpdateFunctionCode")
    def update_function_code(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.update_code(ctx, params)

    @operation("UpdateFunctionConfiguration")
    def update_function_configuration(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.update_configuration(ctx, params)

    @operation("DeleteFunction")
    def delete_function(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        self.service.delete_function(ctx, params["FunctionName"], params.get("Qualifier"))
        return {"StatusCode": 204}  # the model says 200; AWS answers 204

    # ------------------------------------------------------------------ invoke
    @operation("Invoke")
    def invoke(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        """Also what Step Functions calls through internal.call (Payload as bytes both ways)."""
        return self.invoker.invoke(
            cross_account.owner(ctx, params["FunctionName"]),  # another account's, where its policy granted it
            ctx.region,
            params["FunctionName"],
            params.get("Payload"),
            invocation_type=params.get("InvocationType"),
            qualifier=params.get("Qualifier"),
            log_type=params.get("LogType"),
            client_context=params.get("ClientContext"),
            request_id=ctx.request_id,
            caller_key=ctx.principal.access_key,
            execution_name=params.get("DurableExecutionName"),
        )

    @operation("InvokeWithResponseStream")
    def invoke_with_response_stream(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        """Invoke, its answer as an event stream (streaming.py)."""
        kind = params.get("InvocationType") or "RequestResponse"
        out = self.invoker.invoke(
            cross_account.owner(ctx, params["FunctionName"]), ctx.region, params["FunctionName"],
            params.get("Payload"), invocation_type=kind,
            qualifier=params.get("Qualifier"), log_type=params.get("LogType"),
            client_context=params.get("ClientContext"), request_id=ctx.request_id,
            caller_key=ctx.principal.access_key,
        )  # fmt: skip
        if kind == "DryRun":
            return {"StatusCode": 204}
        return {"StatusCode": 200, "ExecutedVersion": out.get("ExecutedVersion"),
                "EventStream": streaming.response_stream(out)}  # fmt: skip

    @operation("InvokeAsync")
    def invoke_async(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        """The deprecated asynchronous Invoke: an Event invocation, answered 202 {"Status": 202}."""
        self.invoker.invoke(ctx.account, ctx.region, params["FunctionName"], params.get("InvokeArgs"),
                            invocation_type="Event", request_id=ctx.request_id,
                            caller_key=ctx.principal.access_key)  # fmt: skip
        return {"Status": 202}

    # ------------------------------------------------------------------ versions and aliases
    @operation("PublishVersion")
    def publish_version(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.publish_version(ctx, params)

    @operation("ListVersionsByFunction")
    def list_versions_by_function(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.list_versions(ctx, params["FunctionName"], params.get("Marker"), params.get("MaxItems"))

    @operation("CreateAlias")
    def create_alias(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.aliases.create(ctx, params)

    @operation("GetAlias")
    def get_alias(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.aliases.get(ctx, params["FunctionName"], params["Name"])

    @operation("UpdateAlias")
    def update_alias(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.aliases.update(ctx, params)

    @operation("DeleteAlias")
    def delete_alias(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.aliases.delete(ctx, params["FunctionName"], params["Name"])

    @operation("ListAliases")
    def list_aliases(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.aliases.list(ctx, params)

    # ------------------------------------------------------------------ concurrency
    @operation("PutFunctionConcurrency")
    def put_function_concurrency(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.put_concurrency(ctx, params["FunctionName"], params["ReservedConcurrentExecutions"])

    @operation("GetFunctionConcurrency")
    def get_function_concurrency(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.get_concurrency(ctx, params["FunctionName"])

    @operation("DeleteFunctionConcurrency")
    def delete_function_concurrency(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.delete_concurrency(ctx, params["FunctionName"])

    # ------------------------------------------------------------------ resource policies
    @operation("AddPermission")
    def add_permission(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.permissions.add(ctx, params)

    @operation("RemovePermission")
    def remove_permission(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.permissions.remove(ctx, params)

    @operation("GetPolicy")
    def get_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.permissions.get(ctx, params)

    @operation("PutResourcePolicy")
    def put_resource_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.permissions.put_document(ctx, params)

    @operation("GetResourcePolicy")
    def get_resource_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.permissions.get_document(ctx, params)

    @operation("DeleteResourcePolicy")
    def delete_resource_policy(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.permissions.delete_document(ctx, params)

    # ------------------------------------------------------------------ asynchronous invocation
    @operation("PutFunctionEventInvokeConfig")
    def put_function_event_invoke_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.invoke_configs.put(ctx, params, merge=False)

    @operation("UpdateFunctionEventInvokeConfig")
    def update_function_event_invoke_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.invoke_configs.put(ctx, params, merge=True)

    @operation("GetFunctionEventInvokeConfig")
    def get_function_event_invoke_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.invoke_configs.get(ctx, params)

    @operation("DeleteFunctionEventInvokeConfig")
    def delete_function_event_invoke_config(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.invoke_configs.delete(ctx, params)

    @operation("ListFunctionEventInvokeConfigs")
    def list_function_event_invoke_configs(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.invoke_configs.list(ctx, params)

    # ------------------------------------------------------------------ function URLs
    @operation("CreateFunctionUrlConfig")
    def create_function_url_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.urls.create(ctx, params)

    @operation("GetFunctionUrlConfig")
    def get_function_url_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.urls.get(ctx, params)

    @operation("UpdateFunctionUrlConfig")
    def update_function_url_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.urls.update(ctx, params)

    @operation("DeleteFunctionUrlConfig")
    def delete_function_url_config(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.urls.delete(ctx, params)

    @operation("ListFunctionUrlConfigs")
    def list_function_url_configs(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.urls.list(ctx, params)

    # ------------------------------------------------------------------ layers
    @operation("PublishLayerVersion")
    def publish_layer_version(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.layers.publish(ctx, params)

    @operation("GetLayerVersion")
    def get_layer_version(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.layers.get(ctx, params["LayerName"], params["VersionNumber"])

    @operation("GetLayerVersionByArn")
    def get_layer_version_by_arn(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.layers.get_by_arn(ctx, params["Arn"])

    @operation("DeleteLayerVersion")
    def delete_layer_version(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.layers.delete(ctx, params["LayerName"], params["VersionNumber"])

    @operation("ListLayerVersions")
    def list_layer_versions(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.layers.list_versions(ctx, params)

    @operation("AddLayerVersionPermission")
    def add_layer_version_permission(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.layers.add_permission(ctx, params)

    @operation("RemoveLayerVersionPermission")
    def remove_layer_version_permission(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.layers.remove_permission(ctx, params)

    @operation("GetLayerVersionPolicy")
    def get_layer_version_policy(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.layers.get_policy(ctx, params)

    @operation("ListLayers")
    def list_layers(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.layers.list_layers(ctx, params)

    # ------------------------------------------------------------------ code signing configs
    @operation("CreateCodeSigningConfig")
    def create_code_signing_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.code_signing.create(ctx, params)

    @operation("GetCodeSigningConfig")
    def get_code_signing_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.code_signing.get(ctx, params)

    @operation("UpdateCodeSigningConfig")
    def update_code_signing_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.code_signing.update(ctx, params)

    @operation("DeleteCodeSigningConfig")
    def delete_code_signing_config(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.code_signing.delete(ctx, params)

    @operation("ListCodeSigningConfigs")
    def list_code_signing_configs(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.code_signing.list(ctx, params)

    @operation("ListFunctionsByCodeSigningConfig")
    def list_functions_by_code_signing_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.code_signing.functions(ctx, params)

    @operation("PutFunctionCodeSigningConfig")
    def put_function_code_signing_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.code_signing.put_function(ctx, params)

    @operation("GetFunctionCodeSigningConfig")
    def get_function_code_signing_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.service.code_signing.get_function(ctx, params)

    @operation("DeleteFunctionCodeSigningConfig")
    def delete_function_code_signing_config(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.service.code_signing.delete_function(ctx, params)

    # ------------------------------------------------------------------ provisioned concurrency, runtime, recursion
    @operation("PutProvisionedConcurrencyConfig")
    def put_provisioned_concurrency_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.put_provisioned(ctx, params)

    @operation("GetProvisionedConcurrencyConfig")
    def get_provisioned_concurrency_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.get_provisioned(ctx, params)

    @operation("DeleteProvisionedConcurrencyConfig")
    def delete_provisioned_concurrency_config(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        self.settings.delete_provisioned(ctx, params)

    @operation("ListProvisionedConcurrencyConfigs")
    def list_provisioned_concurrency_configs(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.list_provisioned(ctx, params)

    @operation("GetRuntimeManagementConfig")
    def get_runtime_management_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.get_runtime_management(ctx, params)

    @operation("PutRuntimeManagementConfig")
    def put_runtime_management_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.put_runtime_management(ctx, params)

    @operation("GetFunctionRecursionConfig")
    def get_function_recursion_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.get_recursion(ctx, params)

    @operation("PutFunctionRecursionConfig")
    def put_function_recursion_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.put_recursion(ctx, params)

    @operation("GetFunctionScalingConfig")
    def get_function_scaling_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.get_scaling(ctx, params)

    @operation("PutFunctionScalingConfig")
    def put_function_scaling_config(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.settings.put_scaling(ctx, params)

    # ------------------------------------------------------------------ capacity providers
    @operation("CreateCapacityProvider")
    def create_capacity_provider(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.capacity.create(ctx, params)

    @operation("GetCapacityProvider")
    def get_capacity_provider(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.capacity.get(ctx, params)

    @operation("UpdateCapacityProvider")
    def update_capacity_provider(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.capacity.update(ctx, params)

    @operation("DeleteCapacityProvider")
    def delete_capacity_provider(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.capacity.delete(ctx, params)

    @operation("ListCapacityProviders")
    def list_capacity_providers(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.capacity.list(ctx, params)

    @operation("ListFunctionVersionsByCapacityProvider")
    def list_function_versions_by_capacity_provider(self, ctx: RequestContext, params: dict[str, Any]) -> dict:
        return self.capacity.function_versions(ctx, params)

    # ------------------------------------------------------------------ tags and account
    @operation("TagResource")
    def tag_resource(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        if self.service.code_signing.names(params["Resource"]):
            self.service.code_signing.tag(params["Resource"], new=params["Tags"])
        elif self.capacity.names(params["Resource"]):
            self.capacity.tag(ctx, params["Resource"], new=params["Tags"])
        else:
            self.account.tag(ctx, params["Resource"], params["Tags"])

    @operation("UntagResource")
    def untag_resource(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        if self.service.code_signing.names(params["Resource"]):
            self.service.code_signing.tag(params["Resource"], removed=params["TagKeys"])
        elif self.capacity.names(params["Resource"]):
            self.capacity.tag(ctx, params["Resource"], removed=params["TagKeys"])
        else:
            self.account.untag(ctx, params["Resource"], params["TagKeys"])

    @operation("ListTags")
    def list_tags(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        if self.service.code_signing.names(params["Resource"]):
            return self.service.code_signing.list_tags(params["Resource"])
        if self.capacity.names(params["Resource"]):
            return self.capacity.list_tags(ctx, params["Resource"])
        return self.account.list_tags(ctx, params["Resource"])

    @operation("GetAccountSettings")
    def get_account_settings(self, ctx: RequestContext, params: dict[str, Any]) -> dict[str, Any]:
        return self.account.settings(ctx)

    # ------------------------------------------------------------------ for other services
    def may_invoke(
        self,
        account: str,
        function: str,
        principal: str,
        source_arn: str | None = None,
        source_account: str | None = None,
        region: str | None = None,
    ) -> bool | None:
        """Whether the function's resource policy (AddPermission) lets a service principal such as
        "sns.amazonaws.com" invoke it for an event from `source_arn` (SNS, EventBridge and S3
        check this before they invoke, as Lambda does on AWS). `function`: a name (then `region`,
        default us-east-1) or an ARN, qualified or not. None: no such function."""
        return self.permissions.may_invoke(account, function, principal, source_arn, source_account, region)
