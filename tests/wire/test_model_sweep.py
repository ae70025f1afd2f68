"""A bounded run of bench/sweep_bad_input.py against a real server: for every operation the registry
serves, in every service, empty params, each required member missing, each top-level member of the
wrong type and each string member 10,000 characters long. Each answer must be a 4xx (or a modeled
501 NotImplemented) that botocore parses into an error code, with no trace or Python repr in it.

The wrong types are sent again with the names of resources created first (a table, queue, topic,
bucket, log group, state machine, role, function: the sweep's --live).
One server per module (its own, in memory): the sweep creates what its valid-looking params name,
which the session server's other tests must not see.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serverproc import ServerProcess
from service.sfn_setup import states_role

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from sweep_bad_input import SERVICES, Sender, live_resources, served_operations, sweep_service

KINDS = "abcL"
LIVE_KINDS = "c"  # past "does not exist": wrong types (what the handlers' own code reads)


@pytest.fixture(scope="module")
def sweep_server() -> Iterator[ServerProcess]:
    proc = ServerProcess().start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def served() -> dict[str, list[str]]:
    return served_operations(SERVICES)


@pytest.fixture(scope="module")
def live(sweep_server: ServerProcess) -> dict[str, dict[str, Any]]:
    return live_resources(sweep_server.url)


@pytest.mark.parametrize("service", SERVICES)
def test_bad_input_gets_a_parseable_4xx(sweep_server: ServerProcess, served: dict[str, list[str]],
                                        live: dict[str, dict[str, Any]], service: str) -> None:
    """Twice: kinds a, b, c and L with made-up names (most calls stop at "does not exist"), and
    kind c with the names of resources that exist (the sweep's --live), so that bad input reaches
    the handlers' own code."""
    tally = sweep_service(sweep_server.url, service, served[service], KINDS)
    assert tally.operations > 0 and tally.requests > tally.operations
    assert tally.problems == [], "\n".join(tally.problems[:40])
    assert tally.server_5xx == {}
    if service not in live:
        return
    tally = sweep_service(sweep_server.url, service, served[service], LIVE_KINDS, live=live[service], live_only=True)
    assert tally.requests > 0
    assert tally.problems == [], "\n".join(tally.problems[:40])
    assert tally.server_5xx == {}


def test_virtual_mfa_name_past_the_serial_number_changes_nothing(sweep_server: ServerProcess) -> None:
    """A name whose serial number would pass serialNumberType's 256 was stored, then its QR code
    failed: a 500 and a device left behind. Now it is refused before the write."""
    iam: Any = sweep_server.client("iam")
    before = iam.list_virtual_mfa_devices()["VirtualMFADevices"]
    name = "m" * 10_000
    with pytest.raises(iam.exceptions.ClientError) as caught:
        iam.create_virtual_mfa_device(VirtualMFADeviceName=name)
    error = caught.value.response
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert error["Error"]["Code"] == "ValidationError"
    prefix = "arn:aws:iam::000000000000:mfa/"
    assert error["Error"]["Message"] == (
        f"1 validation error detected: Value '{name}' at 'virtualMFADeviceName' failed to satisfy constraint: "
        f"Member must have length less than or equal to {256 - len(prefix)}")
    assert iam.list_virtual_mfa_devices()["VirtualMFADevices"] == before
    longest = "m" * (256 - len(prefix))  # the longest that fits is served
    serial = iam.create_virtual_mfa_device(VirtualMFADeviceName=longest)["VirtualMFADevice"]["SerialNumber"]
    assert serial == prefix + longest
    iam.delete_virtual_mfa_device(SerialNumber=serial)


def test_the_sweep_sees_a_5xx() -> None:
    """The checks can fail: a 500 with a trace in its body is a problem (the judge, no server)."""
    sender = Sender.__new__(Sender)
    sender.last = {"status_code": 500, "body": b'{"__type":"InternalFailure","message":"Traceback (most..."}'}
    outcome = sender._judge({"Error": {"Code": "InternalFailure"}}, 0.1)
    assert outcome.problem is not None and "leak" in outcome.problem
    sender.last = {"status_code": 400, "body": b"<html>bad</html>"}
    assert sender._judge({"Error": {"Code": ""}}, 0.1).problem == "error without a code"


NO_KEY = ("1 validation error detected: Value null at 'tags.2.member.key' failed to satisfy constraint: "
          "Member must not be null")


def _refused_without_key(call: Any, sfn: Any) -> None:
    with pytest.raises(sfn.exceptions.ClientError) as caught:
        call()
    error = caught.value.response
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert (error["Error"]["Code"], error["Error"]["Message"]) == ("ValidationException", NO_KEY)


def test_step_functions_tag_without_key_changes_nothing(sweep_server: ServerProcess) -> None:
    """Step Functions' Tag requires neither member: a tag without a key was a KeyError (a 500) in
    CreateActivity (found by the sweep's kind n), CreateStateMachine and TagResource."""
    sfn: Any = sweep_server.client("stepfunctions")
    tags = [{"key": "k", "value": "v"}, {"value": "v"}]
    activities = sfn.list_activities()["activities"]
    _refused_without_key(lambda: sfn.create_activity(name="no-key-tag", tags=tags), sfn)
    assert sfn.list_activities()["activities"] == activities

    role = states_role(sweep_server.client, "sweep")
    machines = sfn.list_state_machines()["stateMachines"]
    definition = '{"StartAt": "P", "States": {"P": {"Type": "Pass", "End": true}}}'
    _refused_without_key(lambda: sfn.create_state_machine(name="no-key-tag", definition=definition, roleArn=role,
                                                          tags=tags), sfn)
    assert sfn.list_state_machines()["stateMachines"] == machines

    arn = sfn.create_activity(name="tagged-once", tags=[{"key": "a", "value": "1"}])["activityArn"]
    _refused_without_key(lambda: sfn.tag_resource(resourceArn=arn, tags=tags), sfn)
    assert sfn.list_tags_for_resource(resourceArn=arn)["tags"] == [{"key": "a", "value": "1"}]
    sfn.delete_activity(activityArn=arn)


def test_sqs_dead_letter_sources_max_results_out_of_range(sweep_server: ServerProcess) -> None:
    """MaxResults below 1 was an IndexError (a 500) on a queue that exists (the sweep's --live)."""
    sqs: Any = sweep_server.client("sqs")
    url = sqs.create_queue(QueueName="sweep-dlq-limit")["QueueUrl"]
    for bad in (-1, 0, 1001):
        with pytest.raises(sqs.exceptions.ClientError) as caught:
            sqs.list_dead_letter_source_queues(QueueUrl=url, MaxResults=bad)
        error = caught.value.response["Error"]
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        assert (error["Code"], error["Message"]) == (
            "InvalidParameterValue",
            f"Value {bad} for parameter MaxResults is invalid. "
            "Reason: MaxResults must be an integer between 1 and 1000.")
    assert sqs.list_dead_letter_source_queues(QueueUrl=url, MaxResults=1)["queueUrls"] == []


def test_s3_control_characters_never_reach_a_header(sweep_server: ServerProcess) -> None:
    """GetObject's response-* overrides and an unknown version id are sent back as headers: with a
    control character in them uvicorn refused the header and the connection dropped, no answer."""
    s3: Any = sweep_server.client("s3")
    s3.create_bucket(Bucket="sweep-headers")
    s3.put_object(Bucket="sweep-headers", Key="k", Body=b"x")
    with pytest.raises(s3.exceptions.ClientError) as caught:
        s3.get_object(Bucket="sweep-headers", Key="k", ResponseContentType="text/plain\r\nX-Injected: 1")
    error = caught.value.response["Error"]
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert (error["Code"], error["ArgumentName"]) == ("InvalidArgument", "response-content-type")
    for call in (s3.get_object, s3.head_object, s3.delete_object):
        with pytest.raises(s3.exceptions.ClientError) as caught:
            call(Bucket="sweep-headers", Key="k", VersionId="version\r\nid\x00")
        assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        assert "x-amz-version-id" not in caught.value.response["ResponseMetadata"]["HTTPHeaders"]
    assert s3.get_object(Bucket="sweep-headers", Key="k")["Body"].read() == b"x"  # the delete removed nothing
    got = s3.get_object(Bucket="sweep-headers", Key="k", ResponseContentType="text/plain;\tx=1")
    assert got["Body"].read() == b"x"
    assert got["ContentType"] == "text/plain;\tx=1"  # a tab may be in a header
