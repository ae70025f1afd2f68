"""No request stalls another (issue 12): hostile globs and regexes get their right answer while a
cheap call probed every 50 ms keeps getting answers. The sizes are far beyond what a backtracking
matcher could finish within the test timeout; timings are bench/bench_stall.py's business."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import botocore.config
import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
SFN_CONFIG = botocore.config.Config(retries={"max_attempts": 1}, inject_host_prefix=False)  # TestState: "sync-"
STARS = 40
LONG = "a" * 2000


def glob(tail: str) -> str:
    return "a*" * STARS + tail


class Probe:
    """GetCallerIdentity every 50 ms on its own client while the block runs."""

    def __init__(self, sts: Any) -> None:
        self.sts = sts
        self.answers: list[str] = []
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.answers.append(self.sts.get_caller_identity()["Account"])
            except Exception as exc:
                self.failures.append(repr(exc))
            self.stop.wait(0.05)


@pytest.fixture
def probed(aws: Callable[..., Any]) -> Iterator[Callable[[Callable[[], Any]], Any]]:
    """Run a call with the probe going before, during and after it; the probe must never fail."""
    probe = Probe(aws("sts"))
    probe.thread.start()

    def during(call: Callable[[], Any]) -> Any:
        time.sleep(0.1)
        return call()

    yield during
    time.sleep(0.1)
    probe.stop.set()
    probe.thread.join()
    assert probe.failures == []
    assert len(probe.answers) >= 2 and set(probe.answers) == {ACCOUNT}


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def trust(principal: dict[str, str]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole"}]})


# ------------------------------------------------------------------------------------ IAM globs
def test_simulate_custom_policy_with_hostile_globs(aws: Callable[..., Any], probed: Any) -> None:
    iam = aws("iam")

    def decision(tail: str) -> str:
        pattern = glob(tail)
        policy = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": f"s3:{pattern}", "Resource": "*"},
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{pattern}"},
            {"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*",
             "Condition": {"StringLike": {"aws:username": pattern}}},
        ]}
        out = iam.simulate_custom_policy(
            PolicyInputList=[json.dumps(policy)], ActionNames=[f"s3:{LONG[:120]}", "s3:GetObject", "s3:PutObject"],
            ResourceArns=[f"arn:aws:s3:::{LONG}"],
            ContextEntries=[{"ContextKeyName": "aws:username", "ContextKeyValues": [LONG], "ContextKeyType": "string"}])
        return ",".join(r["EvalDecision"] for r in out["EvaluationResults"])  # action names: 128 at most

    assert probed(lambda: decision("b")) == "implicitDeny,implicitDeny,implicitDeny"
    assert decision("a") == "allowed,allowed,allowed"


def test_role_session_authorized_against_a_hostile_resource_glob(aws: Callable[..., Any], probed: Any) -> None:
    iam, sts = aws("iam"), aws("sts")
    role = unique("stall")
    arn = iam.create_role(RoleName=role, AssumeRolePolicyDocument=trust({"AWS": f"arn:aws:iam::{ACCOUNT}:root"}))
    allow = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": f"arn:aws:dynamodb:*:*:table/{glob('b')}"}]}
    iam.put_role_policy(RoleName=role, PolicyName="hostile", PolicyDocument=json.dumps(allow))
    creds = sts.assume_role(RoleArn=arn["Role"]["Arn"], RoleSessionName="stall")["Credentials"]
    ddb = aws("dynamodb", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
              session_token=creds["SessionToken"])
    denied, allowed = "a" * 250, "a" * 249 + "b"  # table names stop at 255 characters
    with pytest.raises(ClientError) as info:
        probed(lambda: ddb.get_item(TableName=denied, Key={"k": {"S": "x"}}))
    assert info.value.response["Error"]["Code"] == "AccessDeniedException"
    assert "dynamodb:GetItem" in info.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as info:  # authorized: the table's absence is the answer
        ddb.get_item(TableName=allowed, Key={"k": {"S": "x"}})
    assert info.value.response["Error"]["Code"] == "ResourceNotFoundException"


# ------------------------------------------------------------------------------------ Step Functions
@pytest.fixture(scope="module")
def test_state(aws: Callable[..., Any]) -> Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]:
    role = aws("iam").create_role(RoleName=unique("stall-sfn"),
                                  AssumeRolePolicyDocument=trust({"Service": "states.amazonaws.com"}))["Role"]["Arn"]
    sfn = aws("stepfunctions", config=SFN_CONFIG)
    return lambda state, given: sfn.test_state(definition=json.dumps(state), roleArn=role, input=json.dumps(given))


def test_choice_string_matches_with_a_hostile_glob(test_state: Any, probed: Any) -> None:
    def next_state(tail: str) -> str:
        state = {"Type": "Choice", "Default": "NoMatch",
                 "Choices": [{"Variable": "$.s", "StringMatches": glob(tail), "Next": "Match"}]}
        return str(test_state(state, {"s": LONG})["nextState"])

    assert probed(lambda: next_state("b")) == "NoMatch"
    assert next_state("a") == "Match"


def test_jsonata_catastrophic_regex(test_state: Any, probed: Any) -> None:
    def output(text: str) -> Any:
        state = {"Type": "Pass", "QueryLanguage": "JSONata", "End": True,
                 "Output": "{% $contains($states.input.s, /^(a+)+$/) %}"}
        return json.loads(test_state(state, {"s": text})["output"])

    assert probed(lambda: output(LONG + "!")) is False
    assert output(LONG) is True


def test_jsonata_regex_re2_cannot_run_is_refused_at_create(aws: Callable[..., Any]) -> None:
    definition = {"QueryLanguage": "JSONata", "StartAt": "P", "States": {
        "P": {"Type": "Pass", "End": True, "Output": "{% $match($states.input.s, /a(?=b)/) %}"}}}
    with pytest.raises(ClientError) as info:
        aws("stepfunctions").create_state_machine(name=unique("stall"), definition=json.dumps(definition),
                                                  roleArn=f"arn:aws:iam::{ACCOUNT}:role/stall")
    assert info.value.response["Error"]["Code"] == "InvalidDefinition"
    assert "INVALID_JSONATA_EXPRESSION" in info.value.response["Error"]["Message"]
    assert "no lookahead or lookbehind" in info.value.response["Error"]["Message"]


# ------------------------------------------------------------------------------------ Logs
def test_filter_log_events_with_a_catastrophic_regex(aws: Callable[..., Any], probed: Any) -> None:
    logs = aws("logs")
    group = f"/stall/{unique('g')}"
    logs.create_log_group(logGroupName=group)
    logs.create_log_stream(logGroupName=group, logStreamName="s")
    now = int(time.time() * 1000)
    logs.put_log_events(logGroupName=group, logStreamName="s", logEvents=[
        {"timestamp": now, "message": LONG}, {"timestamp": now + 1, "message": LONG + "c"}])

    def messages(pattern: str) -> list[str]:
        return [e["message"] for e in logs.filter_log_events(logGroupName=group, filterPattern=pattern)["events"]]

    assert probed(lambda: messages("%" + "a*" * STARS + "c%")) == [LONG + "c"]
    assert messages("%" + "a*" * STARS + "d%") == []
    with pytest.raises(ClientError) as info:
        messages("%(a+)+%")
    assert info.value.response["Error"]["Code"] == "InvalidParameterException"
    assert info.value.response["Error"]["Message"] == "Invalid character(s) in term '%(a+)+%'"
