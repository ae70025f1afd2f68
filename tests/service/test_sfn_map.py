"""Map batching, tolerated failures, and Distributed Map reading from and writing to S3, through boto3."""

from __future__ import annotations

import csv
import io
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
DISTRIBUTED = {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"}
PASS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"sfn-map-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


@pytest.fixture(scope="module")
def s3(aws: Callable[..., Any]) -> Any:
    return aws("s3")


def machine(sfn: Any, role: str, map_state: dict[str, Any]) -> str:
    definition = {"StartAt": "M", "States": {"M": {"Type": "Map", "End": True, **map_state}}}
    return sfn.create_state_machine(name=f"map-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                    roleArn=role)["stateMachineArn"]


def run(sfn: Any, sm: str, data: Any) -> dict[str, Any]:
    arn = sfn.start_execution(stateMachineArn=sm, input=json.dumps(data))["executionArn"]
    deadline = time.time() + 300  # a 10,000-item map run on a loaded CI machine
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline
        time.sleep(0.05)
    return d


def processor(body: dict[str, Any]) -> dict[str, Any]:
    return {"ProcessorConfig": DISTRIBUTED, **body}


# ---------------------------------------------------------------------- ItemBatcher
def test_batches_of_two_over_one_to_five(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(PASS), "ItemBatcher": {"MaxItemsPerBatch": 2}})
    d = run(sfn, sm, [1, 2, 3, 4, 5])
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [{"Items": [1, 2]}, {"Items": [3, 4]}, {"Items": [5]}]


def test_batch_input_and_the_size_from_a_path(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {
        "ItemProcessor": processor(PASS), "ItemsPath": "$.xs", "ItemSelector": {"v.$": "$$.Map.Item.Value"},
        "ItemBatcher": {"MaxItemsPerBatchPath": "$.size", "BatchInput": {"run.$": "$.run", "fixed": 1}}})
    d = run(sfn, sm, {"xs": [1, 2, 3, 4, 5], "size": 3, "run": "r1"})
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [
        {"BatchInput": {"run": "r1", "fixed": 1}, "Items": [{"v": 1}, {"v": 2}, {"v": 3}]},
        {"BatchInput": {"run": "r1", "fixed": 1}, "Items": [{"v": 4}, {"v": 5}]}]


def test_batches_close_at_the_byte_limit(sfn: Any, role: str) -> None:
    items = ["x" * 10] * 6  # each "xxxxxxxxxx" is 12 bytes of JSON
    sm = machine(sfn, role, {"ItemProcessor": processor(PASS), "ItemBatcher": {"MaxInputBytesPerBatch": 40}})
    d = run(sfn, sm, items)
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    assert [len(b["Items"]) for b in out] == [2, 2, 2]  # {"Items":[a,b]} is 37 bytes; a third makes 50
    assert all(len(json.dumps(b, separators=(",", ":"))) <= 40 for b in out)


# ---------------------------------------------------------------------- tolerated failures
FAIL_ODD = {"StartAt": "C", "States": {
    "C": {"Type": "Choice", "Choices": [{"Variable": "$.n", "NumericEquals": 1, "Next": "Bad"},
                                        {"Variable": "$.n", "NumericEquals": 3, "Next": "Bad"},
                                        {"Variable": "$.n", "NumericEquals": 5, "Next": "Bad"}],
          "Default": "Ok"},
    "Bad": {"Type": "Fail", "Error": "Odd", "Cause": "odd number"},
    "Ok": {"Type": "Pass", "End": True}}}


@pytest.mark.parametrize(("tolerance", "status"), [
    ({"ToleratedFailureCount": 3}, "SUCCEEDED"),
    ({"ToleratedFailureCount": 2}, "FAILED"),
    ({"ToleratedFailurePercentage": 60}, "SUCCEEDED"),
    ({"ToleratedFailurePercentage": 50}, "FAILED"),
    ({"ToleratedFailureCountPath": "$.tolerate"}, "SUCCEEDED"),
])
def test_failures_within_the_tolerance(sfn: Any, role: str, tolerance: dict[str, Any], status: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(FAIL_ODD), "ItemsPath": "$.xs",
                             "ItemSelector": {"n.$": "$$.Map.Item.Value"}, **tolerance})
    d = run(sfn, sm, {"xs": [1, 2, 3, 4, 5], "tolerate": 3})
    assert d["status"] == status, d
    if status == "SUCCEEDED":
        out = json.loads(d["output"])
        assert out[1] == {"n": 2} and out[3] == {"n": 4}
        assert out[0] == out[2] == out[4] == {"Error": "Odd", "Cause": "odd number"}
    else:
        assert d["error"] == "States.ExceedToleratedFailureThreshold"
        assert d["cause"] == "The specified tolerated failure threshold was exceeded"


