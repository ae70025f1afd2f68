"""Export tasks: a log group's events written to onceflow's S3 as CloudWatch Logs lays them out,
only where the bucket policy lets logs.amazonaws.com in; AWS's errors for a missing group, a
missing bucket, a refusing policy and unknown or finished tasks."""

from __future__ import annotations

import gzip
import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from calls import refused, unique

ACCOUNT = "000000000000"
REGION = "us-east-1"




def export_policy(bucket: str, principal: str = "logs.amazonaws.com", *, put: bool = True) -> str:
    condition = {"StringEquals": {"aws:SourceAccount": ACCOUNT},
                 "ArnLike": {"aws:SourceArn": f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:*"}}
    statements: list[dict[str, Any]] = [
        {"Effect": "Allow", "Principal": {"Service": principal}, "Action": "s3:GetBucketAcl",
         "Resource": f"arn:aws:s3:::{bucket}", "Condition": condition}]
    if put:
        statements.append({"Effect": "Allow", "Principal": {"Service": principal}, "Action": "s3:PutObject",
                           "Resource": f"arn:aws:s3:::{bucket}/*",
                           "Condition": {**condition, "StringEquals": {
                               "aws:SourceAccount": ACCOUNT, "s3:x-amz-acl": "bucket-owner-full-control"}}})
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


@pytest.fixture
def clients(aws: Callable[..., Any]) -> tuple[Any, Any]:
    return aws("logs"), aws("s3")


def group_with_events(logs: Any) -> tuple[str, int]:
    group = f"/export/{unique('g')}"
    logs.create_log_group(logGroupName=group)
    now = int(time.time() * 1000)
    for stream in ("a/one", "b"):
        logs.create_log_stream(logGroupName=group, logStreamName=stream)
        logs.put_log_events(logGroupName=group, logStreamName=stream, logEvents=[
            {"timestamp": now - 1000 + i, "message": f"{stream} line {i}"} for i in range(3)])
    return group, now


def test_export_writes_each_stream_to_the_bucket(clients: tuple[Any, Any]) -> None:
    logs, s3 = clients
    group, now = group_with_events(logs)
    bucket = unique("exports")
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_policy(Bucket=bucket, Policy=export_policy(bucket, "logs.us-east-1.amazonaws.com"))
    task_id = logs.create_export_task(logGroupName=group, taskName="nightly", fromTime=now - 999, to=now,
                                      destination=bucket)["taskId"]
    assert str(uuid.UUID(task_id)) == task_id
    assert s3.get_object(Bucket=bucket, Key="aws-logs-write-test")["Body"].read() == b"Permission Check Successful"
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="exportedlogs/")["Contents"])
    assert keys == [f"exportedlogs/{task_id}/a/one/000000.gz", f"exportedlogs/{task_id}/b/000000.gz"]
    body = gzip.decompress(s3.get_object(Bucket=bucket, Key=keys[1])["Body"].read()).decode()
    stamps = [datetime.fromtimestamp(ts / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
              for ts in (now - 999, now - 998)]
    assert body == f"{stamps[0]} b line 1\n{stamps[1]} b line 2\n"  # the event before fromTime is left out

    (task,) = logs.describe_export_tasks(taskId=task_id)["exportTasks"]
    assert task == {"taskId": task_id, "taskName": "nightly", "logGroupName": group, "from": now - 999, "to": now,
                    "destination": bucket, "destinationPrefix": "exportedlogs", "status": task["status"],
                    "executionInfo": task["executionInfo"]}
    assert task["status"]["code"] == "COMPLETED"
    assert task["executionInfo"]["completionTime"] >= task["executionInfo"]["creationTime"]
    assert task_id in [t["taskId"] for t in logs.describe_export_tasks(statusCode="COMPLETED")["exportTasks"]]
    assert task_id not in [t["taskId"] for t in logs.describe_export_tasks(statusCode="RUNNING")["exportTasks"]]
    assert logs.describe_export_tasks(taskId="not-a-task")["exportTasks"] == []  # snapshot-recorded
    assert refused(logs.cancel_export_task, taskId=task_id) == (
        "InvalidOperationException", "The specified export task has already finished")
    assert refused(logs.cancel_export_task, taskId=str(uuid.uuid4())) == (
        "ResourceNotFoundException", "The specified export task does not exist.")

    prefixed = logs.create_export_task(logGroupName=group, fromTime=0, to=now, destination=bucket,
                                       destinationPrefix="custom", logStreamNamePrefix="a/")["taskId"]
    listed = s3.list_objects_v2(Bucket=bucket, Prefix=f"custom/{prefixed}/")["Contents"]
    assert [o["Key"] for o in listed] == [f"custom/{prefixed}/a/one/000000.gz"]
    lines = gzip.decompress(s3.get_object(Bucket=bucket, Key=listed[0]["Key"])["Body"].read()).decode().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == ["a/one line 0", "a/one line 1", "a/one line 2"]


def test_export_refusals_write_nothing(clients: tuple[Any, Any]) -> None:
    logs, s3 = clients
    group, now = group_with_events(logs)
    bucket = unique("refusing")
    s3.create_bucket(Bucket=bucket)
    acl_refused = ("InvalidParameterException", "GetBucketAcl call on the given bucket failed. Please check if "
                   "CloudWatch Logs has been granted permission to perform this operation.")
    params = {"logGroupName": group, "fromTime": 0, "to": now, "destination": bucket}
    assert refused(logs.create_export_task, **params) == acl_refused  # no bucket policy at all
    s3.put_bucket_policy(Bucket=bucket, Policy=export_policy(bucket, "s3.amazonaws.com"))
    assert refused(logs.create_export_task, **params) == acl_refused  # a policy for another service
    s3.put_bucket_policy(Bucket=bucket, Policy=export_policy(bucket, put=False))
    assert refused(logs.create_export_task, **params)[0] == "InvalidParameterException"  # no s3:PutObject
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)
    assert refused(logs.create_export_task, **{**params, "destination": unique("missing")}) == (
        "InvalidParameterException", "The given bucket does not exist. Please make sure the bucket is valid.")
    assert refused(logs.create_export_task, **{**params, "logGroupName": group + "-gone"}) == (
        "ResourceNotFoundException", "The specified log group does not exist.")
    assert refused(logs.create_export_task, **{**params, "fromTime": now, "to": now - 1})[0] == \
        "InvalidParameterException"
    assert [t for t in logs.describe_export_tasks()["exportTasks"] if t["logGroupName"] == group] == []


