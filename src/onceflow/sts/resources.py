"""Which STS resources a call acts on (for authorization): the role assumed, the federated user."""

from __future__ import annotations

from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext


def sts_resolver(ctx: RequestContext, params: dict[str, Any]) -> list[str]:
    if ctx.operation == "AssumeRole":
        return [params["RoleArn"]]
    if ctx.operation == "GetFederationToken":
        return [f"arn:{partition(ctx.region)}:sts::{ctx.account}:federated-user/{params['Name']}"]
    return ["*"]