def test_no_tolerance_fails_on_the_first_failure(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(FAIL_ODD), "ItemSelector": {"n.$": "$$.Map.Item.Value"}})
    d = run(sfn, sm, [2, 3])
    assert (d["status"], d["error"], d["cause"]) == ("FAILED", "Odd", "odd number")


# ---------------------------------------------------------------------- ItemReader / ResultWriter over S3
@pytest.fixture(scope="module")
def bucket(s3: Any) -> str:
    name = f"map-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    return name


def read_json(s3: Any, bucket: str, key: str) -> Any:
    return json.loads(s3.get_object(Bucket=bucket, Key=key)["Body"].read())


@pytest.mark.slow
def test_a_csv_of_10000_lines_read_and_written_back(sfn: Any, s3: Any, role: str, bucket: str) -> None:
    """The issue's own scale: a 10,000-line CSV in S3, every line a child execution, the results written back."""
    lines = 10_000
    text = io.StringIO()
    w = csv.writer(text)
    w.writerow(["id", "name"])
    for i in range(lines):
        w.writerow([i, f"name {i}"])
    s3.put_object(Bucket=bucket, Key="in/data.csv", Body=text.getvalue().encode())
    sm = machine(sfn, role, {
        "ItemProcessor": processor({"StartAt": "P", "States": {"P": {
            "Type": "Pass", "Parameters": {"id.$": "States.StringToJson($.id)", "name.$": "$.name"}, "End": True}}}),
        "ItemReader": {"Resource": "arn:aws:states:::s3:getObject",
                       "ReaderConfig": {"InputType": "CSV", "CSVHeaderLocation": "FIRST_ROW"},
                       "Parameters": {"Bucket.$": "$.bucket", "Key": "in/data.csv"}},
        "ResultWriter": {"Resource": "arn:aws:states:::s3:putObject",
                         "Parameters": {"Bucket.$": "$.bucket", "Prefix": "out"}}})
    d = run(sfn, sm, {"bucket": bucket})
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    run_arn = out["MapRunArn"]
    run_id = run_arn.rsplit(":", 1)[1]
    assert ":mapRun:" in run_arn and run_arn.split(":mapRun:")[1].startswith(sm.rsplit(":", 1)[1] + "/M:")
    assert out["ResultWriterDetails"] == {"Bucket": bucket, "Key": f"out/{run_id}/manifest.json"}
    manifest = read_json(s3, bucket, f"out/{run_id}/manifest.json")
    key = f"out/{run_id}/SUCCEEDED_0.json"
    size = s3.head_object(Bucket=bucket, Key=key)["ContentLength"]
    assert manifest == {"DestinationBucket": bucket, "MapRunArn": run_arn,
                        "ResultFiles": {"FAILED": [], "PENDING": [], "SUCCEEDED": [{"Key": key, "Size": size}]}}
    records = read_json(s3, bucket, key)
    assert len(records) == lines
    assert sorted(json.loads(r["Output"])["id"] for r in records) == list(range(lines))
    first = next(r for r in records if json.loads(r["Input"]) == {"id": "0", "name": "name 0"})
    assert json.loads(first["Output"]) == {"id": 0, "name": "name 0"}
    assert first["Status"] == "SUCCEEDED" and first["InputDetails"] == {"Included": True}
    assert first["ExecutionArn"].split(":execution:")[1].startswith(sm.rsplit(":", 1)[1] + "/M:")
    assert first["StateMachineArn"].endswith(f":stateMachine:{sm.rsplit(':', 1)[1]}/M")
    assert {"StartDate", "StopDate", "Name", "RedriveCount", "RedriveStatus"} <= set(first)
    pages = sfn.get_paginator("list_executions").paginate(mapRunArn=run_arn, PaginationConfig={"PageSize": 1000})
    children = [c["executionArn"] for page in pages for c in page["executions"]]
    assert len(children) == lines and {r["ExecutionArn"] for r in records} == set(children)