def test_the_caller_must_be_allowed_to_write_to_the_bucket(aws: Callable[..., Any]) -> None:
    logs, s3, iam = aws("logs"), aws("s3"), aws("iam")
    group, now = group_with_events(logs)
    bucket = unique("caller")
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_policy(Bucket=bucket, Policy=export_policy(bucket))
    role = unique("exporter")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}]}
    iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(RoleName=role, PolicyName="logs", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "logs:*", "Resource": "*"}]}))

    def as_role() -> Any:
        creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::{ACCOUNT}:role/{role}",
                                       RoleSessionName="exporter")["Credentials"]
        return aws("logs", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                   session_token=creds["SessionToken"])

    params = {"logGroupName": group, "fromTime": 0, "to": now, "destination": bucket}
    assert refused(as_role().create_export_task, **params) == (
        "InvalidParameterException", "Please ensure that the CreateExportTask caller has been granted s3:PutObject "
        "access to the bucket.")
    assert "Contents" not in s3.list_objects_v2(Bucket=bucket)  # refused before anything was written
    iam.put_role_policy(RoleName=role, PolicyName="s3", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:PutObject",
                                                "Resource": f"arn:aws:s3:::{bucket}/*"}]}))
    task = as_role().create_export_task(**params)["taskId"]
    assert logs.describe_export_tasks(taskId=task)["exportTasks"][0]["status"]["code"] == "COMPLETED"
