"""Feed a folder of real state machine definitions (public sample collections) to onceflow.

Each `*.json` file under the folder is one Amazon States Language definition, as its repository
has it: `${Name}` placeholders (SAM/CDK DefinitionSubstitutions, Terraform templatefile) are
filled in with a plausible value guessed from the name, the way a deploy would. Every definition
goes through ValidateStateMachineDefinition and CreateStateMachine on a fresh onceflow server
(`--in-memory`, a free loopback port, a role that trusts states.amazonaws.com); the script prints
each refusal and the counts. A file whose name contains `.express.` is created as EXPRESS.

The definitions themselves are not part of onceflow (they stay where they were collected, e.g.
/work/sfn-samples); this script is the measurement.

    python bench/sfn_samples.py /work/sfn-samples [--endpoint http://127.0.0.1:4566] [--show-ok]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from moto_suites import free_port, start_server

ACCOUNT, REGION = "123456789012", "us-east-1"
_PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")
TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}


def guess(name: str) -> str:
    """A deploy-time value for one substitution, by what its name says it is."""
    raw = name.split(".")[-2] if name.count(".") >= 2 else name  # Terraform: aws_lambda_function.x.arn
    short = re.sub(r"[^A-Za-z0-9_-]", "", raw)[:60] or "x"
    n = name.lower()
    arn = f"arn:aws:{{}}:{REGION}:{ACCOUNT}:{{}}"
    sam = re.fullmatch(r"ddb(put|get|update|delete)item", n)  # SAM's policy-template style names
    if sam:
        return f"arn:aws:states:::dynamodb:{sam.group(1)}Item"
    if n.endswith("action"):  # SAM templates pass whole integration ARNs, e.g. SQSSendMessageAction
        if "sqs" in n:
            return "arn:aws:states:::sqs:sendMessage.waitForTaskToken"
        if "sns" in n:
            return "arn:aws:states:::sns:publish"
    if "activity" in n:
        return arn.format("states", f"activity:{short}")
    if "statemachine" in n or "state_machine" in n or ("sfn" in n and "arn" in n):
        return arn.format("states", f"stateMachine:{short}")
    if "function" in n or "lambda" in n or n.endswith("fn") or "fnarn" in n:
        return arn.format("lambda", f"function:{short}") if "arn" in n or "name" not in n else short
    if "topic" in n or "sns" in n:
        return arn.format("sns", short)
    if "queue" in n or "sqs" in n:
        return arn.format("sqs", short) if "arn" in n else f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{short}"
    if "bucket" in n:
        return short.lower().replace("_", "-")
    if "bus" in n:
        return short
    if "role" in n:
        return f"arn:aws:iam::{ACCOUNT}:role/{short}"
    if any(w in n for w in ("limit", "count", "seconds", "timeout", "max", "size", "number")):
        return "5"
    if n in ("partition", "aws::partition"):
        return "aws"
    if "region" in n:
        return REGION
    if "account" in n:
        return ACCOUNT
    return short


_RESOURCE = re.compile(r'("Resource"\s*:\s*")\$\{([^}]+)\}(")')


def resource(name: str) -> str:
    """A placeholder that is a Task's whole Resource: an integration or activity ARN if its name says
    so, else (SAM's `!GetAtt Fn.Arn`, the common case) a Lambda function's ARN."""
    value = guess(name)
    if value.startswith(("arn:aws:states:", "arn:aws:lambda:")):
        return value
    return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{re.sub(r'[^A-Za-z0-9_-]', '', name)[:60]}"


def substitute(text: str) -> str:
    text = _RESOURCE.sub(lambda m: m.group(1) + resource(m.group(2)) + m.group(3), text)
    return _PLACEHOLDER.sub(lambda m: guess(m.group(1)), text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path)
    ap.add_argument("--endpoint", help="an already running onceflow (default: start one in memory)")
    ap.add_argument("--show-ok", action="store_true", help="also list the accepted definitions")
    args = ap.parse_args()
    server = None
    endpoint = args.endpoint
    if endpoint is None:
        port = free_port()
        server = start_server(port)
        endpoint = f"http://127.0.0.1:{port}"
    try:
        run(args.folder, endpoint, args.show_ok)
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)


def run(folder: Path, endpoint: str, show_ok: bool) -> None:
    kw = {"endpoint_url": endpoint, "region_name": REGION, "aws_access_key_id": "test",
          "aws_secret_access_key": "test", "config": Config(retries={"max_attempts": 0})}
    sfn, iam = boto3.client("stepfunctions", **kw), boto3.client("iam", **kw)
    role = iam.create_role(RoleName="sfn-samples", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    files = sorted(p for p in folder.rglob("*.json"))
    counts = {"accepted": 0, "refused": 0, "validate-errors": 0, "unreadable": 0}
    for i, path in enumerate(files):
        text = substitute(path.read_text())
        try:
            json.loads(text)
        except ValueError as e:
            counts["unreadable"] += 1
            print(f"UNREADABLE {path.name}: {e}")
            continue
        kind = "EXPRESS" if ".express." in path.name else "STANDARD"
        diags = sfn.validate_state_machine_definition(definition=text, type=kind)
        errors = [d for d in diags["diagnostics"] if d["severity"] == "ERROR"]
        if errors:
            counts["validate-errors"] += 1
            for d in errors:
                print(f"VALIDATE {path.name}: {d['code']} at {d.get('location')}: {d['message']}")
        try:
            sfn.create_state_machine(name=f"s{i}", definition=text, roleArn=role, type=kind)
        except ClientError as e:
            counts["refused"] += 1
            err = e.response["Error"]
            print(f"REFUSED  {path.name}: {err['Code']}: {err['Message']}")
            continue
        counts["accepted"] += 1
        if show_ok:
            print(f"OK       {path.name}")
    print(f"{len(files)} definitions: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
