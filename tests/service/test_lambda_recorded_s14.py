"""Lambda's answers as AWS recorded them in LocalStack's aws-validated test_lambda_api.py snapshot
(tests/aws/services/lambda_/test_lambda_api.snapshot.json), the entries earlier sessions had not
encoded; each test names the entry it holds. Compared after LocalStack's normalisations: ARNs,
request ids, dates and sizes are not compared, the rest is."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError
from lambda_setup import admin_role, lambda_role, zip_of

ARN = "arn:aws:lambda:us-east-1:000000000000:function:"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "rec14")


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": zip_of()})  # fmt: skip
    return name


@pytest.fixture(scope="module")
def admin(aws: Callable[..., Any]) -> str:
    """A role allowed everything (the recordings used an administrator role): mappings may read sources."""
    return admin_role(aws, "rec14-admin")


def refused(call: Callable[..., Any], **params: Any) -> dict[str, Any]:
    """The error answer as the recordings keep it: Error, the extra members, the status."""
    with pytest.raises(ClientError) as excinfo:
        call(**params)
    response = dict(excinfo.value.response)
    response["Status"] = response.pop("ResponseMetadata")["HTTPStatusCode"]
    return response


def test_reserved_concurrency_refuses_a_latest_qualified_arn(aws: Callable[..., Any], fn: str) -> None:
    """TestLambdaReservedConcurrency test_function_concurrency_exceptions, put_function_concurrency_with_
    qualified_arn: the ARN GetFunctionConfiguration answers for Qualifier $LATEST is refused."""
    lam = aws("lambda")
    qualified = lam.get_function_configuration(FunctionName=fn, Qualifier="$LATEST")["FunctionArn"]
    assert qualified == f"{ARN}{fn}:$LATEST"
    message = ("This operation is permitted on Lambda functions only. Aliases and versions do not support this "
               "operation. Please specify either a function name or an unqualified function ARN.")
    assert refused(lam.put_function_concurrency, FunctionName=qualified, ReservedConcurrentExecutions=0) == {
        "Error": {"Code": "InvalidParameterValueException", "Message": message}, "Type": "User", "message": message,
        "Status": 400}
    assert "ReservedConcurrentExecutions" not in lam.get_function_concurrency(FunctionName=fn)


def _invalid(message: str) -> dict[str, Any]:
    return {"Error": {"Code": "InvalidParameterValueException", "Message": message}, "Type": "User",
            "message": message, "Status": 400}


def _sources(aws: Callable[..., Any]) -> dict[str, str]:
    """An SQS queue's and a DynamoDB stream's ARNs (the recording's Kinesis stream is not served)."""
    sqs = aws("sqs")
    queue = sqs.create_queue(QueueName=f"rec14-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    table = aws("dynamodb").create_table(
        TableName=f"rec14-{uuid.uuid4().hex[:8]}", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})  # fmt: skip
    return {"sqs": sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"],
            "dynamodb": table["TableDescription"]["LatestStreamArn"]}


@pytest.mark.parametrize("source", ["sqs", "dynamodb"])
def test_mapping_starting_position_refusals(aws: Callable[..., Any], admin: str, source: str) -> None:
    """event_source_mapping/test_api.snapshot.json test_create_starting_position_validation_exceptions[sqs]
    and [dynamodb] (2025-02): an unknown position in AWS's enum order, a timestamp without AT_TIMESTAMP,
    AT_TIMESTAMP on a DynamoDB stream; nothing is created."""
    lam = aws("lambda")
    unchecked = aws("lambda", config=botocore.config.Config(parameter_validation=False,
                                                            retries={"max_attempts": 1}))  # fmt: skip
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=admin, Handler="app.handler",
                        Code={"ZipFile": zip_of()})  # fmt: skip
    arn = _sources(aws)[source]
    now = int(time.time())
    enum = ("1 validation error detected: Value '0' at 'startingPosition' failed to satisfy constraint: Member "
            "must satisfy enum value set: [LATEST, AT_TIMESTAMP, TRIM_HORIZON]")
    unknown = refused(unchecked.create_event_source_mapping, FunctionName=name, EventSourceArn=arn,
                      StartingPosition="0")  # fmt: skip
    assert unknown == {"Error": {"Code": "ValidationException", "Message": enum}, "Status": 400}
    latest = refused(lam.create_event_source_mapping, FunctionName=name, EventSourceArn=arn,
                     StartingPosition="LATEST", StartingPositionTimestamp=now)  # fmt: skip
    negative = refused(lam.create_event_source_mapping, FunctionName=name, EventSourceArn=arn,
                       StartingPosition="AT_TIMESTAMP", StartingPositionTimestamp=-now)  # fmt: skip
    if source == "sqs":
        assert latest == negative == _invalid("StartingPosition is not valid for SQS event sources.")
    else:
        assert latest == _invalid("Timestamp only valid with StartingPosition AT_TIMESTAMP")
        assert negative == _invalid(f"Unsupported starting position for arn type: {arn}")
    assert lam.list_event_source_mappings(FunctionName=name)["EventSourceMappings"] == []