@pytest.mark.parametrize(("body", "config", "expected"), [
    (b'[{"a": 1}, {"a": 2}, {"a": 3}]', {"InputType": "JSON"}, [{"a": 1}, {"a": 2}, {"a": 3}]),
    (b'{"a": 1}\n{"a": 2}\n\n{"a": 3}\n', {"InputType": "JSONL", "MaxItems": 2}, [{"a": 1}, {"a": 2}]),
    (b"1,x\n2,y\n", {"InputType": "CSV", "CSVHeaderLocation": "GIVEN", "CSVHeaders": ["n", "s"]},
     [{"n": "1", "s": "x"}, {"n": "2", "s": "y"}]),
    (b"n;s\n1;x\n", {"InputType": "CSV", "CSVHeaderLocation": "FIRST_ROW", "CSVDelimiter": "SEMICOLON"},
     [{"n": "1", "s": "x"}]),
])
def test_object_formats(sfn: Any, s3: Any, role: str, bucket: str, body: bytes, config: dict[str, Any],
                        expected: list[Any]) -> None:
    key = f"formats/{uuid.uuid4().hex}"
    s3.put_object(Bucket=bucket, Key=key, Body=body)
    sm = machine(sfn, role, {"ItemProcessor": processor(PASS), "ItemReader": {
        "Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": config,
        "Parameters": {"Bucket": bucket, "Key": key}}})
    d = run(sfn, sm, {})
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == expected


def test_list_objects_v2_with_max_items_from_a_path(sfn: Any, s3: Any, role: str, bucket: str) -> None:
    for name in ("a", "b", "c"):
        s3.put_object(Bucket=bucket, Key=f"listed/{name}.txt", Body=name.encode() * 3)
    sm = machine(sfn, role, {"ItemProcessor": processor(PASS), "ItemReader": {
        "Resource": "arn:aws:states:::s3:listObjectsV2", "ReaderConfig": {"MaxItemsPath": "$.max"},
        "Parameters": {"Bucket": bucket, "Prefix": "listed/"}}})
    d = run(sfn, sm, {"max": 2})
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    listed = s3.list_objects_v2(Bucket=bucket, Prefix="listed/")["Contents"]
    assert [o["Key"] for o in out] == ["listed/a.txt", "listed/b.txt"]
    assert out[0]["Etag"] == listed[0]["ETag"] and out[0]["Size"] == 3 and out[0]["StorageClass"] == "STANDARD"
    assert out[0]["LastModified"] == int(listed[0]["LastModified"].timestamp())


def test_a_missing_object_fails_the_reader(sfn: Any, role: str, bucket: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(PASS), "ItemReader": {
        "Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": {"InputType": "JSON"},
        "Parameters": {"Bucket": bucket, "Key": "nope.json"}}})
    d = run(sfn, sm, {})
    assert (d["status"], d["error"]) == ("FAILED", "States.ItemReaderFailed")
    assert "NoSuchKey" in d["cause"]


