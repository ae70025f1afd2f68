"""CloudFormation benchmark: deploying the orders example (examples/orders/template.yaml).

1. `aws cloudformation package` + `deploy` of the SAM template to onceflow, then delete-stack and
   its waiter, `--rounds` times; beside it the AWS CLI's own start (`aws sts get-caller-identity`
   on the same server), the floor of any CLI command.
2. boto3 CreateStack of the template as the SAM transform makes it (the Processed stage, code in
   S3) until CREATE_COMPLETE, then DeleteStack until DELETE_COMPLETE, onceflow side by side with
   moto's server (`pip install 'moto[server]'`) in the same run.

    python bench/bench_cfn.py [--rounds 5]

LocalStack is not compared: its CloudFormation needs its own runtime (a Docker image, or a host
mode that pulls more packages at start), which this machine cannot fetch.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
import botocore.config

sys.path.insert(0, str(Path(__file__).parent))
from servers import spawn_moto, spawn_onceflow

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "src" / "onceflow" / "examples" / "orders" / "template.yaml"
CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=120)


def client(url: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test", config=CONFIG)


def cli(url: str, *args: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ENDPOINT_URL=url, AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test",
               AWS_DEFAULT_REGION="us-east-1", AWS_PAGER="", AWS_CONFIG_FILE="/dev/null",
               AWS_SHARED_CREDENTIALS_FILE="/dev/null")
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    start = time.perf_counter()
    done = subprocess.run(["aws", *args], capture_output=True, text=True, env=env, timeout=600)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"aws {' '.join(args)}: {done.stderr[-2000:]}")
    return took


def wait(cfn: Any, name: str, done: str) -> None:
    for _ in range(6000):
        try:
            status = cfn.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"]
        except Exception:  # moto forgets a deleted stack's name
            if done == "DELETE_COMPLETE":
                return
            raise
        if status == done:
            return
        if not status.endswith("_IN_PROGRESS"):
            raise RuntimeError(f"{name}: {status}")
        time.sleep(0.01)
    raise RuntimeError(f"{name} never reached {done}")


def cli_rounds(url: str, rounds: int, work: Path) -> dict[str, list[float]]:
    bucket = f"bench-{uuid.uuid4().hex[:8]}"
    client(url, "s3").create_bucket(Bucket=bucket)
    out: dict[str, list[float]] = {"cli start": [], "package": [], "deploy": [], "delete + wait": []}
    packaged = work / "packaged.yaml"
    for i in range(rounds):
        name = f"orders{i}"
        out["cli start"].append(cli(url, "sts", "get-caller-identity"))
        out["package"].append(cli(url, "cloudformation", "package", "--template-file", str(TEMPLATE),
                                  "--s3-bucket", bucket, "--output-template-file", str(packaged)))
        out["deploy"].append(cli(url, "cloudformation", "deploy", "--template-file", str(packaged), "--stack-name",
                                 name, "--capabilities", "CAPABILITY_IAM", "--parameter-overrides",
                                 f"Prefix=bench{i}"))
        start = time.perf_counter()
        cli(url, "cloudformation", "delete-stack", "--stack-name", name)
        cli(url, "cloudformation", "wait", "stack-delete-complete", "--stack-name", name)
        out["delete + wait"].append(time.perf_counter() - start)
    return out


def processed(url: str, work: Path) -> str:
    """The orders template as the SAM transform made it on onceflow (plain CloudFormation)."""
    cfn = client(url, "cloudformation")
    bucket = f"bench-{uuid.uuid4().hex[:8]}"
    client(url, "s3").create_bucket(Bucket=bucket)
    packaged = work / "for-processed.yaml"
    cli(url, "cloudformation", "package", "--template-file", str(TEMPLATE), "--s3-bucket", bucket,
        "--output-template-file", str(packaged))
    cli(url, "cloudformation", "deploy", "--template-file", str(packaged), "--stack-name", "processed",
        "--capabilities", "CAPABILITY_IAM", "--parameter-overrides", "Prefix=processed")
    body = cfn.get_template(StackName="processed", TemplateStage="Processed")["TemplateBody"]
    cfn.delete_stack(StackName="processed")
    wait(cfn, "processed", "DELETE_COMPLETE")
    return json.dumps(body)


def api_rounds(url: str, body: str, rounds: int, code_zip: bytes) -> dict[str, list[float]]:
    cfn, s3 = client(url, "cloudformation"), client(url, "s3")
    doc = json.loads(body)
    code = doc["Resources"]["Worker"]["Properties"]["Code"]
    s3.create_bucket(Bucket=code["S3Bucket"])
    s3.put_object(Bucket=code["S3Bucket"], Key=code["S3Key"], Body=code_zip)
    out: dict[str, list[float]] = {"create to COMPLETE": [], "delete to COMPLETE": []}
    for i in range(rounds):
        name = f"api{i}"
        start = time.perf_counter()
        cfn.create_stack(StackName=name, TemplateBody=body, Capabilities=["CAPABILITY_IAM"],
                         Parameters=[{"ParameterKey": "Prefix", "ParameterValue": f"api{i}"}])
        wait(cfn, name, "CREATE_COMPLETE")
        out["create to COMPLETE"].append(time.perf_counter() - start)
        start = time.perf_counter()
        cfn.delete_stack(StackName=name)
        wait(cfn, name, "DELETE_COMPLETE")
        out["delete to COMPLETE"].append(time.perf_counter() - start)
    return out


def show(title: str, rows: dict[str, list[float]]) -> None:
    print(title)
    for what, times in rows.items():
        print(f"  {what:<22} median {statistics.median(times) * 1000:8.0f} ms   "
              f"min {min(times) * 1000:8.0f} ms   ({len(times)} rounds)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from onceflow.examples.orders.provision import worker_zip

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        proc, url = spawn_onceflow(str(work / "data"))
        try:
            show("onceflow, aws cloudformation package + deploy of examples/orders/template.yaml:",
                 cli_rounds(url, args.rounds, work))
            body = processed(url, work)
            show("onceflow, boto3 CreateStack/DeleteStack of its processed template:",
                 api_rounds(url, body, args.rounds, worker_zip("protected")))
        finally:
            proc.terminate()
            proc.wait(30)
        try:
            moto, moto_url = spawn_moto()
        except Exception as exc:  # moto not installed
            print(f"moto's server: not run ({exc})")
            return
        try:
            show("moto's server, the same CreateStack/DeleteStack:",
                 api_rounds(moto_url, body, args.rounds, worker_zip("protected")))
        finally:
            moto.terminate()
            moto.wait(30)


if __name__ == "__main__":
    main()