PRINTS = "import json\n\n\ndef handler(event, context):\n    print('EVENT ' + json.dumps(event))\n    return {}\n"


def _printed_events(aws: Callable[..., Any], function: str) -> list[dict[str, Any]]:
    """The events the function printed, read back from its log group once there are any."""
    for _ in range(300):  # polled until the mapping has delivered (no time bound asserted)
        try:
            found = aws("logs").filter_log_events(logGroupName=f"/aws/lambda/{function}")["events"]
        except ClientError:
            found = []
        events = [json.loads(e["message"][len("EVENT "):]) for e in found if e["message"].startswith("EVENT ")]
        if events:
            return events
        time.sleep(0.2)
    raise AssertionError("no event delivered")


def test_an_sqs_record_as_recorded(aws: Callable[..., Any], admin: str) -> None:
    """event_source_mapping/test_lambda_integration_sqs.snapshot.json TestSQSEventSourceMapping
    test_sqs_event_source_mapping (2023-02): the mapping's answer, and the record of a message without
    attributes: md5OfMessageAttributes is there, null; keys in the recording's order."""
    lam, sqs = aws("lambda"), aws("sqs")
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=admin, Handler="app.handler",
                        Code={"ZipFile": zip_of(PRINTS)})  # fmt: skip
    queue = sqs.create_queue(QueueName=f"rec14-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    created = lam.create_event_source_mapping(FunctionName=name, EventSourceArn=queue_arn, BatchSize=10,
                                              MaximumBatchingWindowInSeconds=1)  # fmt: skip
    recorded = {"BatchSize": 10, "FunctionResponseTypes": [], "MaximumBatchingWindowInSeconds": 1,
                "State": "Creating", "StateTransitionReason": "USER_INITIATED"}
    assert {k: created[k] for k in recorded} == recorded
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 202
    sqs.send_message(QueueUrl=queue, MessageBody=json.dumps({"foo": "bar"}))
    [event] = _printed_events(aws, name)
    [record] = event["Records"]
    assert list(record) == ["messageId", "receiptHandle", "body", "attributes", "messageAttributes",
                            "md5OfMessageAttributes", "md5OfBody", "eventSource", "eventSourceARN", "awsRegion"]
    assert list(record["attributes"]) == ["ApproximateReceiveCount", "SentTimestamp", "SenderId",
                                          "ApproximateFirstReceiveTimestamp"]  # fmt: skip
    assert record["md5OfMessageAttributes"] is None and record["messageAttributes"] == {}
    assert (record["body"], record["eventSource"], record["eventSourceARN"], record["awsRegion"]) == (
        '{"foo": "bar"}', "aws:sqs", queue_arn, "us-east-1")


# The recordings' introspection handler (its return value, as test_lambda_common's python handler has it).
INTROSPECT = """import json
import os


def handler(event, context):
    return {"environment": dict(os.environ), "ctx": {
        "function_name": context.function_name, "function_version": context.function_version,
        "invoked_function_arn": context.invoked_function_arn, "memory_limit_in_mb": context.memory_limit_in_mb,
        "log_group_name": context.log_group_name}, "packages": []}
"""