def test_failed_iterations_within_tolerance_go_to_failed_0(sfn: Any, s3: Any, role: str, bucket: str) -> None:
    sm = machine(sfn, role, {
        "ItemProcessor": processor(FAIL_ODD), "ItemSelector": {"n.$": "$$.Map.Item.Value"},
        "ToleratedFailureCount": 5,
        "ResultWriter": {"Resource": "arn:aws:states:::s3:putObject",
                         "Parameters": {"Bucket": bucket, "Prefix": "tolerated/"}}})
    d = run(sfn, sm, [1, 2, 3])
    assert d["status"] == "SUCCEEDED", d
    manifest = read_json(s3, bucket, json.loads(d["output"])["ResultWriterDetails"]["Key"])
    assert [len(manifest["ResultFiles"][k]) for k in ("FAILED", "PENDING", "SUCCEEDED")] == [1, 0, 1]
    failed = read_json(s3, bucket, manifest["ResultFiles"]["FAILED"][0]["Key"])
    assert sorted(json.loads(r["Input"])["n"] for r in failed) == [1, 3]
    assert {(r["Status"], r["Error"], r["Cause"]) for r in failed} == {("FAILED", "Odd", "odd number")}
    assert all("Output" not in r for r in failed)
    ok = read_json(s3, bucket, manifest["ResultFiles"]["SUCCEEDED"][0]["Key"])
    assert [json.loads(r["Output"]) for r in ok] == [{"n": 2}]


# ---------------------------------------------------------------------- CreateStateMachine's checks
@pytest.mark.parametrize(("fields", "message"), [
    ({"ItemBatcher": {}}, "At least one of these fields is required: [MaxItemsPerBatch, MaxItemsPerBatchPath, "
                          "MaxInputBytesPerBatch, MaxInputBytesPerBatchPath] at /States/M/ItemBatcher"),
    ({"ItemBatcher": {"MaxItemsPerBatch": 2, "MaxItemsPerBatchPath": "$.n"}},
     "Only one of these fields is allowed: [MaxItemsPerBatch, MaxItemsPerBatchPath] at /States/M/ItemBatcher"),
    ({"ItemBatcher": {"MaxItemsPerBatch": 0}},
     "The value for the field 'MaxItemsPerBatch' must be a positive integer at /States/M/ItemBatcher/MaxItemsPerBatch"),
    ({"ItemBatcher": {"MaxInputBytesPerBatch": 262145}}, "The value for the field 'MaxInputBytesPerBatch' must be a "
     "positive integer between 1 and 262144 at /States/M/ItemBatcher/MaxInputBytesPerBatch"),
    ({"ItemBatcher": {"MaxItemsPerBatch": 2, "Size": 3}}, "Field 'Size' is not supported at /States/M/ItemBatcher"),
    ({"ItemReader": {"Resource": "arn:aws:states:::s3:getObject", "Parameters": {"Bucket": "b", "Key": "k"}}},
     "These fields are required: [InputType] at /States/M/ItemReader/ReaderConfig"),
    ({"ItemReader": {"Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": {"InputType": "XML"}}},
     "The field 'InputType' should have one of these values: [CSV, JSON, JSONL, MANIFEST] at "
     "/States/M/ItemReader/ReaderConfig/InputType"),
    ({"ResultWriter": {"Resource": "arn:aws:states:::s3:getObject", "Parameters": {"Bucket": "b"}}},
     "The field 'Resource' should have one of these values: [arn:aws:states:::s3:putObject] at "
     "/States/M/ResultWriter/Resource"),
])
def test_bad_map_fields_are_refused(sfn: Any, role: str, fields: dict[str, Any], message: str) -> None:
    before = len(sfn.list_state_machines()["stateMachines"])
    with pytest.raises(sfn.exceptions.InvalidDefinition) as info:
        machine(sfn, role, {"ItemProcessor": processor(PASS), **fields})
    assert message in info.value.response["Error"]["Message"]
    assert len(sfn.list_state_machines()["stateMachines"]) == before


