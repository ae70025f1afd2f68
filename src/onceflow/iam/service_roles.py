"""Service-linked roles: roles an AWS service owns, under /aws-service-role/<service>/, trusting
only that service. Deletion is a task IAM reports on; here it completes at once."""

from __future__ import annotations

import json
import uuid
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.iam import errors
from onceflow.iam.api import Out, role_out
from onceflow.iam.service import IamService
from onceflow.registry import operation

# The role names AWS gives some services' linked roles (AWSServiceRoleFor<suffix>); others take
# their service label with its first letter upper-cased (an UNCONFIRMED rule for the rest).
NAMES = {
    "autoscaling.amazonaws.com": "AutoScaling",
    "ecs.amazonaws.com": "ECS",
    "elasticbeanstalk.amazonaws.com": "ElasticBeanstalk",
    "elasticloadbalancing.amazonaws.com": "ElasticLoadBalancing",
    "rds.amazonaws.com": "RDS",
    "replication.dynamodb.amazonaws.com": "DynamoDBReplication",
    "replicator.lambda.amazonaws.com": "LambdaReplicator",
    "organizations.amazonaws.com": "Organizations",
    "spot.amazonaws.com": "EC2Spot",
    "eks.amazonaws.com": "AmazonEKS",
    # Application Auto Scaling's guide, "Custom resources and Application Auto Scaling"
    "custom-resource.application-autoscaling.amazonaws.com": "ApplicationAutoScaling_CustomResource",
}
PREFIX = "/aws-service-role/"


def role_name(service: str, suffix: str | None) -> str:
    label = NAMES.get(service) or service.split(".", 1)[0][:1].upper() + service.split(".", 1)[0][1:]
    name = f"AWSServiceRoleFor{label}"
    return f"{name}_{suffix}" if suffix else name


class ServiceLinkedRolesApi:
    def __init__(self, service: IamService) -> None:
        self.service = service
        self._tasks: dict[str, str] = {}  # deletion task id -> status (deletions finish at once)

    @operation("CreateServiceLinkedRole")
    def create_service_linked_role(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        service = params["AWSServiceName"]
        if not service.endswith(".amazonaws.com"):
            raise errors.invalid_service_name(service)
        name = role_name(service, params.get("CustomSuffix"))
        if self.service.store.role(ctx.account, name) is not None:
            raise errors.invalid_input(
                f"Service role name {name} has been taken in this account, please try a different suffix."
            )
        trust = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"Service": [service]}, "Action": ["sts:AssumeRole"]}]}
        role = self.service.create_role(ctx.account, {
            "RoleName": name,
            "Path": f"{PREFIX}{service}/",
            "AssumeRolePolicyDocument": json.dumps(trust),
            **({"Description": params["Description"]} if "Description" in params else {}),
        }, partition(ctx.region))
        return {"Role": role_out(role, "get")}

    @operation("DeleteServiceLinkedRole")
    def delete_service_linked_role(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        role = self.service.role(ctx.account, params["RoleName"])
        if not role["path"].startswith(PREFIX):
            raise errors.not_service_linked(role["name"])
        self.service.delete_role(ctx.account, role["name"])
        task = f"task{role['path']}{role['name']}/{uuid.uuid4()}"
        self._tasks[task] = "SUCCEEDED"
        return {"DeletionTaskId": task}

    @operation("GetServiceLinkedRoleDeletionStatus")
    def get_service_linked_role_deletion_status(self, ctx: RequestContext, params: dict[str, Any]) -> Out:
        status = self._tasks.get(params["DeletionTaskId"])
        if status is None:
            raise errors.deletion_task_not_found(params["DeletionTaskId"])
        return {"Status": status}
