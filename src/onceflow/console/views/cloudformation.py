"""CloudFormation: the stacks of the account and region, and one stack with its resources (each
linked to its own console page where onceflow has one), outputs, parameters and events. All
through the CloudFormation API, as `aws cloudformation describe-*` shows them."""

from __future__ import annotations

from urllib.parse import quote

from onceflow.console.app import HttpError, Response, View
from onceflow.console.aws import NotFound
from onceflow.errors import ServiceError

EVENTS_SHOWN = 200


def stacks(v: View) -> Response:
    found = v.optional(lambda: v.aws.all("cloudformation", "ListStacks", {}, "StackSummaries",
                                         token="NextToken", limit=500), []) or []
    live = [s for s in found if s["StackStatus"] != "DELETE_COMPLETE"]
    return v.page("stacks.html", title="CloudFormation stacks", stacks=live,
                  deleted=len(found) - len(live))


def stack(v: View) -> Response:
    name = v.match["name"]
    try:
        described = v.aws.call("cloudformation", "DescribeStacks", {"StackName": name})["Stacks"][0]
    except (NotFound, ServiceError):  # CloudFormation answers a missing stack with a ValidationError
        raise HttpError(404, "No such stack", f"There is no stack {name} in {v.account} {v.region}.") from None
    resources = v.aws.call("cloudformation", "DescribeStackResources", {"StackName": name})["StackResources"]
    events = v.aws.all("cloudformation", "DescribeStackEvents", {"StackName": name}, "StackEvents",
                       token="NextToken", limit=EVENTS_SHOWN)
    rows = [{**r, "link": resource_link(v, r["ResourceType"], r.get("PhysicalResourceId") or "")}
            for r in resources]
    return v.page("stack.html", title=described["StackName"], stack=described, resources=rows, events=events,
                  events_cut=len(events) >= EVENTS_SHOWN)


def resource_link(v: View, kind: str, physical: str) -> str:
    """The console page of a stack's resource, or '' where onceflow's console has none."""
    if not physical:
        return ""
    seg = quote(physical.rstrip("/").rsplit("/", 1)[-1] if "/" in physical else physical, safe="")
    if kind == "AWS::StepFunctions::StateMachine":
        return v.url("/states/" + quote(physical.rsplit(":", 1)[-1], safe=""))
    if kind == "AWS::DynamoDB::Table":
        return v.url("/dynamodb/" + seg)
    if kind == "AWS::Lambda::Function":
        return v.url("/lambda/" + quote(physical.rsplit(":", 1)[-1], safe=""))
    if kind == "AWS::IAM::Role":
        return v.url("/iam/roles/" + seg)
    if kind == "AWS::Logs::LogGroup":
        return v.url("/logs/group", name=physical)
    if kind == "AWS::SQS::Queue":
        return v.url("/sqs/" + seg)
    if kind == "AWS::SNS::Topic":
        return v.url("/sns/topic", arn=physical)
    if kind == "AWS::S3::Bucket":
        return v.url("/s3/" + seg)
    if kind == "AWS::Events::Rule":  # "bus|rule" for a rule on a bus of its own, as CloudFormation names it
        bus, _, rule = physical.rpartition("|")
        return v.url("/events/rules/" + quote(rule, safe=""), bus=bus.rsplit("/", 1)[-1] or "default")
    if kind in ("AWS::StepFunctions::StateMachineVersion", "AWS::StepFunctions::StateMachineAlias"):
        return v.url("/states/" + quote(physical.split(":")[6], safe=""))  # the machine's page
    if kind == "AWS::CloudFormation::Stack":
        return v.url("/cloudformation/" + quote(physical.split("/")[1] if physical.startswith("arn:") else
                                                physical, safe=""))
    return ""

