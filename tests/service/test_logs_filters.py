"""Metric filters and subscription filters (issue 22): stored, described, deleted, tested with
the filter-pattern engine; a subscription delivers the matching events to a Lambda function as
the gzipped, base64 DATA_MESSAGE CloudWatch Logs sends."""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError
from calls import refused, unique

ACCOUNT = "000000000000"
TRANSFORM = [{"metricName": "Errors", "metricNamespace": "App", "metricValue": "1"}]
HANDLER = '''
import base64, gzip, json

def handler(event, context):
    data = json.loads(gzip.decompress(base64.b64decode(event["awslogs"]["data"])))
    print("DELIVERED " + json.dumps(data))
'''
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}





def test_metric_filters(logs: Any) -> None:
    group = unique("/app/metrics")
    logs.create_log_group(logGroupName=group)
    logs.put_metric_filter(logGroupName=group, filterName="errors", filterPattern="ERROR",
                           metricTransformations=TRANSFORM)
    logs.put_metric_filter(logGroupName=group, filterName="slow", filterPattern="{ $.ms > 100 }",
                           metricTransformations=[{**TRANSFORM[0], "metricName": "Slow"}])
    found = logs.describe_metric_filters(logGroupName=group)["metricFilters"]
    assert [(f["filterName"], f["filterPattern"], f["logGroupName"]) for f in found] == [
        ("errors", "ERROR", group), ("slow", "{ $.ms > 100 }", group)]
    assert found[0]["metricTransformations"] == TRANSFORM
    described = logs.describe_log_groups(logGroupNamePrefix=group)["logGroups"]
    assert [g["metricFilterCount"] for g in described] == [2]
    assert [g["metricFilterCount"] for g in logs.describe_log_groups(logGroupNamePattern=group[1:])["logGroups"]] == [2]
    assert [f["filterName"] for f in logs.describe_metric_filters(logGroupName=group, metricName="Slow")[
        "metricFilters"]] == ["slow"]
    assert [f["filterName"] for f in logs.describe_metric_filters(logGroupName=group, filterNamePrefix="err")[
        "metricFilters"]] == ["errors"]
    assert refused(logs.put_metric_filter, logGroupName=group, filterName="bad", filterPattern="{ $.a = }",
                   metricTransformations=TRANSFORM)[0] == "InvalidParameterException"
    assert refused(logs.put_metric_filter, logGroupName=unique("/none"), filterName="x", filterPattern="",
                   metricTransformations=TRANSFORM)[0] == "ResourceNotFoundException"
    logs.delete_metric_filter(logGroupName=group, filterName="errors")
    assert [f["filterName"] for f in logs.describe_metric_filters(logGroupName=group)["metricFilters"]] == ["slow"]
    assert refused(logs.delete_metric_filter, logGroupName=group, filterName="errors") == (
        "ResourceNotFoundException", "The specified metric filter does not exist.")

    tested = logs.test_metric_filter(filterPattern="ERROR -timeout",
                                     logEventMessages=["ERROR disk", "INFO ok", "ERROR timeout"])["matches"]
    assert [(m["eventNumber"], m["eventMessage"]) for m in tested] == [(1, "ERROR disk")]


