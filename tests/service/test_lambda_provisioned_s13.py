"""Provisioned concurrency's status as AWS records it (LocalStack's aws-validated
test_lambda_provisioned_concurrency / test_lambda_api snapshots): the Put answers 202 IN_PROGRESS and
a read right after still shows IN_PROGRESS with nothing allocated, until the environments are warm,
then READY with them allocated; invocations meanwhile run on demand. A function whose init fails
gets FAILED with a StatusReason."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from lambda_setup import lambda_role, provisioning_settled, zip_of

# An init slow enough that the Put's answer and the reads after it come before the worker is warm.
SLOW_INIT = '''
import os, time
time.sleep(2)
def handler(event, context):
    return os.environ["AWS_LAMBDA_INITIALIZATION_TYPE"]
'''
FAILING_INIT = "raise RuntimeError('no init')\ndef handler(event, context):\n    return 'never'\n"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "provisioned-s13-role")


def published(aws: Callable[..., Any], role: str, source: str) -> str:
    name = f"pcs-{uuid.uuid4().hex[:10]}"
    lam = aws("lambda")
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": zip_of(source)})  # fmt: skip
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    lam.publish_version(FunctionName=name)
    return name


def counts(config: dict[str, Any]) -> tuple[Any, ...]:
    return (config["Status"], config["RequestedProvisionedConcurrentExecutions"],
            config["AllocatedProvisionedConcurrentExecutions"], config["AvailableProvisionedConcurrentExecutions"])


def test_in_progress_until_warm_then_ready(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = published(aws, role, SLOW_INIT)
    put = lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier="1", ProvisionedConcurrentExecutions=1)
    assert put["ResponseMetadata"]["HTTPStatusCode"] == 202 and counts(put) == ("IN_PROGRESS", 1, 0, 0)
    got = lam.get_provisioned_concurrency_config(FunctionName=name, Qualifier="1")
    assert counts(got) == ("IN_PROGRESS", 1, 0, 0) and "StatusReason" not in got
    listed = lam.list_provisioned_concurrency_configs(FunctionName=name)["ProvisionedConcurrencyConfigs"]
    assert [counts(c) for c in listed] == [("IN_PROGRESS", 1, 0, 0)]
    # Meanwhile an invocation runs on demand, as on AWS.
    answer = lam.invoke(FunctionName=name, Qualifier="1", Payload=b"{}")
    assert json.loads(answer["Payload"].read()) == "on-demand"
    ready = provisioning_settled(lam, name, "1")
    assert counts(ready) == ("READY", 1, 1, 1) and ready["LastModified"] == put["LastModified"]
    listed = lam.list_provisioned_concurrency_configs(FunctionName=name)["ProvisionedConcurrencyConfigs"]
    assert [counts(c) for c in listed] == [("READY", 1, 1, 1)]


def test_failed_init_reads_failed_with_a_reason(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = published(aws, role, FAILING_INIT)
    put = lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier="1", ProvisionedConcurrentExecutions=1)
    assert counts(put) == ("IN_PROGRESS", 1, 0, 0)
    failed = provisioning_settled(lam, name, "1")
    assert counts(failed) == ("FAILED", 1, 0, 0)
    assert failed["StatusReason"] == "FUNCTION_ERROR_INIT_FAILURE"  # as users quote AWS (sst/ion#375)
    listed = lam.list_provisioned_concurrency_configs(FunctionName=name)["ProvisionedConcurrencyConfigs"]
    assert [(counts(c), c["StatusReason"]) for c in listed] == [(counts(failed), failed["StatusReason"])]