@pytest.mark.parametrize(("runtime", "has_lc_ctype"), [("python3.11", False), ("python3.12", True)])
def test_the_introspected_runtime(aws: Callable[..., Any], role: str, runtime: str, has_lc_ctype: bool) -> None:
    """test_lambda_common.snapshot.json TestLambdaRuntimesCommon test_introspection_invoke[python3.11] and
    [python3.12] (2023-11): the context as the handler reads it (memory_limit_in_mb a string), qualified
    and not; LC_CTYPE=C.UTF-8 in the Amazon Linux 2023 image's environment only (3.12), not 3.11's.
    (Paths in /var/task's place and onceflow's own AWS_ENDPOINT_URL differ by design.)"""
    lam = aws("lambda")
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime=runtime, Role=role, Handler="handler.handler", MemorySize=1024,
                        Environment={"Variables": {"TEST_KEY": "TEST_VAL"}},
                        Code={"ZipFile": zip_of(INTROSPECT, name="handler.py")})  # fmt: skip
    for qualifier, arn in ((None, f"{ARN}{name}"), ("$LATEST", f"{ARN}{name}:$LATEST")):
        params = {"FunctionName": name, **({"Qualifier": qualifier} if qualifier else {})}
        out = json.loads(lam.invoke(**params)["Payload"].read())
        assert out["ctx"] == {"function_name": name, "function_version": "$LATEST", "invoked_function_arn": arn,
                              "memory_limit_in_mb": "1024", "log_group_name": f"/aws/lambda/{name}"}  # fmt: skip
        env = out["environment"]
        assert (env["AWS_EXECUTION_ENV"], env["TEST_KEY"], env["PYTHONPATH"]) == (
            f"AWS_Lambda_{runtime}", "TEST_VAL", "/var/runtime")
        assert ("LC_CTYPE" in env) is has_lc_ctype
        if has_lc_ctype:
            assert env["LC_CTYPE"] == "C.UTF-8"


def test_a_mapping_created_disabled_then_enabled(aws: Callable[..., Any], admin: str) -> None:
    """event_source_mapping/test_lambda_integration_sqs.snapshot.json test_fifo_message_group_parallelism
    (2024-07): created with Enabled=False it answers State Disabled (202), enabled by an update it answers
    Enabling (202), then reads Enabled; a later change of something else answers Updating
    (test_sqs_event_source_mapping_update, 2023-10)."""
    lam, sqs = aws("lambda"), aws("sqs")
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=admin, Handler="app.handler",
                        Code={"ZipFile": zip_of()})  # fmt: skip
    queue = sqs.create_queue(QueueName=f"rec14-{uuid.uuid4().hex[:8]}.fifo",
                             Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"})["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    created = lam.create_event_source_mapping(FunctionName=name, EventSourceArn=queue_arn, Enabled=False,
                                              BatchSize=1)  # fmt: skip
    assert (created["State"], created["ResponseMetadata"]["HTTPStatusCode"]) == ("Disabled", 202)
    enabling = lam.update_event_source_mapping(UUID=created["UUID"], Enabled=True)
    assert (enabling["State"], enabling["ResponseMetadata"]["HTTPStatusCode"]) == ("Enabling", 202)
    assert lam.get_event_source_mapping(UUID=created["UUID"])["State"] == "Enabled"
    assert lam.update_event_source_mapping(UUID=created["UUID"], BatchSize=2)["State"] == "Updating"


def test_a_stream_record_with_a_binary_attribute(aws: Callable[..., Any], admin: str) -> None:
    """event_source_mapping/test_lambda_integration_dynamodbstreams.snapshot.json TestDynamoDBEventSourceMapping
    test_dynamodb_event_source_mapping (2025-02): an item with a binary attribute reaches the function, the
    bytes as base64 text, the record as recorded (onceflow's poller failed on the bytes and never delivered);
    a disabling update answers Disabling (test_disabled_dynamodb_event_source_mapping, 2024-10)."""
    lam, ddb = aws("lambda"), aws("dynamodb")
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=admin, Handler="app.handler",
                        Code={"ZipFile": zip_of(PRINTS)})  # fmt: skip
    table = f"rec14-{uuid.uuid4().hex[:8]}"
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "my_partition_key", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "my_partition_key", "KeyType": "HASH"}])  # fmt: skip
    stream = ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": True,
                              "StreamViewType": "NEW_IMAGE"})["TableDescription"]["LatestStreamArn"]  # fmt: skip
    mapping = lam.create_event_source_mapping(FunctionName=name, EventSourceArn=stream, BatchSize=1,
                                              StartingPosition="TRIM_HORIZON", MaximumBatchingWindowInSeconds=1,
                                              MaximumRetryAttempts=1)  # fmt: skip
    ddb.put_item(TableName=table, Item={"my_partition_key": {"S": "hello world"}, "binary_key": {"B": b"foobar"}})
    [event] = _printed_events(aws, name)
    [record] = event["Records"]
    assert {k: record[k] for k in ("eventName", "eventVersion", "eventSource", "awsRegion", "eventSourceARN")} == {
        "eventName": "INSERT", "eventVersion": "1.1", "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
        "eventSourceARN": stream}
    image = record["dynamodb"]
    assert (image["Keys"], image["NewImage"], image["SizeBytes"], image["StreamViewType"]) == (
        {"my_partition_key": {"S": "hello world"}},
        {"binary_key": {"B": "Zm9vYmFy"}, "my_partition_key": {"S": "hello world"}}, 70, "NEW_IMAGE")
    # a JSON float (test_dynamodb_event_filter asserts it of AWS's records, 2024-10)
    assert isinstance(image["ApproximateCreationDateTime"], float)
    assert lam.update_event_source_mapping(UUID=mapping["UUID"], Enabled=False)["State"] == "Disabling"