# ---------------------------------------------------------------------- aws-sdk:s3:*
def test_aws_sdk_s3_put_get_list(sfn: Any, s3: Any, role: str, bucket: str) -> None:
    definition = {"StartAt": "Put", "States": {
        "Put": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:putObject",
                "Parameters": {"Bucket": bucket, "Key": "sdk/hello.txt", "Body.$": "$.text"},
                "ResultPath": "$.put", "Next": "Get"},
        "Get": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:getObject",
                "Parameters": {"Bucket": bucket, "Key": "sdk/hello.txt"}, "ResultPath": "$.got", "Next": "List"},
        "List": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:listObjectsV2",
                 "Parameters": {"Bucket": bucket, "Prefix": "sdk/"}, "ResultPath": "$.listed", "Next": "Missing"},
        "Missing": {"Type": "Task", "Resource": "arn:aws:states:::aws-sdk:s3:getObject",
                    "Parameters": {"Bucket": bucket, "Key": "sdk/none"},
                    "Catch": [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.error", "Next": "Done"}],
                    "End": True},
        "Done": {"Type": "Succeed"}}}
    sm = sfn.create_state_machine(name=f"sdk-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                  roleArn=role)["stateMachineArn"]
    d = run(sfn, sm, {"text": "hello from a workflow"})
    assert d["status"] == "SUCCEEDED", (d.get("error"), d.get("cause"))
    out = json.loads(d["output"])
    assert s3.get_object(Bucket=bucket, Key="sdk/hello.txt")["Body"].read() == b"hello from a workflow"
    assert out["got"]["Body"] == "hello from a workflow"
    assert out["put"]["ETag"] == s3.head_object(Bucket=bucket, Key="sdk/hello.txt")["ETag"]
    assert [o["Key"] for o in out["listed"]["Contents"]] == ["sdk/hello.txt"]
    assert out["error"]["Error"] == "S3.NoSuchKeyException"
    assert out["error"]["Cause"].startswith(
        "The specified key does not exist. (Service: S3, Status Code: 404, Request ID: ")


# ---------------------------------------------------------------------- WriterConfig, Label, JSONata
PAIRS = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Parameters": ["$$.Map.Item.Value"], "End": True}}}
PAIR = {"StartAt": "P", "States": {"P": {"Type": "Pass", "Parameters": {"pair.$": "States.Array($.v, $.v)"},
                                         "OutputPath": "$.pair", "End": True}}}


@pytest.mark.parametrize(("transformation", "expected"), [
    ("FLATTEN", [1, 1, 2, 2]),
    ("COMPACT", [[1, 1], [2, 2]]),
])
def test_writer_config_alone_shapes_the_result(sfn: Any, role: str, transformation: str, expected: Any) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(PAIR), "ItemSelector": {"v.$": "$$.Map.Item.Value"},
                             "ResultWriter": {"WriterConfig": {"Transformation": transformation,
                                                               "OutputType": "JSON"}}})
    d = run(sfn, sm, [1, 2])
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == expected


def test_compact_json_lines_in_s3_and_the_label_in_the_map_run(sfn: Any, s3: Any, role: str, bucket: str) -> None:
    sm = machine(sfn, role, {
        "ItemProcessor": processor(PASS), "Label": "Rows",
        "ResultWriter": {"Resource": "arn:aws:states:::s3:putObject", "Parameters": {"Bucket": bucket},
                         "WriterConfig": {"Transformation": "COMPACT", "OutputType": "JSONL"}}})
    d = run(sfn, sm, [{"a": 1}, {"a": 2}])
    assert d["status"] == "SUCCEEDED", d
    out = json.loads(d["output"])
    assert out["MapRunArn"].split(":mapRun:")[1].startswith(sm.rsplit(":", 1)[1] + "/Rows:")
    manifest = read_json(s3, bucket, out["ResultWriterDetails"]["Key"])
    key = manifest["ResultFiles"]["SUCCEEDED"][0]["Key"]
    assert key == f"{out['MapRunArn'].rsplit(':', 1)[1]}/SUCCEEDED_0.json"  # no Prefix: under the run's id
    body = s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode()
    assert body == '{"a":1}\n{"a":2}\n'


