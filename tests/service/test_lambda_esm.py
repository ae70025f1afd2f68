"""Lambda event source mappings against a real server: an SQS queue and a DynamoDB stream
triggering a function (which prints each event it gets, read back from its log group), partial
batch failures, filter criteria, and the bad input Lambda refuses at CreateEventSourceMapping."""

from __future__ import annotations

import io
import json
import re
import time
import uuid
import zipfile
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
READS = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": ["sqs:*", "dynamodb:*", "logs:*", "sns:*"], "Resource": "*"}]}
# Prints each event; a record whose body (or item id) is "bad" is reported as a failed item, one
# whose body is "unknown" makes it report an id not in the batch, and a batch with the item "poison"
# fails as a whole.
APP = """
import json

def handler(event, context):
    print("EVENT " + json.dumps(event))
    if "window" in event:  # a tumbling window: count the records seen in it
        return {"state": {"n": event["state"].get("n", 0) + len(event["Records"])}}
    if any(r.get("dynamodb", {}).get("Keys", {}).get("id", {}).get("S") == "poison" for r in event["Records"]):
        raise ValueError("poison")
    failed = []
    for r in event["Records"]:
        if r.get("body") == "bad":
            failed.append({"itemIdentifier": r["messageId"]})
        if r.get("body") == "unknown":
            failed.append({"itemIdentifier": "not-in-this-batch"})
        image = r.get("dynamodb", {}).get("NewImage", {})
        if image.get("id", {}).get("S") == "bad":
            failed.append({"itemIdentifier": r["dynamodb"]["SequenceNumber"]})
    return {"batchItemFailures": failed}
"""


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = _name("esm-role")
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="reads", PolicyDocument=json.dumps(READS))
    return str(arn)


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", APP)
    return buf.getvalue()


def _function(aws: Callable[..., Any], role: str) -> str:
    name = _name("esm-fn")
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": _zip()})
    # warm, so a first batch is not still in its cold start when a short visibility timeout runs out
    aws("lambda").invoke(FunctionName=name, Payload=b'{"Records": []}')
    return name


def _events(aws: Callable[..., Any], function: str) -> list[dict[str, Any]]:
    try:
        found = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{function}")["events"]
    except ClientError:
        return []
    events = [json.loads(e["message"][len("EVENT "):]) for e in found if e["message"].startswith("EVENT ")]
    return [e for e in events if e["Records"] or "window" in e]  # not the warm-up


def _until(check: Callable[[], Any], what: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _queue(aws: Callable[..., Any], **attributes: str) -> tuple[str, str]:
    sqs = aws("sqs")
    url = sqs.create_queue(QueueName=_name("esm-q"), Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url, arn


def _counts(aws: Callable[..., Any], url: str) -> tuple[int, int]:
    a = aws("sqs").get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])


def test_a_queue_triggers_a_function_and_failed_items_go_to_the_dlq(aws: Callable[..., Any], role: str) -> None:
    function = _function(aws, role)
    dlq_url, dlq_arn = _queue(aws)
    url, arn = _queue(aws, VisibilityTimeout="3",
                      RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1}))
    lam = aws("lambda")
    created = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=function, BatchSize=10,
                                              FunctionResponseTypes=["ReportBatchItemFailures"])
    assert created["State"] == "Creating"
    assert created["EventSourceArn"] == arn and created["BatchSize"] == 10
    assert created["FunctionArn"].endswith(f":function:{function}")
    aws("sqs").send_message_batch(QueueUrl=url, Entries=[
        {"Id": "1", "MessageBody": "good",
         "MessageAttributes": {"color": {"DataType": "String", "StringValue": "red"}}},
        {"Id": "2", "MessageBody": "bad"},
    ])
    moved = _until(lambda: aws("sqs").receive_message(QueueUrl=dlq_url, WaitTimeSeconds=1).get("Messages"),
                   "the failed item in the DLQ")
    assert [m["Body"] for m in moved] == ["bad"]
    assert _until(lambda: _counts(aws, url) == (0, 0), "the source queue to empty")
    records = [r for e in _events(aws, function) for r in e["Records"]]
    good = next(r for r in records if r["body"] == "good")
    assert good["eventSource"] == "aws:sqs" and good["eventSourceARN"] == arn and good["awsRegion"] == "us-east-1"
    assert good["messageAttributes"]["color"] == {"stringValue": "red", "stringListValues": [],
                                                   "binaryListValues": [], "dataType": "String"}
    assert set(good) >= {"messageId", "receiptHandle", "md5OfBody", "attributes"}
    assert good["attributes"]["ApproximateReceiveCount"] == "1"
    # the good message was delivered once (deleted), the bad one once before its redrive
    assert sorted(r["body"] for r in records) == ["bad", "good"]
    got = lam.get_event_source_mapping(UUID=created["UUID"])
    assert got["State"] == "Enabled"
    assert created["UUID"] in [m["UUID"] for m in lam.list_event_source_mappings(FunctionName=function)
                               ["EventSourceMappings"]]


