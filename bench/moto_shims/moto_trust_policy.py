"""A pytest plugin for bench/moto_suites.py (`--shim-trust-policy`): moto's Lambda tests create their
role with AssumeRolePolicyDocument="some policy", which IAM refuses (MalformedPolicyDocument, on AWS
and in onceflow), and then retry forever (tests/test_awslambda/utilities.py get_role_name). This
swaps a document that is not JSON, or has no Statement (moto's EventBridge Lambda tests send "{}"),
for a trust policy letting Lambda assume the role, so the Lambda tests reach Lambda. It changes what
the tests send, not what onceflow answers."""

from __future__ import annotations

import json
from typing import Any

import botocore.client

LAMBDA_TRUST = json.dumps({
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
})
_original = botocore.client.BaseClient._make_api_call


def _make_api_call(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
    if operation_name == "CreateRole" and isinstance(api_params.get("AssumeRolePolicyDocument"), str):
        try:
            doc = json.loads(api_params["AssumeRolePolicyDocument"])
        except ValueError:
            doc = None
        if not isinstance(doc, dict) or "Statement" not in doc:  # "some policy", or "{}" (the events suite)
            api_params = {**api_params, "AssumeRolePolicyDocument": LAMBDA_TRUST}
    return _original(self, operation_name, api_params)


def pytest_configure(config: Any) -> None:
    botocore.client.BaseClient._make_api_call = _make_api_call  # type: ignore[method-assign]
