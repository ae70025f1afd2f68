"""S3 event notifications delivered: to SQS (the s3:TestEvent, then Records filtered by prefix and
suffix), to SNS, to Lambda (async, with AddPermission), to EventBridge's default bus; and what
PutBucketNotificationConfiguration refuses (a missing queue, a queue whose policy does not let S3
send, overlapping configurations)."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
Aws = Callable[..., Any]


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def allow_service(service: str, action: str, resource: str, source_arn: str) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": service}, "Action": action, "Resource": resource,
        "Condition": {"ArnLike": {"aws:SourceArn": source_arn}}}]})


def queue_for(aws: Aws, service: str | None, source_arn: str) -> tuple[str, str]:
    """A queue (URL, ARN) whose policy lets `service` send from `source_arn` (no policy for None)."""
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=uid("s3q"))["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    if service:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={
            "Policy": allow_service(service, "sqs:SendMessage", arn, source_arn)})
    return url, arn


def bucket(aws: Aws) -> str:
    name = uid("notes")
    aws("s3").create_bucket(Bucket=name)
    return name


def receive(aws: Aws, url: str, count: int) -> list[dict[str, Any]]:
    """`count` message bodies (parsed) from the queue, in order, deleting them."""
    sqs, got = aws("sqs"), []
    deadline = time.monotonic() + 30
    while len(got) < count and time.monotonic() < deadline:
        for m in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=2, MaxNumberOfMessages=10).get("Messages", []):
            got.append(json.loads(m["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return got


def code_of(info: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    return info.value.response["Error"]["Code"], info.value.response["Error"]["Message"]


def test_sqs_gets_the_test_event_then_the_records_its_filter_selects(aws: Aws) -> None:
    s3, name = aws("s3"), bucket(aws)
    url, arn = queue_for(aws, "s3.amazonaws.com", f"arn:aws:s3:::{name}")
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    rules = {"Key": {"FilterRules": [{"Name": "prefix", "Value": "in/"}, {"Name": "suffix", "Value": ".txt"}]}}
    s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration={"QueueConfigurations": [
        {"Id": "incoming", "QueueArn": arn, "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"],
         "Filter": rules}]})
    test = receive(aws, url, 1)[0]
    assert (test["Service"], test["Event"], test["Bucket"]) == ("Amazon S3", "s3:TestEvent", name)

    s3.put_object(Bucket=name, Key="out/skip.txt", Body=b"no")  # prefix does not match
    s3.put_object(Bucket=name, Key="in/skip.csv", Body=b"no")  # suffix does not match
    put = s3.put_object(Bucket=name, Key="in/red flower.txt", Body=b"hello")
    s3.copy_object(Bucket=name, Key="in/copy.txt", CopySource={"Bucket": name, "Key": "in/red flower.txt"})
    deleted = s3.delete_object(Bucket=name, Key="in/copy.txt")
    # Deliveries keep their order: had the filtered-out puts been sent, they would come first.
    records = [m["Records"][0] for m in receive(aws, url, 3)]
    assert [r["eventName"] for r in records] == ["ObjectCreated:Put", "ObjectCreated:Copy",
                                                 "ObjectRemoved:DeleteMarkerCreated"]
    first = records[0]
    assert (first["eventVersion"], first["eventSource"], first["awsRegion"]) == ("2.1", "aws:s3", "us-east-1")
    assert first["s3"]["configurationId"] == "incoming"
    assert first["s3"]["bucket"]["name"] == name and first["s3"]["bucket"]["arn"] == f"arn:aws:s3:::{name}"
    assert first["s3"]["object"] == {"key": "in/red+flower.txt", "size": 5, "eTag": put["ETag"].strip('"'),
                                     "versionId": put["VersionId"], "sequencer": first["s3"]["object"]["sequencer"]}
    assert records[2]["s3"]["object"]["versionId"] == deleted["VersionId"]
    assert "size" not in records[2]["s3"]["object"]
    sequencers = [r["s3"]["object"]["sequencer"] for r in records]
    assert sequencers == sorted(sequencers) and len(set(sequencers)) == 3


def test_bad_configurations_are_refused_and_change_nothing(aws: Aws) -> None:
    s3, name = aws("s3"), bucket(aws)
    missing = f"arn:aws:sqs:us-east-1:{ACCOUNT}:{uid('nothere')}"
    config = {"QueueConfigurations": [{"QueueArn": missing, "Events": ["s3:ObjectCreated:*"]}]}
    with pytest.raises(ClientError) as info:
        s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=config)
    assert code_of(info) == ("InvalidArgument", "Unable to validate the following destination configurations")
    assert info.value.response["Error"]["ArgumentName1"] == missing
    _, no_policy = queue_for(aws, None, "")
    config = {"QueueConfigurations": [{"QueueArn": no_policy, "Events": ["s3:ObjectCreated:*"]}]}
    with pytest.raises(ClientError) as info:
        s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=config)
    assert code_of(info)[0] == "InvalidArgument"
    assert "do not allow S3" in info.value.response["Error"]["ArgumentValue1"]
    _, other = queue_for(aws, "s3.amazonaws.com", "arn:aws:s3:::some-other-bucket")  # SourceArn names another
    config = {"QueueConfigurations": [{"QueueArn": other, "Events": ["s3:ObjectCreated:*"]}]}
    with pytest.raises(ClientError) as info:
        s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=config)
    assert code_of(info)[0] == "InvalidArgument"
    sqs = aws("sqs")  # a FIFO queue that would let S3 in: still refused, S3 sends to standard queues only
    fifo_url = sqs.create_queue(QueueName=uid("s3q") + ".fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    fifo = sqs.get_queue_attributes(QueueUrl=fifo_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sqs.set_queue_attributes(QueueUrl=fifo_url, Attributes={"Policy": allow_service(
        "s3.amazonaws.com", "sqs:SendMessage", fifo, f"arn:aws:s3:::{name}")})
    config = {"QueueConfigurations": [{"QueueArn": fifo, "Events": ["s3:ObjectCreated:*"]}]}
    with pytest.raises(ClientError) as info:
        s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=config)
    assert code_of(info) == ("InvalidArgument", "Unable to validate the following destination configurations")
    assert (info.value.response["Error"]["ArgumentName1"], info.value.response["Error"]["ArgumentValue1"]) == (
        fifo, "FIFO queues are not supported as Amazon S3 event notification destinations")
    _, good = queue_for(aws, "s3.amazonaws.com", f"arn:aws:s3:::{name}")
    overlapping = {"QueueConfigurations": [
        {"QueueArn": good, "Events": ["s3:ObjectCreated:*"],
         "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "a/"}]}}},
        {"QueueArn": good, "Events": ["s3:ObjectCreated:Put"],
         "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "a/b/"}]}}}]}
    with pytest.raises(ClientError) as info:
        s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=overlapping)
    assert code_of(info) == ("InvalidArgument", "Configurations overlap. Configurations on the same bucket cannot "
                                                "share a common event type.")
    assert s3.get_bucket_notification_configuration(Bucket=name).get("QueueConfigurations") is None
    # Disjoint prefixes do not overlap; SkipDestinationValidation stores a missing queue as AWS does.
    disjoint = {"QueueConfigurations": [overlapping["QueueConfigurations"][0],
                                        {**overlapping["QueueConfigurations"][1], "QueueArn": missing,
                                         "Filter": {"Key": {"FilterRules": [{"Name": "prefix", "Value": "c/"}]}}}]}
    s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=disjoint,
                                             SkipDestinationValidation=True)
    assert len(s3.get_bucket_notification_configuration(Bucket=name)["QueueConfigurations"]) == 2


def test_sns_topic_publishes_the_records_with_s3s_subject(aws: Aws) -> None:
    s3, sns, name = aws("s3"), aws("sns"), bucket(aws)
    topic = sns.create_topic(Name=uid("s3t"))["TopicArn"]
    sns.set_topic_attributes(TopicArn=topic, AttributeName="Policy", AttributeValue=allow_service(
        "s3.amazonaws.com", "sns:Publish", topic, f"arn:aws:s3:::{name}"))
    url, q_arn = queue_for(aws, "sns.amazonaws.com", topic)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=q_arn)
    s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration={"TopicConfigurations": [
        {"TopicArn": topic, "Events": ["s3:ObjectTagging:*"]}]})
    s3.put_object(Bucket=name, Key="doc", Body=b"x")  # not a tagging event: sends nothing (order shows it)
    s3.put_object_tagging(Bucket=name, Key="doc", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    envelopes = receive(aws, url, 2)
    assert [e["Subject"] for e in envelopes] == ["Amazon S3 Notification"] * 2
    assert json.loads(envelopes[0]["Message"])["Event"] == "s3:TestEvent"
    record = json.loads(envelopes[1]["Message"])["Records"][0]
    assert (record["eventName"], record["s3"]["object"]["key"]) == ("ObjectTagging:Put", "doc")


def make_zip(code: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", code)
    return buf.getvalue()


def test_lambda_is_invoked_only_once_s3_may_invoke_it(aws: Aws) -> None:
    s3, lam, name = aws("s3"), aws("lambda"), bucket(aws)
    trust = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
    role = aws("iam").create_role(RoleName=uid("s3fn"), AssumeRolePolicyDocument=trust)["Role"]["Arn"]
    fn = uid("s3fn")
    code = "import json\ndef handler(event, context):\n    print('EVENT ' + json.dumps(event))\n"
    fn_arn = lam.create_function(FunctionName=fn, Runtime="python3.12", Role=role, Handler="app.handler",
                                 Code={"ZipFile": make_zip(code)})["FunctionArn"]
    config = {"LambdaFunctionConfigurations": [{"LambdaFunctionArn": fn_arn, "Events": ["s3:ObjectCreated:*"]}]}
    with pytest.raises(ClientError) as info:
        s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=config)
    assert code_of(info)[0] == "InvalidArgument"
    lam.add_permission(FunctionName=fn, StatementId="s3", Action="lambda:InvokeFunction",
                       Principal="s3.amazonaws.com", SourceArn=f"arn:aws:s3:::{name}", SourceAccount=ACCOUNT)
    s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration=config)
    s3.put_object(Bucket=name, Key="k1", Body=b"abc")
    deadline, lines = time.monotonic() + 60, []
    while time.monotonic() < deadline and not lines:
        try:
            found = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{fn}")["events"]
        except ClientError:
            found = []
        lines = [e["message"] for e in found if e["message"].startswith("EVENT ")]
        time.sleep(0.1)
    assert len(lines) == 1  # no test event to Lambda
    record = json.loads(lines[0][len("EVENT "):])["Records"][0]
    assert (record["eventName"], record["s3"]["object"]["key"], record["s3"]["object"]["size"]) == (
        "ObjectCreated:Put", "k1", 3)


def test_eventbridge_gets_object_created_and_deleted_on_the_default_bus(aws: Aws) -> None:
    s3, events, name = aws("s3"), aws("events"), bucket(aws)
    rule = uid("s3rule")
    rule_arn = events.put_rule(Name=rule, EventPattern=json.dumps({
        "source": ["aws.s3"], "detail": {"bucket": {"name": [name]}}}))["RuleArn"]
    url, q_arn = queue_for(aws, "events.amazonaws.com", rule_arn)
    events.put_targets(Rule=rule, Targets=[{"Id": "q", "Arn": q_arn}])
    s3.put_bucket_notification_configuration(Bucket=name,
                                             NotificationConfiguration={"EventBridgeConfiguration": {}})
    assert "EventBridgeConfiguration" in s3.get_bucket_notification_configuration(Bucket=name)
    put = s3.put_object(Bucket=name, Key="a b", Body=b"12345")
    s3.delete_object(Bucket=name, Key="a b")
    # EventBridge's targets are called concurrently and neither S3 nor EventBridge promises order
    # (S3 User Guide: notifications "aren't guaranteed to arrive in the same order"): by type
    got = sorted(receive(aws, url, 2), key=lambda e: str(e["detail-type"]))
    assert [(e["source"], e["detail-type"]) for e in got] == [("aws.s3", "Object Created"),
                                                             ("aws.s3", "Object Deleted")]
    created, removed = got[0], got[1]
    assert created["resources"] == [f"arn:aws:s3:::{name}"] and created["account"] == ACCOUNT
    assert created["detail"]["object"]["key"] == "a b"
    assert (created["detail"]["object"]["size"], created["detail"]["object"]["etag"],
            created["detail"]["reason"]) == (5, put["ETag"].strip('"'), "PutObject")
    assert (removed["detail"]["reason"], removed["detail"]["deletion-type"]) == ("DeleteObject",
                                                                                "Permanently Deleted")


def test_a_distributed_maps_result_files_notify_as_any_put_does(aws: Aws) -> None:
    """Writes through S3's Python API (here Step Functions' ResultWriter) record their events too."""
    s3, name = aws("s3"), bucket(aws)
    url, arn = queue_for(aws, "s3.amazonaws.com", f"arn:aws:s3:::{name}")
    s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration={"QueueConfigurations": [
        {"QueueArn": arn, "Events": ["s3:ObjectCreated:Put"],
         "Filter": {"Key": {"FilterRules": [{"Name": "suffix", "Value": "manifest.json"}]}}}]})
    assert receive(aws, url, 1)[0]["Event"] == "s3:TestEvent"
    iam, sfn = aws("iam"), aws("stepfunctions")
    trust = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
    role = iam.create_role(RoleName=uid("map"), AssumeRolePolicyDocument=trust)["Role"]
    iam.put_role_policy(RoleName=role["RoleName"], PolicyName="all", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    definition = {"StartAt": "M", "States": {"M": {
        "Type": "Map", "End": True, "ItemsPath": "$.xs",
        "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                          "StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}},
        "ResultWriter": {"Resource": "arn:aws:states:::s3:putObject",
                         "Parameters": {"Bucket": name, "Prefix": "out"}}}}}
    sm = sfn.create_state_machine(name=uid("map"), definition=json.dumps(definition),
                                  roleArn=role["Arn"])["stateMachineArn"]
    execution = sfn.start_execution(stateMachineArn=sm, input=json.dumps({"xs": [1, 2]}))["executionArn"]
    record = receive(aws, url, 1)[0]["Records"][0]
    deadline = time.monotonic() + 60
    while (described := sfn.describe_execution(executionArn=execution))["status"] == "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    details = json.loads(described["output"])["ResultWriterDetails"]
    head = s3.head_object(Bucket=name, Key=details["Key"])
    assert (record["eventName"], record["s3"]["object"]["key"], record["s3"]["object"]["size"],
            record["s3"]["object"]["eTag"]) == ("ObjectCreated:Put", details["Key"], head["ContentLength"],
                                                head["ETag"].strip('"'))
    assert record["userIdentity"]["principalId"] == ACCOUNT  # written by onceflow for the bucket's owner