def test_a_second_mapping_of_one_stream_to_one_function(aws: Callable[..., Any], admin: str) -> None:
    """event_source_mapping/test_lambda_integration_dynamodbstreams.snapshot.json
    test_duplicate_event_source_mappings (2024-10): a stream's words differ from SQS's
    ('The event source arn (" ... ") and function (" ... ") provided mapping already exists. ...')."""
    lam = aws("lambda")
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=admin, Handler="app.handler",
                        Code={"ZipFile": zip_of()})  # fmt: skip
    stream = _sources(aws)["dynamodb"]
    first = lam.create_event_source_mapping(FunctionName=name, EventSourceArn=stream, StartingPosition="TRIM_HORIZON")
    message = (f'The event source arn (" {stream} ") and function (" {name} ") provided mapping already exists. '
               f"Please update or delete the existing mapping with UUID {first['UUID']}")
    again = refused(lam.create_event_source_mapping, FunctionName=name, EventSourceArn=stream,
                    StartingPosition="TRIM_HORIZON")  # fmt: skip
    assert again == {"Error": {"Code": "ResourceConflictException", "Message": message}, "Type": "User",
                     "message": message, "Status": 409}


FAILS = "def handler(event, context):\n    raise RuntimeError('always')\n"


def test_a_stream_batch_kept_in_an_s3_bucket(aws: Callable[..., Any], admin: str) -> None:
    """event_source_mapping/test_lambda_integration_dynamodbstreams.snapshot.json
    test_dynamodb_event_source_mapping_with_s3_on_failure_destination (2025-01): an S3 bucket is taken as
    OnFailure destination (onceflow refused it) and the exhausted batch's record lands in it, with the
    invocation's payload beside the metadata."""
    lam, ddb, s3 = aws("lambda"), aws("dynamodb"), aws("s3")
    name = f"rec14-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=admin, Handler="app.handler",
                        Code={"ZipFile": zip_of(FAILS)})  # fmt: skip
    bucket = f"rec14-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    table = f"rec14-{uuid.uuid4().hex[:8]}"
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "my_partition_key", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "my_partition_key", "KeyType": "HASH"}],
                     StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})  # fmt: skip
    stream = ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    created = lam.create_event_source_mapping(
        FunctionName=name, BatchSize=1, StartingPosition="TRIM_HORIZON", EventSourceArn=stream,
        MaximumBatchingWindowInSeconds=1, MaximumRetryAttempts=1,
        DestinationConfig={"OnFailure": {"Destination": f"arn:aws:s3:::{bucket}"}})  # fmt: skip
    assert created["DestinationConfig"] == {"OnFailure": {"Destination": f"arn:aws:s3:::{bucket}"}}
    ddb.put_item(TableName=table, Item={"my_partition_key": {"S": "hello world"}})
    for _ in range(300):  # polled until the batch is given up (no time bound asserted)
        objects = s3.list_objects_v2(Bucket=bucket).get("Contents", [])
        if objects:
            break
        time.sleep(0.2)
    [obj] = objects
    assert obj["Key"].startswith(f"aws/lambda/{created['UUID']}/")
    body = json.loads(s3.get_object(Bucket=bucket, Key=obj["Key"])["Body"].read())
    assert sorted(body) == ["DDBStreamBatchInfo", "payload", "requestContext", "responseContext", "timestamp",
                            "version"]  # fmt: skip
    assert (body["requestContext"]["condition"], body["requestContext"]["approximateInvokeCount"]) == (
        "RetryAttemptsExhausted", 2)
    assert body["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"}
    [record] = body["payload"]["Records"]
    assert record["dynamodb"]["Keys"] == {"my_partition_key": {"S": "hello world"}}
    assert record["eventSourceARN"] == stream and body["DDBStreamBatchInfo"]["batchSize"] == 1
