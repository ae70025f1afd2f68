"""Provisioned concurrency's init is not held to the function's Timeout, through boto3 against a real
server. Docs (Understanding the Lambda execution environment lifecycle, Init phase): "The 10-second
timeout doesn't apply to functions that are using provisioned concurrency or SnapStart. For provisioned
concurrency and SnapStart functions, your initialization code can run for up to 15 minutes. The time
limit is 130 seconds or the configured function timeout (maximum 900 seconds), whichever is higher."
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from lambda_setup import lambda_role, provisioning_settled, zip_of

# An init longer than the function's Timeout (1 s), far within provisioned concurrency's 130 s.
LONG_INIT = ("import os, time\ntime.sleep(2)\n"
             "def handler(event, context):\n    return os.environ['AWS_LAMBDA_INITIALIZATION_TYPE']\n")  # fmt: skip


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "s15-pc-init-role")


def test_a_provisioned_init_longer_than_the_timeout_gets_ready(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"pcinit-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler", Timeout=1,
                        Code={"ZipFile": zip_of(LONG_INIT)}, Publish=True)  # fmt: skip
    lam.get_waiter("published_version_active").wait(FunctionName=name, Qualifier="1")
    lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier="1", ProvisionedConcurrentExecutions=1)
    settled = provisioning_settled(lam, name, "1")
    assert (settled["Status"], settled["AllocatedProvisionedConcurrentExecutions"]) == ("READY", 1)
    assert "StatusReason" not in settled
    answer = lam.invoke(FunctionName=name, Qualifier="1")
    assert "FunctionError" not in answer
    assert json.load(answer["Payload"]) == "provisioned-concurrency"
