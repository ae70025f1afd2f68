"""Create the prepared environment the seed labs assume, for one name prefix (labex-ev04, labex-ev05):

- `<prefix>-worker-role`: the worker's execution role, trusting lambda.amazonaws.com, allowed
  GetItem/PutItem/UpdateItem on its two tables and to write its CloudWatch Logs;
- `<prefix>-orders`, `<prefix>-attempts` and `<prefix>-reference` tables (the last with one item);
- `<prefix>-worker`: the starter worker (python3.12, app.handler, unconditional write).

Idempotent: what exists is kept (the worker's code is reset to the starter). Plain boto3, so the
same script provisions real AWS when AWS_ENDPOINT_URL is not set.

    python -m onceflow.examples.orders.provision --prefix labex-ev05 [--endpoint-url URL]
"""

from __future__ import annotations

import argparse
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import boto3
from botocore.exceptions import ClientError

HERE = Path(__file__).parent
REFERENCE_ITEM = {"id": {"S": "pricing"}, "unit_cents": {"N": "250"}, "fee_cents": {"N": "100"}}
LAMBDA_TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}


def worker_zip(variant: str = "starter") -> bytes:
    """The worker's deployment package: app.py at the root of the zip, as `zip -j` makes it."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(HERE / variant / "app.py", "app.py")
    return buf.getvalue()


def worker_policy(region: str, account: str, prefix: str) -> dict[str, Any]:
    tables = [f"arn:aws:dynamodb:{region}:{account}:table/{prefix}-{name}" for name in ("orders", "attempts")]
    log_group = f"arn:aws:logs:{region}:{account}:log-group:/aws/lambda/{prefix}-worker"
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
             "Resource": tables},
            {"Effect": "Allow", "Action": "logs:CreateLogGroup", "Resource": f"arn:aws:logs:{region}:{account}:*"},
            {"Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
             "Resource": f"{log_group}:*"},
        ],
    }


def _ensure_role(iam: Any, prefix: str, policy: dict[str, Any]) -> str:
    name = f"{prefix}-worker-role"
    try:
        arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(LAMBDA_TRUST))["Role"]["Arn"]
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "EntityAlreadyExists":
            raise
        arn = iam.get_role(RoleName=name)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="WorkerTables", PolicyDocument=json.dumps(policy))
    return str(arn)


def _ensure_table(ddb: Any, name: str) -> None:
    try:
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                         AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                         KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}])
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ResourceInUseException":
            raise
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})


def _ensure_worker(lam: Any, prefix: str, role_arn: str) -> str:
    name = f"{prefix}-worker"
    env = {"Variables": {"ORDERS_TABLE": f"{prefix}-orders", "ATTEMPTS_TABLE": f"{prefix}-attempts"}}
    code = worker_zip("starter")
    try:
        arn = lam.create_function(FunctionName=name, Runtime="python3.12", Handler="app.handler", Role=role_arn,
                                  Code={"ZipFile": code}, Environment=env, Timeout=30, MemorySize=128)["FunctionArn"]
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "ResourceConflictException":
            raise
        arn = lam.update_function_code(FunctionName=name, ZipFile=code)["FunctionArn"]
    lam.get_waiter("function_active_v2").wait(FunctionName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    return str(arn)


def provision(prefix: str, *, endpoint_url: str | None = None, region: str = "us-east-1",
              session: boto3.session.Session | None = None) -> dict[str, str]:
    """Create (or keep) the prepared environment; return the names and ARNs it made."""
    session = session or boto3.session.Session()
    clients = {name: session.client(name, endpoint_url=endpoint_url, region_name=region)
               for name in ("sts", "iam", "dynamodb", "lambda")}
    account = clients["sts"].get_caller_identity()["Account"]
    role_arn = _ensure_role(clients["iam"], prefix, worker_policy(region, account, prefix))
    for name in ("orders", "attempts", "reference"):
        _ensure_table(clients["dynamodb"], f"{prefix}-{name}")
    clients["dynamodb"].put_item(TableName=f"{prefix}-reference", Item=REFERENCE_ITEM)
    function_arn = _ensure_worker(clients["lambda"], prefix, role_arn)
    return {"account": account, "worker_role_arn": role_arn, "worker_arn": function_arn,
            "orders_table": f"{prefix}-orders", "attempts_table": f"{prefix}-attempts",
            "reference_table": f"{prefix}-reference"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prefix", default="labex-ev05")
    parser.add_argument("--endpoint-url", default=None)
    parser.add_argument("--region", default="us-east-1")
    args = parser.parse_args()
    print(json.dumps(provision(args.prefix, endpoint_url=args.endpoint_url, region=args.region), indent=2))


if __name__ == "__main__":
    main()
