"""A pytest plugin for bench/moto_suites.py (`--shim-states-role`): moto's Step Functions tests create
state machines with roleArn=arn:aws:iam::123456789012:role/unknown_sf_role (and CloudFormation's with
role/service-role/StatesExecutionRole-us-east-1) without ever creating that role. AWS refuses a role
that does not exist or that Step Functions may not assume, and so does onceflow, so those tests fail
at set-up and hide what they check. Before a CreateStateMachine or UpdateStateMachine, this creates
the named role (with its path) in the caller's account with a trust policy letting
states.amazonaws.com assume it, which is what a user on AWS does first; roles in another account are
left alone (a test of a refusal). It changes what the tests send, not what onceflow answers."""

from __future__ import annotations

import json
from typing import Any

import botocore.client
import botocore.exceptions

STATES_TRUST = json.dumps({
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}],
})
_original = botocore.client.BaseClient._make_api_call


def _ensure_role(client: Any, role_arn: str) -> None:
    parts = role_arn.split(":", 5)
    if len(parts) != 6 or parts[2] != "iam" or not parts[5].startswith("role/"):
        return
    import boto3  # moto's test environment has it; imported late so the plugin loads first

    endpoint = client.meta.endpoint_url
    account = _original(boto3.client("sts", region_name="us-east-1", endpoint_url=endpoint),
                        "GetCallerIdentity", {})["Account"]
    if parts[4] != account:
        return
    *path, name = parts[5][len("role/"):].split("/")
    iam = boto3.client("iam", region_name="us-east-1", endpoint_url=endpoint)
    params = {"RoleName": name, "AssumeRolePolicyDocument": STATES_TRUST,
              "Path": "/" + "".join(p + "/" for p in path)}
    try:
        _original(iam, "CreateRole", params)
    except botocore.exceptions.ClientError:
        pass  # already there, or a name IAM refuses: leave it to the test


def _make_api_call(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
    if (self.meta.service_model.service_name == "stepfunctions"
            and operation_name in ("CreateStateMachine", "UpdateStateMachine")
            and isinstance(api_params.get("roleArn"), str)):
        _ensure_role(self, api_params["roleArn"])
    return _original(self, operation_name, api_params)


def pytest_configure(config: Any) -> None:
    botocore.client.BaseClient._make_api_call = _make_api_call  # type: ignore[method-assign]
