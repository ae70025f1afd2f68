"""SQS's SenderId (ReceiveMessage's system attribute) as AWS gives it: the sender's unique id, an
IAM user's AIDA..., a role session's AROA...:<session>, the root's account; a message onceflow
sends for a service as a role (a Lambda destination, a Step Functions task) names that role's
session, and SNS delivering to a subscribed queue shows SNS's own id."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

from sfn_setup import finished
from sns_setup import make_queue

ACCOUNT, REGION = "000000000000", "us-east-1"
SNS_SENDER_US_EAST_1 = "AIDAIT2UOQQY3AUEKVGXU"  # SNS's id in messages it delivered, recorded on AWS


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def new_queue(sqs: Any) -> str:
    url: str = sqs.create_queue(QueueName=unique("sender"))["QueueUrl"]
    return url


def sender_of(sqs: Any, url: str, names: list[str] | None = None, wait: float = 0) -> str:
    """The SenderId of the queue's next message (waiting up to `wait` seconds for one)."""
    deadline = time.monotonic() + wait
    while True:
        got = sqs.receive_message(QueueUrl=url, MessageSystemAttributeNames=names or ["SenderId"],
                                  WaitTimeSeconds=1 if wait else 0).get("Messages", [])
        if got or time.monotonic() >= deadline:
            break
    assert got, "no message arrived"
    sender: str = got[0]["Attributes"]["SenderId"]
    return sender


def role(aws: Callable[..., Any], service: str, actions: list[str]) -> tuple[str, str, str]:
    """(name, ARN, unique id) of a new role that `service` may assume, allowed `actions`."""
    iam = aws("iam")
    name = unique("sender-role")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}]}
    made = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    iam.put_role_policy(RoleName=name, PolicyName="send", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]}))
    return name, made["Arn"], made["RoleId"]


def test_a_users_message_names_the_users_unique_id(aws: Callable[..., Any], sqs: Any) -> None:
    iam = aws("iam")
    name = unique("sender-user")
    user_id = iam.create_user(UserName=name)["User"]["UserId"]
    iam.put_user_policy(UserName=name, PolicyName="send", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sqs:*", "Resource": "*"}]}))
    key = iam.create_access_key(UserName=name)["AccessKey"]
    url = new_queue(sqs)
    aws("sqs", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"]).send_message(
        QueueUrl=url, MessageBody="from a user")
    assert user_id.startswith("AIDA")
    assert sender_of(sqs, url, ["All"]) == user_id


def test_a_role_sessions_message_names_the_role_id_and_session(aws: Callable[..., Any], sqs: Any) -> None:
    iam = aws("iam")
    me = aws("sts").get_caller_identity()["Arn"]
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": me}, "Action": "sts:AssumeRole"}]}
    made = iam.create_role(RoleName=unique("sender-assumed"), AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    iam.put_role_policy(RoleName=made["RoleName"], PolicyName="send", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sqs:*", "Resource": "*"}]}))
    creds = aws("sts").assume_role(RoleArn=made["Arn"], RoleSessionName="my-session")["Credentials"]
    as_role = aws("sqs", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                  session_token=creds["SessionToken"])
    url = new_queue(sqs)
    as_role.send_message(QueueUrl=url, MessageBody="from a role")
    assert sender_of(sqs, url) == f"{made['RoleId']}:my-session"


def test_the_roots_message_names_the_account(sqs: Any) -> None:
    url = new_queue(sqs)
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "from the root"}])
    assert sender_of(sqs, url) == ACCOUNT


def test_sns_delivering_to_a_queue_shows_the_sns_services_id(sns: Any, sqs: Any) -> None:
    url, queue_arn = make_queue(sqs)
    topic = sns.create_topic(Name=unique("sender-topic"))["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    sns.publish(TopicArn=topic, Message="fan out")
    assert sender_of(sqs, url, wait=20) == SNS_SENDER_US_EAST_1


def _zip(text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", text)
    return buf.getvalue()


def test_a_lambda_destination_names_the_execution_roles_session(aws: Callable[..., Any], sqs: Any) -> None:
    # Lambda sends the record as the execution role, in a session named after the function.
    _, role_arn, role_id = role(aws, "lambda.amazonaws.com", ["sqs:SendMessage"])
    url = new_queue(sqs)
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    lam = aws("lambda")
    fn = unique("sender-fn")
    lam.create_function(FunctionName=fn, Runtime="python3.12", Role=role_arn, Handler="app.handler",
                        Code={"ZipFile": _zip("def handler(event, context):\n    return event\n")})
    lam.put_function_event_invoke_config(FunctionName=fn, DestinationConfig={"OnSuccess": {"Destination": queue_arn}})
    lam.invoke(FunctionName=fn, InvocationType="Event", Payload=b"{}")
    assert sender_of(sqs, url, wait=60) == f"{role_id}:{fn}"


def test_a_step_functions_task_names_the_state_machines_role_session(aws: Callable[..., Any], sqs: Any) -> None:
    _, role_arn, role_id = role(aws, "states.amazonaws.com", ["sqs:SendMessage"])
    url = new_queue(sqs)
    sfn = aws("stepfunctions")
    definition = {"StartAt": "Send", "States": {"Send": {
        "Type": "Task", "Resource": "arn:aws:states:::sqs:sendMessage",
        "Parameters": {"QueueUrl": url, "MessageBody": "from a task"}, "End": True}}}
    machine = sfn.create_state_machine(name=unique("sender-sm"), definition=json.dumps(definition),
                                       roleArn=role_arn)["stateMachineArn"]
    run = sfn.start_execution(stateMachineArn=machine)["executionArn"]
    assert finished(sfn, run)["status"] == "SUCCEEDED"
    found = sender_of(sqs, url)
    role_part, _, session = found.partition(":")
    assert role_part == role_id
    assert len(session) == 32 and session.isalpha()  # Step Functions' own session name


def test_a_lambda_dead_letter_queue_names_the_execution_roles_session(aws: Callable[..., Any], sqs: Any) -> None:
    # Lambda sends a failed event to the dead-letter queue as the execution role (UNCONFIRMED: the
    # session name, taken to be the function's as for its destinations).
    _, role_arn, role_id = role(aws, "lambda.amazonaws.com", ["sqs:SendMessage"])
    url = new_queue(sqs)
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    lam = aws("lambda")
    fn = unique("sender-dlq")
    lam.create_function(FunctionName=fn, Runtime="python3.12", Role=role_arn, Handler="app.handler",
                        Code={"ZipFile": _zip("def handler(event, context):\n    raise RuntimeError('no')\n")},
                        DeadLetterConfig={"TargetArn": queue_arn})
    lam.put_function_event_invoke_config(FunctionName=fn, MaximumRetryAttempts=0)
    lam.invoke(FunctionName=fn, InvocationType="Event", Payload=b"{}")
    assert sender_of(sqs, url, wait=60) == f"{role_id}:{fn}"
