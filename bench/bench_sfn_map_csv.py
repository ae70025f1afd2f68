"""Distributed Map over a CSV in S3 writing its results back (issue 18): the wall time from
StartExecution to SUCCEEDED, and the size of what ResultWriter wrote.

    python bench/bench_sfn_map_csv.py [--lines 10000] [--concurrency 0]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from pathlib import Path

import boto3

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from serverproc import ServerProcess  # noqa: E402

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})


def client(url: str, name: str) -> object:
    return boto3.client(name, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=10000)
    ap.add_argument("--concurrency", type=int, default=0)
    args = ap.parse_args()
    server = ServerProcess().start()
    try:
        s3, sfn, iam = (client(server.url, n) for n in ("s3", "stepfunctions", "iam"))
        role = iam.create_role(RoleName="bench", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]  # type: ignore[attr-defined]
        bucket = f"bench-{uuid.uuid4().hex[:8]}"
        s3.create_bucket(Bucket=bucket)  # type: ignore[attr-defined]
        body = "id,name,amount\n" + "".join(f"{i},name {i},{i * 3}\n" for i in range(args.lines))
        s3.put_object(Bucket=bucket, Key="in.csv", Body=body.encode())  # type: ignore[attr-defined]
        definition = {"StartAt": "M", "States": {"M": {
            "Type": "Map", "End": True, "MaxConcurrency": args.concurrency,
            "ItemProcessor": {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": "STANDARD"},
                              "StartAt": "P", "States": {"P": {"Type": "Pass", "Parameters": {
                                  "id.$": "States.StringToJson($.id)", "amount.$": "$.amount"}, "End": True}}},
            "ItemReader": {"Resource": "arn:aws:states:::s3:getObject",
                           "ReaderConfig": {"InputType": "CSV", "CSVHeaderLocation": "FIRST_ROW"},
                           "Parameters": {"Bucket": bucket, "Key": "in.csv"}},
            "ResultWriter": {"Resource": "arn:aws:states:::s3:putObject",
                             "Parameters": {"Bucket": bucket, "Prefix": "out"}}}}}
        sm = sfn.create_state_machine(name="csv", definition=json.dumps(definition),  # type: ignore[attr-defined]
                                      roleArn=role)["stateMachineArn"]
        started = time.perf_counter()
        arn = sfn.start_execution(stateMachineArn=sm, input="{}")["executionArn"]  # type: ignore[attr-defined]
        while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":  # type: ignore[attr-defined]
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        out = json.loads(d["output"]) if d["status"] == "SUCCEEDED" else d
        manifest = json.loads(s3.get_object(  # type: ignore[attr-defined]
            Bucket=bucket, Key=out["ResultWriterDetails"]["Key"])["Body"].read())
        written = sum(f["Size"] for files in manifest["ResultFiles"].values() for f in files)
        print(f"lines={args.lines} status={d['status']} wall={elapsed:.2f}s "
              f"items/s={args.lines / elapsed:.0f} results={written / 1e6:.1f} MB")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
