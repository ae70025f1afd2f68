"""logs: CloudWatch Logs. See setup() for how the service is built and registered."""

from __future__ import annotations

import json
from typing import Any

from onceflow import internal
from onceflow.context import Principal
from onceflow.logs.api import LogsApi, resolve_resources, unmask_requests
from onceflow.logs.deliveries import DeliveriesApi
from onceflow.logs.destinations import DestinationsApi
from onceflow.logs.exports import ExportsApi
from onceflow.logs.filters import LogFilters
from onceflow.logs.filters_api import FiltersApi
from onceflow.logs.index_policies import IndexPoliciesApi, index_names
from onceflow.logs.insights.api import InsightsApi
from onceflow.logs.insights.service import Insights, query_unmasks
from onceflow.logs.insights.store import MIGRATIONS as INSIGHTS_MIGRATIONS
from onceflow.logs.policies import PoliciesApi
from onceflow.logs.resource_policies import MIGRATIONS as POLICY_MIGRATIONS
from onceflow.logs.resource_policies import ResourcePoliciesApi
from onceflow.logs.service import LogsService, group_arn
from onceflow.logs.store import MIGRATIONS
from onceflow.stack import Stack


def setup(stack: Stack) -> None:
    """Build this service's store, service and API objects and register them on the stack."""
    stack.db.migrate(MIGRATIONS + INSIGHTS_MIGRATIONS + POLICY_MIGRATIONS)
    service = LogsService(stack.db)
    insights = Insights(stack.db, service)
    filters = LogFilters(service)

    def invoke(account: str, region: str, function_arn: str, payload: dict[str, Any]) -> None:
        # CloudWatch Logs invokes a subscription's function asynchronously, as the service itself.
        logs = Principal(account, "service", "logs.amazonaws.com", "logs.amazonaws.com")
        params = {"FunctionName": function_arn, "InvocationType": "Event", "Payload": json.dumps(payload).encode()}
        internal.call(stack, logs, "lambda", "Invoke", params, region=region)

    def may_invoke(account: str, region: str, function_arn: str, group: str) -> bool | None:
        functions = stack.ports.functions.get()
        if functions is None:
            return None
        return functions.may_invoke(account, function_arn, "logs.amazonaws.com",
                                    source_arn=f"{group_arn(region, account, group)}:*", source_account=account,
                                    region=region)

    filters.invoke = invoke
    filters.may_invoke = may_invoke
    service.on_events = filters.deliver
    service.index_names = index_names
    stack.registry.add_api("logs", LogsApi(service))
    stack.registry.add_api("logs", FiltersApi(filters))
    stack.registry.add_api("logs", InsightsApi(insights))
    stack.registry.add_api("logs", ResourcePoliciesApi(stack.db, service))
    stack.registry.add_api("logs", DeliveriesApi(stack.db, service.clock))
    stack.registry.add_api("logs", DestinationsApi(stack.db, service.clock))
    stack.registry.add_api("logs", PoliciesApi(stack.db, service, service.clock, filters))
    stack.registry.add_api("logs", IndexPoliciesApi(stack.db, service, service.clock))
    stack.registry.add_api("logs", ExportsApi(stack.db, service.clock, stack.ports.objects,
                                              lambda ctx, params: stack.authorize(ctx, params)))
    stack.services["logs"] = service
    stack.resource_resolvers["logs"] = resolve_resources(service)
    stack.action_resolvers["logs"] = unmask_requests(resolve_resources(service), query_unmasks)
    stack.on_shutdown.append(filters.shutdown)
    stack.on_reset.append(filters.forget_subscriptions)
    stack.on_reset.append(insights.forget)
    stack.on_shutdown.append(insights.shutdown)
    stack.on_start.append(insights.resume)
