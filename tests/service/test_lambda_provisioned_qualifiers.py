"""Provisioned concurrency status is per config: AWS's GetProvisionedConcurrencyConfig and
ListProvisionedConcurrencyConfigs report a Status per qualifier (API reference,
ProvisionedConcurrencyConfigListItem: one FunctionArn, its own Status and StatusReason), so one
version's pending Put does not show as IN_PROGRESS on another version's FAILED config."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from lambda_setup import lambda_role, provisioning_settled, zip_of

FAILING_INIT = "raise RuntimeError('no init')\ndef handler(event, context):\n    return 'never'\n"
# Slow enough that the reads below come while version 2's workers are still starting.
SLOW_INIT = "import time\ntime.sleep(2)\ndef handler(event, context):\n    return 'warm'\n"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    return lambda_role(aws, "provisioned-qualifiers-role")


def status(config: dict[str, Any]) -> tuple[Any, ...]:
    return config["Status"], config["AllocatedProvisionedConcurrentExecutions"], config.get("StatusReason")


def test_one_versions_pending_put_leaves_anothers_failed_config(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"pcq-{uuid.uuid4().hex[:10]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": zip_of(FAILING_INIT)}, Publish=True)  # fmt: skip
    lam.get_waiter("function_active_v2").wait(FunctionName=name)
    lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier="1", ProvisionedConcurrentExecutions=1)
    failed = provisioning_settled(lam, name, "1")
    assert status(failed) == ("FAILED", 0, "FUNCTION_ERROR_INIT_FAILURE")

    lam.update_function_code(FunctionName=name, ZipFile=zip_of(SLOW_INIT), Publish=True)
    lam.get_waiter("published_version_active").wait(FunctionName=name, Qualifier="2")
    put = lam.put_provisioned_concurrency_config(FunctionName=name, Qualifier="2", ProvisionedConcurrentExecutions=1)
    assert put["Status"] == "IN_PROGRESS"
    # Version 2's provisioning is under way; version 1's config still reads as it was.
    assert status(lam.get_provisioned_concurrency_config(FunctionName=name, Qualifier="1")) == status(failed)
    listed = lam.list_provisioned_concurrency_configs(FunctionName=name)["ProvisionedConcurrencyConfigs"]
    by_arn = {c["FunctionArn"].rsplit(":", 1)[1]: status(c) for c in listed}
    assert by_arn == {"1": status(failed), "2": ("IN_PROGRESS", 0, None)}

    ready = provisioning_settled(lam, name, "2")
    assert status(ready) == ("READY", 1, None)
    assert status(lam.get_provisioned_concurrency_config(FunctionName=name, Qualifier="1")) == status(failed)
