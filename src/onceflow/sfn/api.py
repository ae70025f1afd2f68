"""Step Functions operations (JSON 1.0): parsed request members in, output members out."""

from __future__ import annotations

from typing import Any

from onceflow.context import RequestContext
from onceflow.registry import operation
from onceflow.sfn.service import SfnService

Params = dict[str, Any]


class SfnApi:
    def __init__(self, service: SfnService) -> None:
        self.service = service

    # ------------------------------------------------------------------ state machines
    @operation("CreateStateMachine")
    def create_state_machine(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.create_machine(ctx, p)

    @operation("DescribeStateMachine")
    def describe_state_machine(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.describe_machine(p["stateMachineArn"])

    @operation("UpdateStateMachine")
    def update_state_machine(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.update_machine(ctx, p)

    @operation("DeleteStateMachine")
    def delete_state_machine(self, ctx: RequestContext, p: Params) -> None:
        self.service.delete_machine(p["stateMachineArn"])

    @operation("ListStateMachines")
    def list_state_machines(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.list_machines(ctx, p.get("maxResults"), p.get("nextToken"))

    @operation("ValidateStateMachineDefinition")
    def validate_state_machine_definition(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.validate_definition(p["definition"], p.get("type", "STANDARD"), p.get("maxResults") or 100,
                                                p.get("severity") or "ERROR")

    # ------------------------------------------------------------------ versions and aliases
    @operation("PublishStateMachineVersion")
    def publish_state_machine_version(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.versions.publish_version(p)

    @operation("ListStateMachineVersions")
    def list_state_machine_versions(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.versions.list_versions(p)

    @operation("DeleteStateMachineVersion")
    def delete_state_machine_version(self, ctx: RequestContext, p: Params) -> Params:
        self.service.versions.delete_version(p)
        return {}

    @operation("CreateStateMachineAlias")
    def create_state_machine_alias(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.versions.create_alias(ctx, p)

    @operation("DescribeStateMachineAlias")
    def describe_state_machine_alias(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.versions.describe_alias(p)

    @operation("UpdateStateMachineAlias")
    def update_state_machine_alias(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.versions.update_alias(p)

    @operation("DeleteStateMachineAlias")
    def delete_state_machine_alias(self, ctx: RequestContext, p: Params) -> Params:
        self.service.versions.delete_alias(p)
        return {}

    @operation("ListStateMachineAliases")
    def list_state_machine_aliases(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.versions.list_aliases(p)

    # ------------------------------------------------------------------ activities
    @operation("CreateActivity")
    def create_activity(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.activities.create(ctx, p)

    @operation("DescribeActivity")
    def describe_activity(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.activities.describe(p["activityArn"])

    @operation("DeleteActivity")
    def delete_activity(self, ctx: RequestContext, p: Params) -> Params:
        self.service.activities.delete(p["activityArn"])
        return {}

    @operation("ListActivities")
    def list_activities(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.activities.list(ctx, p)

    @operation("GetActivityTask")
    def get_activity_task(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.activities.get_task(p)

    # ------------------------------------------------------------------ executions
    @operation("StartExecution", commits=True)  # one write transaction: on the loop when the writer is free
    def start_execution(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.start_execution(ctx, p)

    @operation("StartSyncExecution")
    def start_sync_execution(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.start_execution(ctx, p, sync=True)

    @operation("DescribeExecution", inline=True)  # one row read (readers never wait for a writer): on the loop
    def describe_execution(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.describe_execution(p["executionArn"])

    @operation("DescribeStateMachineForExecution")
    def describe_state_machine_for_execution(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.machine_for_execution(p["executionArn"])

    @operation("ListExecutions")
    def list_executions(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.list_executions(p)

    @operation("GetExecutionHistory")
    def get_execution_history(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.history(p)

    @operation("StopExecution")
    def stop_execution(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.stop_execution(p)

    @operation("TestState")
    def test_state(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.test_state(ctx, p)

    @operation("RedriveExecution")
    def redrive_execution(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.redrive(p)

    # ------------------------------------------------------------------ callbacks
    @operation("SendTaskSuccess")
    def send_task_success(self, ctx: RequestContext, p: Params) -> Params:
        self.service.send_task_success(p["taskToken"], p["output"])
        return {}

    @operation("SendTaskFailure")
    def send_task_failure(self, ctx: RequestContext, p: Params) -> Params:
        self.service.send_task_failure(p["taskToken"], p.get("error"), p.get("cause"))
        return {}

    @operation("SendTaskHeartbeat")
    def send_task_heartbeat(self, ctx: RequestContext, p: Params) -> Params:
        self.service.send_task_heartbeat(p["taskToken"])
        return {}

    # ------------------------------------------------------------------ tags
    @operation("TagResource")
    def tag_resource(self, ctx: RequestContext, p: Params) -> Params:
        self.service.tag(p["resourceArn"], p["tags"])
        return {}

    @operation("UntagResource")
    def untag_resource(self, ctx: RequestContext, p: Params) -> Params:
        self.service.untag(p["resourceArn"], p["tagKeys"])
        return {}

    @operation("ListTagsForResource")
    def list_tags_for_resource(self, ctx: RequestContext, p: Params) -> Params:
        return self.service.list_tags(p["resourceArn"])


def resolve_resources(ctx: RequestContext, params: Params) -> list[str]:
    """The ARNs an operation acts on, for IAM (a state machine, an execution, or '*')."""
    for key in ("stateMachineArn", "stateMachineVersionArn", "stateMachineAliasArn"):
        if params.get(key):  # a version or alias is authorized as its machine [AWS]
            return [_unqualified(str(params[key]))]
    for key in ("executionArn", "resourceArn", "activityArn", "mapRunArn"):
        if params.get(key):
            return [params[key]]
    if ctx.operation == "CreateStateMachine" and params.get("name"):
        return [f"arn:{ctx.partition}:states:{ctx.region}:{ctx.account}:stateMachine:{params['name']}"]
    if ctx.operation == "CreateActivity" and params.get("name"):
        return [f"arn:{ctx.partition}:states:{ctx.region}:{ctx.account}:activity:{params['name']}"]
    if ctx.operation == "CreateStateMachineAlias" and params.get("routingConfiguration"):
        return [_unqualified(str(params["routingConfiguration"][0].get("stateMachineVersionArn", "")))]
    return ["*"]


def _unqualified(arn: str) -> str:
    """A stateMachine ARN without its version or alias qualifier (or mocked test case, '#Case')."""
    arn = arn.partition("#")[0]
    parts = arn.split(":")
    return ":".join(parts[:7]) if len(parts) == 8 and parts[5] == "stateMachine" else arn