def test_an_unknown_item_identifier_fails_the_whole_batch(aws: Callable[..., Any], role: str) -> None:
    function = _function(aws, role)
    dlq_url, dlq_arn = _queue(aws)
    url, arn = _queue(aws, VisibilityTimeout="2",
                      RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 1}))
    aws("lambda").create_event_source_mapping(EventSourceArn=arn, FunctionName=function, BatchSize=10,
                                              MaximumBatchingWindowInSeconds=1,
                                              FunctionResponseTypes=["ReportBatchItemFailures"])
    aws("sqs").send_message_batch(QueueUrl=url, Entries=[{"Id": "1", "MessageBody": "fine"},
                                                         {"Id": "2", "MessageBody": "unknown"}])
    moved: list[str] = []

    def both_moved() -> bool:
        found = aws("sqs").receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        moved.extend(m["Body"] for m in found.get("Messages") or [])
        return len(moved) == 2

    _until(both_moved, "both messages of the failed batch in the DLQ")
    assert sorted(moved) == ["fine", "unknown"]
    first = _events(aws, function)[0]
    assert sorted(r["body"] for r in first["Records"]) == ["fine", "unknown"]


def test_filter_criteria_drop_messages_that_do_not_match(aws: Callable[..., Any], role: str) -> None:
    function = _function(aws, role)
    url, arn = _queue(aws)
    aws("lambda").create_event_source_mapping(
        EventSourceArn=arn, FunctionName=function,
        FilterCriteria={"Filters": [{"Pattern": json.dumps({"body": {"kind": ["keep"]}})}]})
    for kind in ("drop", "keep"):
        aws("sqs").send_message(QueueUrl=url, MessageBody=json.dumps({"kind": kind}))
    _until(lambda: _events(aws, function), "an invocation")
    assert _until(lambda: _counts(aws, url) == (0, 0), "both messages deleted")
    bodies = [json.loads(r["body"]) for e in _events(aws, function) for r in e["Records"]]
    assert bodies == [{"kind": "keep"}]


