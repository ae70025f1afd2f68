"""What Lambda service tests build first: a role Lambda may assume, and a zip of one handler file."""

from __future__ import annotations

import io
import json
import time
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

LAMBDA_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
ECHO = "def handler(event, context):\n    return event\n"


def zip_of(source: str = ECHO, name: str = "app.py") -> bytes:
    return zip_with({name: source})


def zip_with(files: dict[str, str]) -> bytes:
    """A zip holding each file (path -> text)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)
    return buf.getvalue()


def lambda_role(aws: Callable[..., Any], prefix: str) -> str:
    """A new role (unique name) that trusts Lambda; its ARN."""
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    return str(aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(LAMBDA_TRUST))["Role"]["Arn"])


def admin_role(aws: Callable[..., Any], prefix: str) -> str:
    """A new role that trusts Lambda and is allowed everything (AWS's recordings used an administrator
    role); its ARN."""
    arn = lambda_role(aws, prefix)
    everything = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
    aws("iam").put_role_policy(RoleName=arn.rsplit("/", 1)[-1], PolicyName="all", PolicyDocument=json.dumps(everything))
    return arn


def provisioning_settled(lam: Any, name: str, qualifier: str) -> dict[str, Any]:
    """Poll GetProvisionedConcurrencyConfig until it leaves IN_PROGRESS, as an AWS user waits after the Put."""
    for _ in range(120):
        got = lam.get_provisioned_concurrency_config(FunctionName=name, Qualifier=qualifier)
        if got["Status"] != "IN_PROGRESS":
            return dict(got)
        time.sleep(0.5)
    raise AssertionError("provisioned concurrency never left IN_PROGRESS")
