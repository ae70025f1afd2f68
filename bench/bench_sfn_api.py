"""Benchmark: the API-level Step Functions features (issue 17).

- activity hand-out: a worker already polls GetActivityTask; time from StartExecution's answer to
  the poll's answer, and the whole round trip to SUCCEEDED after SendTaskSuccess;
- nested `.sync:2`: a parent whose child is one Pass, StartExecution to SUCCEEDED;
- execution logging: executions/s of a 10-Pass machine with logging OFF and ALL (same run, alternating).

    python bench/bench_sfn_api.py [--n 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
import botocore.config

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "tests" / "serverproc.py").exists())
sys.path.insert(0, str(ROOT / "tests"))
from serverproc import ServerProcess  # noqa: E402

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


def client(url: str, service: str) -> Any:
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                        aws_secret_access_key="test",
                        config=botocore.config.Config(read_timeout=90, retries={"max_attempts": 1}))


def wait_done(sfn: Any, arn: str) -> None:
    while sfn.describe_execution(executionArn=arn)["status"] == "RUNNING":
        time.sleep(0.002)


def ms(values: list[float]) -> str:
    values = sorted(values)
    return f"p50 {statistics.median(values) * 1000:.1f} ms, p90 {values[int(len(values) * 0.9)] * 1000:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=30)
    args = parser.parse_args()
    server = ServerProcess().start()
    try:
        sfn, iam = client(server.url, "stepfunctions"), client(server.url, "iam")
        role = iam.create_role(RoleName="bench", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
        iam.put_role_policy(RoleName="bench", PolicyName="all", PolicyDocument=ALLOW_ALL)

        activity = sfn.create_activity(name="bench")["activityArn"]
        sm = sfn.create_state_machine(name="act", roleArn=role, definition=json.dumps(
            {"StartAt": "A", "States": {"A": {"Type": "Task", "Resource": activity, "End": True}}}))["stateMachineArn"]
        handout, round_trip = [], []
        for _ in range(args.n):
            got: dict[str, Any] = {}
            poller = threading.Thread(target=lambda g=got: g.update(
                sfn.get_activity_task(activityArn=activity), at=time.perf_counter()))
            poller.start()
            time.sleep(0.05)  # the poll is waiting
            t0 = time.perf_counter()
            arn = sfn.start_execution(stateMachineArn=sm)["executionArn"]
            t1 = time.perf_counter()
            poller.join()
            handout.append(got["at"] - t1)
            sfn.send_task_success(taskToken=got["taskToken"], output="{}")
            wait_done(sfn, arn)
            round_trip.append(time.perf_counter() - t0)
        print(f"activity hand-out after StartExecution answered: {ms(handout)}")
        print(f"activity execution, start to SUCCEEDED:           {ms(round_trip)}")

        child = sfn.create_state_machine(name="child", roleArn=role, definition=json.dumps(
            {"StartAt": "P", "States": {"P": {"Type": "Pass", "End": True}}}))["stateMachineArn"]
        task = {"Type": "Task", "Resource": "arn:aws:states:::states:startExecution.sync:2",
                "Parameters": {"StateMachineArn": child, "Input": {}}, "End": True}
        parent = sfn.create_state_machine(name="parent", roleArn=role, definition=json.dumps(
            {"StartAt": "C", "States": {"C": task}}))["stateMachineArn"]
        nested = []
        for _ in range(args.n):
            t0 = time.perf_counter()
            wait_done(sfn, sfn.start_execution(stateMachineArn=parent)["executionArn"])
            nested.append(time.perf_counter() - t0)
        print(f"nested .sync:2 parent, start to SUCCEEDED:         {ms(nested)}")

        passes = {f"P{i}": {"Type": "Pass", "Next": f"P{i + 1}"} for i in range(9)}
        passes["P9"] = {"Type": "Pass", "End": True}
        definition = json.dumps({"StartAt": "P0", "States": passes})
        client(server.url, "logs").create_log_group(logGroupName="/aws/vendedlogs/states/bench")
        group = "arn:aws:logs:us-east-1:000000000000:log-group:/aws/vendedlogs/states/bench:*"
        machines = {
            "OFF": sfn.create_state_machine(name="off", roleArn=role, definition=definition)["stateMachineArn"],
            "ALL": sfn.create_state_machine(name="all", roleArn=role, definition=definition, loggingConfiguration={
                "level": "ALL", "includeExecutionData": True,
                "destinations": [{"cloudWatchLogsLogGroup": {"logGroupArn": group}}]})["stateMachineArn"],
        }
        rates: dict[str, list[float]] = {"OFF": [], "ALL": []}
        for _ in range(3):
            for level, machine in machines.items():
                t0 = time.perf_counter()
                arns = [sfn.start_execution(stateMachineArn=machine, name=str(uuid.uuid4()))["executionArn"]
                        for _ in range(args.n)]
                for arn in arns:
                    wait_done(sfn, arn)
                rates[level].append(args.n / (time.perf_counter() - t0))
        for level, values in rates.items():
            print(f"10-Pass executions/s, logging {level}: {statistics.median(values):.1f} (rounds {values})")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