def test_jsonata_reader_arguments_and_max_items(sfn: Any, s3: Any, role: str, bucket: str) -> None:
    s3.put_object(Bucket=bucket, Key="jsonata/items.json", Body=b"[10, 20, 30, 40]")
    definition = {"QueryLanguage": "JSONata", "StartAt": "M", "States": {"M": {
        "Type": "Map", "End": True,
        "ItemProcessor": {"ProcessorConfig": DISTRIBUTED, "StartAt": "P",
                          "States": {"P": {"Type": "Pass", "Output": "{% $states.input * 2 %}", "End": True}}},
        "ItemReader": {"Resource": "arn:aws:states:::s3:getObject",
                       "ReaderConfig": {"InputType": "JSON", "MaxItems": "{% $states.input.max %}"},
                       "Arguments": {"Bucket": "{% $states.input.bucket %}", "Key": "jsonata/items.json"}}}}}
    sm = sfn.create_state_machine(name=f"map-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                  roleArn=role)["stateMachineArn"]
    d = run(sfn, sm, {"bucket": bucket, "max": 3})
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [20, 40, 60]


def test_a_failed_batch_counts_all_its_items(sfn: Any, role: str) -> None:
    fails_with_one = {"StartAt": "C", "States": {
        "C": {"Type": "Choice", "Choices": [{"Variable": "$.Items[0]", "NumericEquals": 1, "Next": "Bad"}],
              "Default": "Ok"},
        "Bad": {"Type": "Fail", "Error": "Bad", "Cause": "a batch with 1"},
        "Ok": {"Type": "Pass", "End": True}}}
    for tolerated, status in ((2, "FAILED"), (3, "SUCCEEDED")):  # the failed batch holds 3 of the 6 items
        sm = machine(sfn, role, {"ItemProcessor": processor(fails_with_one), "ItemBatcher": {"MaxItemsPerBatch": 3},
                                 "ToleratedFailureCount": tolerated})
        d = run(sfn, sm, [1, 2, 3, 4, 5, 6])
        assert d["status"] == status, (tolerated, d.get("error"))
    assert json.loads(d["output"]) == [{"Error": "Bad", "Cause": "a batch with 1"}, {"Items": [4, 5, 6]}]


def test_a_tolerance_path_to_a_string_fails_the_execution(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor(PASS), "ItemsPath": "$.xs",
                             "ToleratedFailurePercentagePath": "$.p"})
    d = run(sfn, sm, {"xs": [1], "p": "ten"})
    assert (d["status"], d["error"]) == ("FAILED", "States.Runtime")
    # AWS's words are "a valid float" (recorded for ToleratedFailurePercentagePath)
    assert d["cause"].endswith('The ToleratedFailurePercentagePath field refers to value "ten" which is not a valid '
                               'float: $.p')


@pytest.mark.parametrize(("fields", "message"), [
    ({"ToleratedFailurePercentage": 101}, "The value for the field 'ToleratedFailurePercentage' must be a number "
                                          "between 0 and 100 at /States/M/ToleratedFailurePercentage"),
    ({"ToleratedFailureCount": -1}, "The value for the field 'ToleratedFailureCount' must be a non-negative "
                                    "integer at /States/M/ToleratedFailureCount"),
    ({"ToleratedFailureCount": 1, "ToleratedFailureCountPath": "$.n"},
     "Only one of these fields is allowed: [ToleratedFailureCount, ToleratedFailureCountPath] at /States/M"),
])
def test_bad_tolerances_are_refused(sfn: Any, role: str, fields: dict[str, Any], message: str) -> None:
    with pytest.raises(sfn.exceptions.InvalidDefinition) as info:
        machine(sfn, role, {"ItemProcessor": processor(PASS), **fields})
    assert message in info.value.response["Error"]["Message"]


def test_a_jsonata_batch_size_that_is_not_a_number_fails_the_state(sfn: Any, role: str) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "M", "States": {"M": {
        "Type": "Map", "End": True, "Items": [1, 2],
        "ItemProcessor": {"ProcessorConfig": DISTRIBUTED, "StartAt": "P", "States": {"P": {"Type": "Pass",
                                                                                           "End": True}}},
        "ItemBatcher": {"MaxItemsPerBatch": "{% 'two' %}"}}}}
    sm = sfn.create_state_machine(name=f"map-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                  roleArn=role)["stateMachineArn"]
    d = run(sfn, sm, {})
    assert (d["status"], d["error"]) == ("FAILED", "States.QueryEvaluationError")
    assert "specified for the field 'MaxItemsPerBatch' returned an unexpected data type." in d["cause"]