def test_disabling_a_mapping_stops_delivery(aws: Callable[..., Any], role: str) -> None:
    function = _function(aws, role)
    url, arn = _queue(aws)
    lam = aws("lambda")
    key = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=function, Enabled=False)["UUID"]
    assert lam.get_event_source_mapping(UUID=key)["State"] == "Disabled"
    aws("sqs").send_message(QueueUrl=url, MessageBody="waits")
    assert _counts(aws, url) == (1, 0)
    # recorded on AWS: Enabling (test_lambda_integration_sqs.py test_fifo_message_group_parallelism)
    assert lam.update_event_source_mapping(UUID=key, Enabled=True)["State"] == "Enabling"
    _until(lambda: _events(aws, function), "the message delivered once enabled")
    assert lam.delete_event_source_mapping(UUID=key)["State"] == "Deleting"
    with pytest.raises(ClientError) as err:
        lam.get_event_source_mapping(UUID=key)
    assert err.value.response["Error"]["Code"] == "ResourceNotFoundException"
    # the deleted mapping's pollers left their long poll: a message sent now is received first by us
    sqs = aws("sqs")
    sqs.send_message(QueueUrl=url, MessageBody="after delete")
    got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5, MessageSystemAttributeNames=["All"])["Messages"]
    assert [(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in got] == [("after delete", "1")]


def test_a_stream_triggers_a_function_with_retries_and_an_on_failure_queue(aws: Callable[..., Any],
                                                                          role: str) -> None:
    function = _function(aws, role)
    ddb = aws("dynamodb")
    table = _name("esm-t")
    stream = ddb.create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )["TableDescription"]["LatestStreamArn"]
    ddb.put_item(TableName=table, Item={"id": {"S": "before"}})  # before the mapping: LATEST skips it
    failures_url, failures_arn = _queue(aws)
    lam = aws("lambda")
    created = lam.create_event_source_mapping(
        EventSourceArn=stream, FunctionName=function, StartingPosition="LATEST", BatchSize=10,
        MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=1, FunctionResponseTypes=["ReportBatchItemFailures"],
        DestinationConfig={"OnFailure": {"Destination": failures_arn}})
    assert created["StartingPosition"] == "LATEST" and created["LastProcessingResult"] == "No records processed"
    for key in ("one", "bad", "two"):
        ddb.put_item(TableName=table, Item={"id": {"S": key}})
    found = _until(lambda: aws("sqs").receive_message(QueueUrl=failures_url, WaitTimeSeconds=1,
                                                      MessageSystemAttributeNames=["SenderId"]).get("Messages"),
                   "the on-failure record")
    # Lambda sends the record as the execution role, in a session named after the function.
    role_id = aws("iam").get_role(RoleName=role.rsplit("/", 1)[-1])["Role"]["RoleId"]
    assert found[0]["Attributes"]["SenderId"] == f"{role_id}:{function}"
    info = json.loads(found[0]["Body"])
    assert info["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert info["requestContext"]["approximateInvokeCount"] == 2
    # the function answered (items reported failed): no functionError, null as recorded on AWS
    # (test_lambda_integration_dynamodbstreams.py test_dynamodb_report_batch_item_failures, 2025-10)
    assert info["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": None}
    assert info["DDBStreamBatchInfo"]["streamArn"] == stream and info["DDBStreamBatchInfo"]["batchSize"] == 2
    # seconds without a fraction, the timestamp with milliseconds (recorded on AWS:
    # test_dynamodb_event_source_mapping_with_on_failure_destination_config, 2025-10)
    arrival = info["DDBStreamBatchInfo"]["approximateArrivalOfFirstRecord"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", arrival), arrival
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", info["timestamp"]), info["timestamp"]
    events = _events(aws, function)
    first = events[0]["Records"]
    assert [r["dynamodb"]["Keys"]["id"]["S"] for r in first] == ["one", "bad", "two"]
    assert all(r["eventName"] == "INSERT" and r["eventSourceARN"] == stream for r in first)
    assert first[0]["eventSource"] == "aws:dynamodb" and first[0]["dynamodb"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    # the retry starts at the failed record
    assert [r["dynamodb"]["Keys"]["id"]["S"] for r in events[1]["Records"]] == ["bad", "two"]
    ddb.put_item(TableName=table, Item={"id": {"S": "after"}})
    _until(lambda: any(r["dynamodb"]["Keys"]["id"]["S"] == "after" for e in _events(aws, function)
                       for r in e["Records"]), "a later record delivered past the skipped batch")
    got = lam.get_event_source_mapping(UUID=created["UUID"])
    assert got["State"] == "Enabled" and got["LastProcessingResult"] == "OK"


def _table(aws: Callable[..., Any]) -> tuple[str, str]:
    table = _name("esm-t")
    stream = aws("dynamodb").create_table(
        TableName=table, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )["TableDescription"]["LatestStreamArn"]
    return table, stream


def test_bisect_isolates_a_poison_record_and_publishes_it_to_an_sns_topic(aws: Callable[..., Any],
                                                                         role: str) -> None:
    function = _function(aws, role)
    table, stream = _table(aws)
    sink_url, sink_arn = _queue(aws)
    sns = aws("sns")
    topic = sns.create_topic(Name=_name("esm-topic"))["TopicArn"]
    aws("sqs").set_queue_attributes(QueueUrl=sink_url, Attributes={"Policy": json.dumps({"Statement": [{
        "Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"}, "Action": "sqs:SendMessage",
        "Resource": sink_arn}]})})  # SNS may send only where the queue's policy lets it, as on AWS
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=sink_arn, Attributes={"RawMessageDelivery": "true"})
    aws("lambda").create_event_source_mapping(
        EventSourceArn=stream, FunctionName=function, StartingPosition="TRIM_HORIZON", BatchSize=10,
        MaximumBatchingWindowInSeconds=1, BisectBatchOnFunctionError=True, MaximumRetryAttempts=0,
        DestinationConfig={"OnFailure": {"Destination": topic}})
    for key in ("a", "poison", "b", "c"):
        aws("dynamodb").put_item(TableName=table, Item={"id": {"S": key}})
    found = _until(lambda: aws("sqs").receive_message(QueueUrl=sink_url, WaitTimeSeconds=1).get("Messages"),
                   "the poison record's batch on the topic")
    info = json.loads(found[0]["Body"])["DDBStreamBatchInfo"]
    assert info["batchSize"] == 1
    batches = [[r["dynamodb"]["Keys"]["id"]["S"] for r in e["Records"]] for e in _events(aws, function)]
    assert batches[0] == ["a", "poison", "b", "c"]
    _until(lambda: ["b", "c"] in [[r["dynamodb"]["Keys"]["id"]["S"] for r in e["Records"]]
                                  for e in _events(aws, function)], "the healthy half delivered")
    keys = [[r["dynamodb"]["Keys"]["id"]["S"] for r in e["Records"]] for e in _events(aws, function)]
    assert keys[:4] == [["a", "poison", "b", "c"], ["a", "poison"], ["a"], ["poison"]]


def test_a_tumbling_window_carries_state_to_its_final_invocation(aws: Callable[..., Any], role: str) -> None:
    function = _function(aws, role)
    table, stream = _table(aws)
    aws("lambda").create_event_source_mapping(EventSourceArn=stream, FunctionName=function,
                                              StartingPosition="TRIM_HORIZON", TumblingWindowInSeconds=2)
    for key in ("a", "b", "c"):
        aws("dynamodb").put_item(TableName=table, Item={"id": {"S": key}})

    def finals() -> list[dict[str, Any]]:
        done = [e for e in _events(aws, function) if e.get("isFinalInvokeForWindow")]
        return done if sum(e["state"].get("n", 0) for e in done) == 3 else []

    closing = _until(finals, "the windows' final invocations with every record counted")
    assert all(e["Records"] == [] and e["eventSourceARN"] == stream and e["shardId"] for e in closing)
    window = closing[0]["window"]
    start, end = (datetime.fromisoformat(window[k].replace("Z", "+00:00")) for k in ("start", "end"))
    assert (end - start).total_seconds() == 2
    # within a window, each invocation sees the state the previous one returned
    counted: dict[str, int] = {}
    for e in _events(aws, function):
        assert e["isWindowTerminatedEarly"] is False
        seen = counted.get(e["window"]["start"], 0)
        assert e["state"].get("n", 0) == seen
        counted[e["window"]["start"]] = seen + len(e["Records"])
    assert sum(counted.values()) == 3


def test_an_idle_stream_poller_is_woken_by_the_next_write(aws: Callable[..., Any], role: str) -> None:
    """The poller waits for the stream's next record rather than reading it on a timer: a write to
    a table idle for a while reaches the function long before the poller's 60 s safety recheck."""
    function = _function(aws, role)
    table, stream = _table(aws)
    lam = aws("lambda")
    uuid_ = lam.create_event_source_mapping(EventSourceArn=stream, FunctionName=function,
                                            StartingPosition="LATEST")["UUID"]
    _until(lambda: lam.get_event_source_mapping(UUID=uuid_)["State"] == "Enabled", "the mapping enabled")
    time.sleep(1)  # the poller has read the empty stream and is waiting
    aws("dynamodb").put_item(TableName=table, Item={"id": {"S": "wake"}})
    got = _until(lambda: _events(aws, function), "the record delivered", timeout=20)
    assert [r["dynamodb"]["Keys"]["id"]["S"] for r in got[0]["Records"]] == ["wake"]


def _code(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(ClientError) as err:
        call()
    return err.value.response["Error"]["Code"], err.value.response["Error"]["Message"]


def test_bad_input_is_refused_and_changes_nothing(aws: Callable[..., Any], role: str) -> None:
    function = _function(aws, role)
    lam = aws("lambda")
    _, arn = _queue(aws)
    missing = arn.rsplit(":", 1)[0] + ":" + _name("nope")
    code, message = _code(lambda: lam.create_event_source_mapping(EventSourceArn=missing, FunctionName=function))
    assert code == "InvalidParameterValueException" and "queue does not exist" in message
    code, message = _code(lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=function,
                                                                  BatchSize=11))
    assert code == "InvalidParameterValueException" and "Maximum batch window" in message
    code, message = _code(lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=_name("nofn")))
    assert (code, message) == ("InvalidParameterValueException", "Function does not exist")  # AWS's recorded answer
    code, message = _code(lambda: lam.create_event_source_mapping(
        EventSourceArn=arn, FunctionName=function, FilterCriteria={"Filters": [{"Pattern": "{not json"}]}))
    assert code == "InvalidParameterValueException"
    code, _ = _code(lambda: lam.get_event_source_mapping(UUID=str(uuid.uuid4())))
    assert code == "ResourceNotFoundException"
    assert lam.list_event_source_mappings(EventSourceArn=arn)["EventSourceMappings"] == []

    iam = aws("iam")
    bare = iam.create_role(RoleName=_name("esm-bare"), AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    unprivileged = _function(aws, bare)
    code, message = _code(lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=unprivileged))
    assert code == "InvalidParameterValueException"
    assert message == "The function execution role does not have permissions to call ReceiveMessage on SQS"

    fifo_url = aws("sqs").create_queue(QueueName=_name("esm-q") + ".fifo", Attributes={"FifoQueue": "true"})
    fifo = aws("sqs").get_queue_attributes(QueueUrl=fifo_url["QueueUrl"],
                                           AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    code, _ = _code(lambda: lam.create_event_source_mapping(EventSourceArn=fifo, FunctionName=function,
                                                            BatchSize=20, MaximumBatchingWindowInSeconds=1))
    assert code == "InvalidParameterValueException"
    code, _ = _code(lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=function,
                                                            StartingPosition="LATEST"))
    assert code == "InvalidParameterValueException"  # a stream's parameter on a queue

    key = lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=function)["UUID"]
    code, _ = _code(lambda: lam.create_event_source_mapping(EventSourceArn=arn, FunctionName=function))
    assert code == "ResourceConflictException"
    code, _ = _code(lambda: lam.update_event_source_mapping(UUID=key, BatchSize=50))
    assert code == "InvalidParameterValueException"
    assert lam.get_event_source_mapping(UUID=key)["BatchSize"] == 10
    assert len(lam.list_event_source_mappings(EventSourceArn=arn)["EventSourceMappings"]) == 1


def test_the_cli_lists_mappings_by_function(aws_cli: Callable[..., Any], aws: Callable[..., Any],
                                            role: str) -> None:
    function = _function(aws, role)
    longer = function + "x"  # a name that starts with the other must not be listed with it
    aws("lambda").create_function(FunctionName=longer, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": _zip()})
    _, arn = _queue(aws)
    created = aws_cli("lambda", "create-event-source-mapping", "--function-name", function,
                      "--event-source-arn", arn, "--batch-size", "5")
    assert created.returncode == 0, created.stderr
    key = json.loads(created.stdout)["UUID"]
    aws("lambda").create_event_source_mapping(EventSourceArn=arn, FunctionName=longer)
    listed = aws_cli("lambda", "list-event-source-mappings", "--function-name", function)
    assert listed.returncode == 0, listed.stderr
    mappings = json.loads(listed.stdout)["EventSourceMappings"]
    assert [(m["UUID"], m["BatchSize"], m["State"]) for m in mappings] == [(key, 5, "Enabled")]
