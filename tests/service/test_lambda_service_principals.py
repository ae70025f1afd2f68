"""SNS subscriptions and EventBridge rules invoke a function only when its resource policy
(AddPermission) lets the service principal in for that topic or rule, as on AWS; a refused delivery
is a client error: not retried, straight to the dead-letter queue, the function never runs."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

Aws = Callable[..., Any]
CODE = ("import json\ndef handler(event, context):\n"
        "    r = (event.get('Records') or [{}])[0]\n"
        "    print('RAN ' + (r['Sns']['Message'] if 'Sns' in r else json.dumps(event['detail'])))\n")


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def function(aws: Aws) -> tuple[str, str]:
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
        "Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = aws("iam").create_role(RoleName=uid("svcfn"), AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", CODE)
    name = uid("svcfn")
    arn = aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                        Code={"ZipFile": buf.getvalue()})["FunctionArn"]
    return name, arn


def ran(aws: Aws, name: str, count: int, timeout: float = 60) -> list[str]:
    """What the function printed ('RAN ...' lines), once `count` of them are there (or at timeout)."""
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    while True:
        try:
            found = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{name}")["events"]
        except ClientError:  # no log group yet: the function never ran
            found = []
        lines = [e["message"].strip() for e in found if e["message"].startswith("RAN ")]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


def queue(aws: Aws, service: str, source_arn: str) -> tuple[str, str]:
    """A dead-letter queue whose policy lets `service` send to it for `source_arn`."""
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=uid("svcdlq"))["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps({"Statement": [{
        "Effect": "Allow", "Principal": {"Service": service}, "Action": "sqs:SendMessage", "Resource": arn,
        "Condition": {"ArnEquals": {"aws:SourceArn": source_arn}}}]})})
    return url, arn


def dead_letters(aws: Aws, url: str) -> list[dict[str, Any]]:
    got = aws("sqs").receive_message(QueueUrl=url, WaitTimeSeconds=20, MessageAttributeNames=["All"])
    for m in got.get("Messages", []):
        aws("sqs").delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return list(got.get("Messages", []))


def sns_message(dead: dict[str, Any]) -> str:
    """The message a dead letter holds: onceflow keeps the event the function would have had."""
    return str(json.loads(dead["Body"])["Records"][0]["Sns"]["Message"])


def test_sns_invokes_a_function_only_through_its_resource_policy(aws: Aws) -> None:
    sns, lam = aws("sns"), aws("lambda")
    name, fn = function(aws)
    topic = sns.create_topic(Name=uid("svctopic"))["TopicArn"]
    other = sns.create_topic(Name=uid("svcother"))["TopicArn"]
    dlq_url, dlq_arn = queue(aws, "sns.amazonaws.com", topic)
    sns.subscribe(TopicArn=topic, Protocol="lambda", Endpoint=fn,
                  Attributes={"RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn})})
    # No policy at all, then a permission for another topic: the delivery is refused and dead-lettered.
    sns.publish(TopicArn=topic, Message="no policy")
    assert [sns_message(m) for m in dead_letters(aws, dlq_url)] == ["no policy"]
    lam.add_permission(FunctionName=name, StatementId="other", Action="lambda:InvokeFunction",
                       Principal="sns.amazonaws.com", SourceArn=other)
    sns.publish(TopicArn=topic, Message="another topic's permission")
    assert [sns_message(m) for m in dead_letters(aws, dlq_url)] == ["another topic's permission"]
    # With the permission AWS needs (Principal sns.amazonaws.com, SourceArn the topic) it runs.
    lam.add_permission(FunctionName=name, StatementId="sns", Action="lambda:InvokeFunction",
                       Principal="sns.amazonaws.com", SourceArn=topic)
    sns.publish(TopicArn=topic, Message="allowed")
    assert ran(aws, name, 1) == ["RAN allowed"]  # the refused messages never ran (nor were retried into it)


def test_eventbridge_invokes_a_function_only_through_its_resource_policy(aws: Aws) -> None:
    events, lam = aws("events"), aws("lambda")
    name, fn = function(aws)
    source = uid("com.shop")
    rule = uid("svcrule")
    rule_arn = events.put_rule(Name=rule, EventPattern=json.dumps({"source": [source]}))["RuleArn"]
    dlq_url, dlq_arn = queue(aws, "events.amazonaws.com", rule_arn)
    events.put_targets(Rule=rule, Targets=[{"Id": "fn", "Arn": fn, "DeadLetterConfig": {"Arn": dlq_arn}}])

    def put(detail: dict[str, Any]) -> str:
        entry = {"Source": source, "DetailType": "Order Placed", "Detail": json.dumps(detail)}
        return str(events.put_events(Entries=[entry])["Entries"][0]["EventId"])

    event_id = put({"n": 1})
    dead = dead_letters(aws, dlq_url)
    assert [json.loads(m["Body"])["id"] for m in dead] == [event_id]
    attrs = {k: v["StringValue"] for k, v in dead[0]["MessageAttributes"].items()}
    # Not retried (a permission error), and the record says why and for which rule and target.
    assert (attrs["ERROR_CODE"], attrs["RETRY_ATTEMPTS"], attrs["RULE_ARN"], attrs["TARGET_ARN"]) == (
        "NO_PERMISSIONS", "0", rule_arn, fn)
    assert "EXHAUSTED_RETRY_CONDITION" not in attrs
    lam.add_permission(FunctionName=name, StatementId="events", Action="lambda:InvokeFunction",
                       Principal="events.amazonaws.com", SourceArn=rule_arn)
    put({"n": 2})
    assert ran(aws, name, 1) == ['RAN {"n": 2}']


def test_scheduler_invokes_as_its_role_without_a_function_permission(aws: Aws) -> None:
    iam = aws("iam")
    name, fn = function(aws)
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {
        "Service": "scheduler.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role_name = uid("svcsched")
    role = iam.create_role(RoleName=role_name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    iam.put_role_policy(RoleName=role_name, PolicyName="invoke", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction",
                                                "Resource": fn}]}))
    at = (datetime.now(UTC) + timedelta(seconds=2)).strftime("%Y-%m-%dT%H:%M:%S")
    aws("scheduler").create_schedule(Name=uid("svcsched"), ScheduleExpression=f"at({at})",
                                     FlexibleTimeWindow={"Mode": "OFF"}, ActionAfterCompletion="DELETE",
                                     Target={"Arn": fn, "RoleArn": role, "Input": json.dumps({"detail": "tick"})})
    # No AddPermission: on AWS Scheduler acts as the role, the function's resource policy is not asked.
    assert ran(aws, name, 1) == ['RAN "tick"']