def subscriber(iam: Any, lam: Any, fn: str) -> str:
    """The ARN of a new function `fn` running HANDLER (what the subscriptions deliver to)."""
    role = iam.create_role(RoleName=fn, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", HANDLER)
    arn: str = lam.create_function(FunctionName=fn, Runtime="python3.12", Role=role, Handler="app.handler",
                                   Code={"ZipFile": buf.getvalue()})["FunctionArn"]
    return arn


def test_subscription_filter_delivers_matching_events_to_lambda(aws: Callable[..., Any], logs: Any) -> None:
    iam, lam = aws("iam"), aws("lambda")
    fn = unique("sub")
    arn = subscriber(iam, lam, fn)
    group, stream = unique("/app/sub"), "s1"
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    # CloudWatch Logs may invoke only a function whose resource policy lets it (AWS's refusal otherwise).
    assert refused(logs.put_subscription_filter, logGroupName=group, filterName="errors", filterPattern="ERROR",
                   destinationArn=arn) == ("InvalidParameterException", "Could not execute the lambda function. Make "
                                           "sure you have given CloudWatch Logs permission to execute your function.")
    lam.add_permission(FunctionName=fn, StatementId="other-group", Action="lambda:InvokeFunction",
                       Principal="logs.amazonaws.com", SourceArn=f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:x:*")
    assert refused(logs.put_subscription_filter, logGroupName=group, filterName="errors", filterPattern="ERROR",
                   destinationArn=arn)[0] == "InvalidParameterException"
    assert refused(logs.put_subscription_filter, logGroupName=unique("/none"), filterName="errors",
                   filterPattern="", destinationArn=arn)[0] == "ResourceNotFoundException"
    lam.add_permission(FunctionName=fn, StatementId="logs", Action="lambda:InvokeFunction",
                       Principal="logs.amazonaws.com", SourceAccount=ACCOUNT,
                       SourceArn=f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:{group}:*")
    assert logs.describe_subscription_filters(logGroupName=group)["subscriptionFilters"] == []
    logs.put_subscription_filter(logGroupName=group, filterName="errors", filterPattern="ERROR", destinationArn=arn)
    described = logs.describe_subscription_filters(logGroupName=group)["subscriptionFilters"]
    assert [(f["filterName"], f["destinationArn"], f["distribution"], f["applyOnTransformedLogs"])
            for f in described] == [("errors", arn, "ByLogStream", False)]
    logs.put_subscription_filter(logGroupName=group, filterName="second", filterPattern="", destinationArn=arn)
    assert refused(logs.put_subscription_filter, logGroupName=group, filterName="third", filterPattern="",
                   destinationArn=arn) == ("LimitExceededException", "Resource limit exceeded.")
    logs.delete_subscription_filter(logGroupName=group, filterName="second")

    now = int(time.time() * 1000)
    logs.put_log_events(logGroupName=group, logStreamName=stream, logEvents=[
        {"timestamp": now, "message": "ERROR one"}, {"timestamp": now + 1, "message": "INFO two"},
        {"timestamp": now + 2, "message": "ERROR three"}])
    delivered = None
    deadline = time.monotonic() + 60
    while delivered is None and time.monotonic() < deadline:
        try:
            events = logs.filter_log_events(logGroupName=f"/aws/lambda/{fn}", filterPattern="DELIVERED")["events"]
        except ClientError:  # the function's group appears with its first log line
            events = []
        if events:
            delivered = json.loads(events[0]["message"].split("DELIVERED ", 1)[1])
        else:
            time.sleep(0.2)
    assert delivered is not None, "the subscription's function never ran"
    assert (delivered["messageType"], delivered["owner"], delivered["logGroup"], delivered["logStream"]) == (
        "DATA_MESSAGE", ACCOUNT, group, stream)
    assert delivered["subscriptionFilters"] == ["errors"]
    assert [(e["timestamp"], e["message"]) for e in delivered["logEvents"]] == [(now, "ERROR one"),
                                                                                (now + 2, "ERROR three")]
    logs.delete_subscription_filter(logGroupName=group, filterName="errors")
    assert logs.describe_subscription_filters(logGroupName=group)["subscriptionFilters"] == []


def test_account_level_subscription_filter_policy_delivers_to_lambda(aws: Callable[..., Any], logs: Any) -> None:
    iam, lam = aws("iam"), aws("lambda")
    fn = unique("acctsub")
    arn = subscriber(iam, lam, fn)
    name = unique("feed")
    doc = json.dumps({"DestinationArn": arn, "FilterPattern": "AUDIT"})
    # The function's own group is left out, as AWS advises against log recursion.
    criteria = f'LogGroupName NOT IN ["/aws/lambda/{fn}"]'
    assert refused(logs.put_account_policy, policyName=name, policyType="SUBSCRIPTION_FILTER_POLICY",
                   policyDocument=doc, selectionCriteria=criteria)[0] == "InvalidParameterException"  # no permission
    lam.add_permission(FunctionName=fn, StatementId="logs", Action="lambda:InvokeFunction",
                       Principal="logs.amazonaws.com", SourceAccount=ACCOUNT,
                       SourceArn=f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:*")
    for bad_doc, bad_criteria in ((json.dumps({"FilterPattern": ""}), criteria),
                                  (json.dumps({"DestinationArn": arn, "FilterPattern": "{ $.a = }"}), criteria),
                                  (doc, "LogGroupNamePrefix IN [\"x\"]")):
        assert refused(logs.put_account_policy, policyName=name, policyType="SUBSCRIPTION_FILTER_POLICY",
                       policyDocument=bad_doc, selectionCriteria=bad_criteria)[0] == "InvalidParameterException"
    logs.put_account_policy(policyName=name, policyType="SUBSCRIPTION_FILTER_POLICY", policyDocument=doc,
                            selectionCriteria=criteria)
    try:
        group, left_out = unique("/app/acct"), unique("/app/acct-out")
        for g in (group, left_out):
            logs.create_log_group(logGroupName=g)
            logs.create_log_stream(logGroupName=g, logStreamName="s")
        logs.put_account_policy(policyName=name, policyType="SUBSCRIPTION_FILTER_POLICY", policyDocument=doc,
                                selectionCriteria=f'LogGroupName NOT IN ["/aws/lambda/{fn}", "{left_out}"]')
        now = int(time.time() * 1000)
        logs.put_log_events(logGroupName=left_out, logStreamName="s", logEvents=[
            {"timestamp": now, "message": "AUDIT not sent"}])
        logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[
            {"timestamp": now, "message": "AUDIT one"}, {"timestamp": now + 1, "message": "INFO two"}])
        delivered: list[dict[str, Any]] = []
        deadline = time.monotonic() + 60
        while not delivered and time.monotonic() < deadline:
            try:
                events = logs.filter_log_events(logGroupName=f"/aws/lambda/{fn}", filterPattern="DELIVERED")["events"]
            except ClientError:
                events = []
            delivered = [json.loads(e["message"].split("DELIVERED ", 1)[1]) for e in events]
            if not delivered:
                time.sleep(0.2)
        # (Which groups a policy leaves out is tested without waiting in tests/unit/logs/test_logs_subscriptions.py.)
        assert [(d["logGroup"], d["subscriptionFilters"], [e["message"] for e in d["logEvents"]])
                for d in delivered] == [(group, [name], ["AUDIT one"])]
        assert delivered[0]["policyLevel"] == "ACCOUNT_LEVEL_POLICY"
    finally:
        logs.delete_account_policy(policyName=name, policyType="SUBSCRIPTION_FILTER_POLICY")


def test_subscription_destination_rules_come_first_and_filters_describe_their_options(logs: Any) -> None:
    # AWS's recorded answers: another account's function is refused even for a group that does not exist.
    other = "arn:aws:lambda:us-east-1:123456789012:function:test"
    assert refused(logs.put_subscription_filter, logGroupName=unique("/none"), filterName="f", filterPattern="",
                   destinationArn=other) == (
        "AccessDeniedException", "Cross-account lambda invocation passing is not allowed. You must use "
        "DestinationPolicies to create cross account lambda triggers.")
    group = unique("/app/opts")
    logs.create_log_group(logGroupName=group)
    assert refused(logs.put_subscription_filter, logGroupName=group, filterName="f", filterPattern="",
                   destinationArn=f"arn:aws:kinesis:us-east-1:{ACCOUNT}:stream/unknown-stream") == (
        "InvalidParameterException", "destinationArn for vendor kinesis cannot be used without roleArn")
    logs.put_metric_filter(logGroupName=group, filterName="m", filterPattern=" ", metricTransformations=TRANSFORM)
    logs.put_metric_filter(logGroupName=group, filterName="t", filterPattern="", metricTransformations=TRANSFORM,
                           applyOnTransformedLogs=True)
    described = logs.describe_metric_filters(logGroupName=group)["metricFilters"]
    assert [(f["filterName"], f["filterPattern"], f["applyOnTransformedLogs"]) for f in described] == [
        ("m", " ", False), ("t", "", True)]
