"""Does one hostile request stall the others? A cheap call (STS GetCallerIdentity) is probed every
50 ms while each hostile request runs; the table gives the hostile request's own time, its answer,
how many probes ran meanwhile and the slowest of them (issue 12's target: under 100 ms).

    python bench/bench_stall.py [--glob-stars 7] [--regex-stars 6] [--nested 27] [--length 80]
                                [--url http://127.0.0.1:4566]

Without --url it starts `onceflow serve --in-memory` from the PYTHONPATH it runs with, so
`PYTHONPATH=/path/to/other/src python bench/bench_stall.py` measures another checkout. The defaults
are sized so that a backtracking matcher takes seconds (not hours) on each case.

Cases:
  simulate-glob    SimulateCustomPolicy: Action, Resource and StringLike condition globs `a*a*...b`
                   against an 80-character action, ARN and context value (answer: implicitDeny)
  authorize-glob   a role session's GetItem on an 80-character table name; the role's policy allows
                   `table/a*a*...b` only (answer: AccessDeniedException from the authorizer)
  authorize-big    20 GetItems of a role session whose role is as large as IAM allows (an inline
                   policy and ten managed ones, ~2,000 distinct non-matching Resource globs)
  choice-glob      TestState of a Choice whose StringMatches is `a*a*...b` (answer: the Default)
  logs-regex       FilterLogEvents with `%a*a*...c%` over an event of 80 a's (answer: no events)
  logs-regex-heavy FilterLogEvents with `%[ab]*a[ab]{1000}c%` over a 200 KB event: RE2's slow path
                   (seconds of CPU, with the GIL released)
  jsonata-regex    TestState of a Pass whose Output is `$contains(s, /^(a+)+$/)` on a^27! (false)
  query-large      20 Queries of a partition of 40 items of 390 KB (each starts on the event loop,
                   the registry's "bounded" placement, and moves to the thread pool past its budget),
                   then 20 of 40 small items with a filter that keeps none
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import botocore.config
from botocore.exceptions import ClientError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from servers import spawn_onceflow

ACCOUNT = "000000000000"
CONFIG = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, read_timeout=600,
                                inject_host_prefix=False)  # TestState's "sync-" host prefix


class Probe:
    """GetCallerIdentity every `every` seconds on its own client, timing each answer."""

    def __init__(self, client: Any, every: float = 0.05) -> None:
        self.client, self.every = client, every
        self.delays: list[float] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            start = time.perf_counter()
            try:
                self.client.get_caller_identity()
            except Exception as exc:  # a probe that gets no answer is a finding, not a crash
                self.failures.append(repr(exc))
            took = time.perf_counter() - start
            self.delays.append(took)
            self._stop.wait(max(0.0, self.every - took))

    def __enter__(self) -> Probe:
        self._thread.start()
        time.sleep(self.every * 2)  # probes already running when the hostile request starts
        return self

    def __exit__(self, *exc: object) -> None:
        time.sleep(self.every * 2)
        self._stop.set()
        self._thread.join()


def client(url: str, service: str, **keys: str) -> Any:
    creds = {"aws_access_key_id": "test", "aws_secret_access_key": "test", **keys}
    return boto3.client(service, endpoint_url=url, region_name="us-east-1", config=CONFIG, **creds)


def glob(stars: int) -> str:
    return "a*" * stars + "b"


# ------------------------------------------------------------------------------------ cases
def simulate_glob(url: str, args: argparse.Namespace) -> Callable[[], str]:
    iam = client(url, "iam")
    name = "a" * args.length
    pattern = glob(args.glob_stars)
    policy = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": f"s3:{pattern}", "Resource": "*"},
        {"Effect": "Allow", "Action": "*", "Resource": f"arn:aws:s3:::{pattern}"},
        {"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {"StringLike": {"aws:username": pattern}}},
    ]}

    def run() -> str:
        out = iam.simulate_custom_policy(
            PolicyInputList=[json.dumps(policy)], ActionNames=[f"s3:{name[:120]}"],  # 128 at most
            ResourceArns=[f"arn:aws:s3:::{name}"],
            ContextEntries=[{"ContextKeyName": "aws:username", "ContextKeyValues": [name], "ContextKeyType": "string"}])
        return str(out["EvaluationResults"][0]["EvalDecision"])

    return run


def authorize_glob(url: str, args: argparse.Namespace) -> Callable[[], str]:
    iam, sts = client(url, "iam"), client(url, "sts")
    role = f"stall-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}]}
    arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    resource = f"arn:aws:dynamodb:*:*:table/{glob(args.glob_stars)}"
    allow = {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": resource}]}
    iam.put_role_policy(RoleName=role, PolicyName="hostile", PolicyDocument=json.dumps(allow))
    creds = sts.assume_role(RoleArn=arn, RoleSessionName="stall")["Credentials"]
    ddb = client(url, "dynamodb", aws_access_key_id=creds["AccessKeyId"],
                 aws_secret_access_key=creds["SecretAccessKey"], aws_session_token=creds["SessionToken"])

    def run() -> str:
        try:
            ddb.get_item(TableName="a" * args.length, Key={"k": {"S": "x"}})
        except ClientError as exc:
            return str(exc.response["Error"]["Code"])
        return "allowed"

    return run


def authorize_big(url: str, args: argparse.Namespace) -> Callable[[], str]:
    """A role as large as IAM lets it be (an inline policy near 10,240 characters and ten attached
    managed policies near 6,144), every Resource a distinct glob that does not match: a role
    session's GetItem is authorized on the event loop (GetItem is an inline handler)."""
    iam, sts = client(url, "iam"), client(url, "sts")
    role = f"stall-big-{uuid.uuid4().hex[:8]}"
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"}, "Action": "sts:AssumeRole"}]}
    arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]

    def document(limit: int, tag: str) -> str:
        resources: list[str] = []
        while True:
            candidate = [*resources, f"arn:aws:dynamodb:*:*:table/*a?a*{tag}{len(resources)}"]
            text = json.dumps({"Version": "2012-10-17", "Statement": [
                {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": candidate}]})
            if len(text) > limit:
                return json.dumps({"Version": "2012-10-17", "Statement": [
                    {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": resources}]})
            resources = candidate

    iam.put_role_policy(RoleName=role, PolicyName="big", PolicyDocument=document(10_000, "i"))
    for k in range(10):
        policy = iam.create_policy(PolicyName=f"{role}-{k}", PolicyDocument=document(6_000, f"m{k}-"))
        iam.attach_role_policy(RoleName=role, PolicyArn=policy["Policy"]["Arn"])
    creds = sts.assume_role(RoleArn=arn, RoleSessionName="stall")["Credentials"]
    ddb = client(url, "dynamodb", aws_access_key_id=creds["AccessKeyId"],
                 aws_secret_access_key=creds["SecretAccessKey"], aws_session_token=creds["SessionToken"])

    def run() -> str:
        answers = set()
        for _ in range(20):
            try:
                ddb.get_item(TableName="b" * 255, Key={"k": {"S": "x"}})
                answers.add("allowed")
            except ClientError as exc:
                answers.add(str(exc.response["Error"]["Code"]))
        return ",".join(sorted(answers)) + " x20"

    return run


def _test_state(url: str, state: dict[str, Any], given: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    sfn, iam = client(url, "stepfunctions"), client(url, "iam")
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName=f"stall-sfn-{uuid.uuid4().hex[:8]}",
                           AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    return lambda: sfn.test_state(definition=json.dumps(state), roleArn=role, input=json.dumps(given))


def choice_glob(url: str, args: argparse.Namespace) -> Callable[[], str]:
    state = {"Type": "Choice", "Default": "NoMatch",
             "Choices": [{"Variable": "$.s", "StringMatches": glob(args.glob_stars), "Next": "Match"}]}
    call = _test_state(url, state, {"s": "a" * args.length})
    return lambda: str(call().get("nextState"))


def logs_regex(url: str, args: argparse.Namespace) -> Callable[[], str]:
    logs = client(url, "logs")
    group = f"/stall/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName="s")
    logs.put_log_events(logGroupName=group, logStreamName="s",
                        logEvents=[{"timestamp": int(time.time() * 1000), "message": "a" * args.length}])
    pattern = "%" + "a*" * args.regex_stars + "c%"

    def run() -> str:
        out = logs.filter_log_events(logGroupName=group, filterPattern=pattern)
        return f"{len(out['events'])} events"

    return run


def logs_regex_heavy(url: str, args: argparse.Namespace) -> Callable[[], str]:
    """RE2 is linear in the text but O(text x pattern) when its DFA gives up: seconds of CPU here.
    RE2 releases the GIL while it matches, so the probe should not wait meanwhile."""
    logs = client(url, "logs")
    group = f"/stall/{uuid.uuid4().hex[:8]}"
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName="s")
    rng = random.Random(1)
    message = "".join(rng.choice("ab") for _ in range(200_000))
    logs.put_log_events(logGroupName=group, logStreamName="s",
                        logEvents=[{"timestamp": int(time.time() * 1000), "message": message}])

    def run() -> str:
        out = logs.filter_log_events(logGroupName=group, filterPattern="%[ab]*a[ab]{1000}c%")
        return f"{len(out['events'])} events"

    return run


def jsonata_regex(url: str, args: argparse.Namespace) -> Callable[[], str]:
    state = {"Type": "Pass", "QueryLanguage": "JSONata", "End": True,
             "Output": "{% $contains($states.input.s, /^(a+)+$/) %}"}
    call = _test_state(url, state, {"s": "a" * args.nested + "!"})
    return lambda: str(call().get("output"))


def query_large(url: str, args: argparse.Namespace) -> Callable[[], str]:
    ddb = client(url, "dynamodb")
    name = f"stall-q-{uuid.uuid4().hex[:8]}"
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}])
    for i in range(40):
        ddb.put_item(TableName=name, Item={"pk": {"S": "big"}, "sk": {"N": str(i)}, "v": {"S": "x" * 390_000}})
        ddb.put_item(TableName=name, Item={"pk": {"S": "small"}, "sk": {"N": str(i)}, "v": {"S": "x" * 100}})

    def run() -> str:
        counts = set()
        for _ in range(20):
            counts.add(ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                                 ExpressionAttributeValues={":p": {"S": "big"}})["Count"])
            counts.add(ddb.query(TableName=name, KeyConditionExpression="pk = :p", FilterExpression="v = :no",
                                 ExpressionAttributeValues={":p": {"S": "small"}, ":no": {"S": "no"}})["Count"])
        return "Count " + ",".join(str(c) for c in sorted(counts)) + " x40"  # 3: the 1 MB page

    return run


CASES = {"simulate-glob": simulate_glob, "authorize-glob": authorize_glob, "authorize-big": authorize_big,
         "choice-glob": choice_glob,
         "logs-regex": logs_regex, "logs-regex-heavy": logs_regex_heavy, "jsonata-regex": jsonata_regex,
         "query-large": query_large}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--glob-stars", type=int, default=7)
    parser.add_argument("--regex-stars", type=int, default=6)
    parser.add_argument("--nested", type=int, default=27)
    parser.add_argument("--length", type=int, default=80)
    parser.add_argument("--url")
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    args = parser.parse_args()
    proc = None
    url = args.url
    if url is None:
        proc, url = spawn_onceflow(None)
    try:
        probe_client = client(url, "sts")
        probe_client.get_caller_identity()
        print(f"{'case':17} {'request s':>9}  {'answer':24} {'probes':>6} {'p50 ms':>7} {'max probe ms':>12} "
              f"{'>100 ms':>7} {'failed':>6}")
        for name in args.case or CASES:
            run = CASES[name](url, args)
            with Probe(probe_client) as probe:
                start = time.perf_counter()
                answer = run()
                took = time.perf_counter() - start
            delays = sorted(probe.delays)
            slow = sum(d > 0.1 for d in delays)
            print(f"{name:17} {took:9.3f}  {answer:24} {len(delays):6d} {delays[len(delays) // 2] * 1000:7.1f} "
                  f"{delays[-1] * 1000:12.1f} {slow:7d} {len(probe.failures):6d}", flush=True)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)


if __name__ == "__main__":
    main()
