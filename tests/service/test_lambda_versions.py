"""Versions, revisions, weighted aliases and every name form, through boto3 against a real server."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

ACCOUNT, REGION = "000000000000", "us-east-1"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
CODE = "import os\ndef handler(event, context):\n    return {'version': os.environ['AWS_LAMBDA_FUNCTION_VERSION']}\n"


def make_zip(text: str = CODE) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", text)
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"versions-role-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"ver-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": make_zip()})  # fmt: skip
    return name


def error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    response = excinfo.value.response
    return response["Error"]["Code"], response["Error"]["Message"], response["ResponseMetadata"]["HTTPStatusCode"]


def test_configuration_changes_between_publishes_give_new_versions(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    numbers = []
    for change in ({"Description": "two"}, {"Timeout": 7}, {"LoggingConfig": {"LogFormat": "JSON"}}):
        numbers.append(lam.publish_version(FunctionName=fn)["Version"])
        lam.update_function_configuration(FunctionName=fn, **change)
    numbers.append(lam.publish_version(FunctionName=fn)["Version"])
    assert numbers == ["1", "2", "3", "4"]
    assert lam.publish_version(FunctionName=fn)["Version"] == "4"  # nothing changed since 4
    # A version's own description is not a change of $LATEST.
    assert lam.publish_version(FunctionName=fn, Description="labelled")["Version"] == "4"
    lam.update_function_configuration(FunctionName=fn, Timeout=7)  # the same value: no change
    assert lam.publish_version(FunctionName=fn)["Version"] == "4"


def test_publish_answers_active_with_the_revision_later_reads_see(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    published = lam.publish_version(FunctionName=fn, Description="first")
    assert (published["State"], published["LastUpdateStatus"]) == ("Active", "Successful")
    assert "StateReasonCode" not in published and published["Description"] == "first"
    later = lam.get_function_configuration(FunctionName=fn, Qualifier="1")
    assert (later["State"], later["LastUpdateStatus"]) == ("Active", "Successful")
    lam.get_waiter("published_version_active").wait(FunctionName=fn, Qualifier="1")
    assert later["RevisionId"] == published["RevisionId"]
    again = lam.publish_version(FunctionName=fn)  # nothing changed: version 1 as it stands
    assert (again["Version"], again["State"], again["RevisionId"]) == ("1", "Active", published["RevisionId"])


def test_update_code_with_publish_answers_the_new_version_pending(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    updated = lam.update_function_code(FunctionName=fn, ZipFile=make_zip("def handler(e, c):\n    return 2\n"),
                                       Publish=True)  # fmt: skip
    assert (updated["Version"], updated["State"], updated["StateReasonCode"]) == ("1", "Pending", "Creating")
    assert "LastUpdateStatus" not in updated
    assert updated["FunctionArn"].endswith(":1")


def test_after_update_code_with_publish_the_new_version_reads_pending_then_active(
    aws: Callable[..., Any], fn: str
) -> None:
    """As recorded (test_lambda_api.snapshot.json, TestLambdaVersions::test_publish_with_update,
    2023-11): right after the update, GetFunction of the new version reads Pending with the answer's
    RevisionId and $LATEST reads InProgress; once settled both are Active / Successful."""
    lam = aws("lambda")
    updated = lam.update_function_code(FunctionName=fn, ZipFile=make_zip("def handler(e, c):\n    return 2\n"),
                                       Publish=True)  # fmt: skip
    version = lam.get_function(FunctionName=fn, Qualifier="1")["Configuration"]
    assert (version["State"], version["StateReason"], version["StateReasonCode"], version["RevisionId"]) == (
        "Pending", "The function is being created.", "Creating", updated["RevisionId"])  # fmt: skip
    assert "LastUpdateStatus" not in version and version["FunctionArn"].endswith(":1")
    latest = lam.get_function(FunctionName=fn, Qualifier="$LATEST")["Configuration"]
    assert (latest["State"], latest["LastUpdateStatus"], latest["LastUpdateStatusReasonCode"]) == (
        "Active", "InProgress", "Creating")  # fmt: skip
    assert latest["RevisionId"] != updated["RevisionId"] and latest["FunctionArn"].endswith(":$LATEST")

    lam.get_waiter("published_version_active").wait(FunctionName=fn, Qualifier="1")
    lam.get_waiter("function_updated_v2").wait(FunctionName=fn)
    lam.get_waiter("function_active_v2").wait(FunctionName=fn)
    settled = lam.get_function_configuration(FunctionName=fn, Qualifier="1")
    assert (settled["State"], settled["LastUpdateStatus"]) == ("Active", "Successful")
    assert "StateReasonCode" not in settled and settled["RevisionId"] != updated["RevisionId"]
    assert lam.get_function_configuration(FunctionName=fn)["LastUpdateStatus"] == "Successful"
    assert lam.invoke(FunctionName=fn, Qualifier="1")["Payload"].read() == b"2"


def test_lists_leave_out_state_and_runtime_version(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    lam.publish_version(FunctionName=fn)
    listed = lam.list_versions_by_function(FunctionName=fn)["Versions"]
    functions = [f for f in lam.list_functions()["Functions"] if f["FunctionName"] == fn]
    for entry in [*listed, *functions]:
        assert not {"State", "LastUpdateStatus", "RuntimeVersionConfig"} & set(entry), entry
    assert [v["Version"] for v in listed] == ["$LATEST", "1"]


def test_revisions_change_with_every_transition(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"rev-{uuid.uuid4().hex[:8]}"
    created = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": make_zip()})  # fmt: skip
    assert created["State"] == "Pending" and "LastUpdateStatus" not in created
    active = lam.get_function(FunctionName=name)["Configuration"]
    assert active["State"] == "Active" and active["RevisionId"] != created["RevisionId"]
    updated = lam.update_function_configuration(FunctionName=name, Timeout=5, RevisionId=active["RevisionId"])
    assert updated["LastUpdateStatus"] == "InProgress" and updated["RevisionId"] != active["RevisionId"]
    done = lam.get_function_configuration(FunctionName=name)
    assert done["LastUpdateStatus"] == "Successful" and done["RevisionId"] not in (
        updated["RevisionId"], active["RevisionId"])  # fmt: skip
    with pytest.raises(ClientError) as excinfo:  # the answer's revision is gone once the update is done
        lam.update_function_configuration(FunctionName=name, Timeout=6, RevisionId=updated["RevisionId"])
    assert error(excinfo)[0] == "PreconditionFailedException"
    assert lam.get_function_configuration(FunctionName=name)["Timeout"] == 5


def test_alias_routing_weights_are_honoured(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    lam.publish_version(FunctionName=fn)
    lam.update_function_configuration(FunctionName=fn, Description="v2")
    lam.publish_version(FunctionName=fn)

    def executed(alias: str, times: int) -> set[str]:
        seen = set()
        for _ in range(times):
            out = lam.invoke(FunctionName=fn, Qualifier=alias, Payload=b"{}")
            body = json.loads(out["Payload"].read())
            assert body["version"] == out["ExecutedVersion"]
            seen.add(out["ExecutedVersion"])
        return seen

    lam.create_alias(FunctionName=fn, Name="all-new", FunctionVersion="1",
                     RoutingConfig={"AdditionalVersionWeights": {"2": 1.0}})  # fmt: skip
    assert executed("all-new", 3) == {"2"}
    lam.create_alias(FunctionName=fn, Name="none-new", FunctionVersion="1",
                     RoutingConfig={"AdditionalVersionWeights": {"2": 0.0}})  # fmt: skip
    assert executed("none-new", 3) == {"1"}
    alias = lam.create_alias(FunctionName=fn, Name="half", FunctionVersion="1",
                             RoutingConfig={"AdditionalVersionWeights": {"2": 0.5}})  # fmt: skip
    assert alias["RoutingConfig"] == {"AdditionalVersionWeights": {"2": 0.5}}
    assert executed("half", 40) == {"1", "2"}  # both, but for a chance of 2 in 2**40

    with pytest.raises(ClientError) as excinfo:
        lam.create_alias(FunctionName=fn, Name="latest", FunctionVersion="$LATEST",
                         RoutingConfig={"AdditionalVersionWeights": {"2": 0.5}})  # fmt: skip
    assert error(excinfo) == (
        "InvalidParameterValueException", "$LATEST is not supported for an alias pointing to more than 1 version",
        400)  # fmt: skip
    with pytest.raises(ClientError) as excinfo:
        lam.update_alias(FunctionName=fn, Name="half", RoutingConfig={"AdditionalVersionWeights": {"9": 0.5}})
    assert error(excinfo)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as excinfo:  # a weight's key is a version number
        lam.update_alias(FunctionName=fn, Name="half", RoutingConfig={"AdditionalVersionWeights": {"live": 0.5}})
    assert error(excinfo)[0::2] == ("ValidationException", 400)
    assert "at 'routingConfig.additionalVersionWeights'" in error(excinfo)[1]
    assert error(excinfo)[1] == (  # the model's key constraints, in coral's words (wire/validate.py)
        "1 validation error detected: Value '{live=0.5}' at 'routingConfig.additionalVersionWeights' failed to satisfy "
        "constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 1024, Member "
        "must have length greater than or equal to 1, Member must satisfy regular expression pattern: [0-9]+, Member "
        "must not be null]")
    assert lam.get_alias(FunctionName=fn, Name="half")["RoutingConfig"] == {"AdditionalVersionWeights": {"2": 0.5}}


def executed(lam: Any, name: str) -> str:
    out = lam.invoke(FunctionName=name, Payload=b"{}")
    out["Payload"].read()  # an unread body would keep its connection
    return str(out["ExecutedVersion"])


def test_every_name_form_on_every_operation(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{fn}"
    forms = [fn, f"{ACCOUNT}:function:{fn}", arn, f"{fn}:$LATEST", f"{arn}:$LATEST", f"{ACCOUNT}:function:{fn}:$LATEST"]
    for i, form in enumerate(forms):
        # named with :$LATEST, the answer's ARN says so (AWS, as moto's AWS-verified test_get_function records)
        named = arn + ":$LATEST" if form.endswith(":$LATEST") else arn
        assert lam.get_function_configuration(FunctionName=form)["FunctionArn"] == named
        assert lam.get_function_configuration(FunctionName=fn, Qualifier="$LATEST")["FunctionArn"] == arn + ":$LATEST"
        assert lam.get_function(FunctionName=form)["Configuration"]["FunctionName"] == fn
        assert executed(lam, form) == "$LATEST"
        assert lam.update_function_configuration(FunctionName=form, Timeout=10 + i)["Timeout"] == 10 + i
        assert lam.update_function_code(FunctionName=form, ZipFile=make_zip(CODE + f"# {i}\n"))["FunctionName"] == fn
        if form.endswith(":$LATEST"):  # refused (recorded: test_lambda_api test_function_concurrency_exceptions)
            with pytest.raises(ClientError) as refusal:
                lam.put_function_concurrency(FunctionName=form, ReservedConcurrentExecutions=5)
            assert error(refusal)[0] == "InvalidParameterValueException"
        else:
            lam.put_function_concurrency(FunctionName=form, ReservedConcurrentExecutions=5)
        assert lam.get_function_concurrency(FunctionName=form)["ReservedConcurrentExecutions"] == 5
        lam.tag_resource(Resource=arn, Tags={"form": str(i)})
        assert lam.list_tags(Resource=arn)["Tags"] == {"form": str(i)}
        assert lam.list_versions_by_function(FunctionName=form)["Versions"][0]["Version"] == "$LATEST"
        assert lam.publish_version(FunctionName=form)["Version"] == str(i + 1)
    lam.create_alias(FunctionName=f"{arn}:$LATEST", Name="live", FunctionVersion="1")
    for form in (f"{fn}:live", f"{arn}:live", f"{ACCOUNT}:function:{fn}:1", f"{arn}:1"):
        assert executed(lam, form) == "1"
        assert lam.get_function_configuration(FunctionName=form)["Version"] == "1"
    assert lam.get_alias(FunctionName=arn, Name="live")["FunctionVersion"] == "1"
    for call in (lam.get_alias, lam.update_alias):
        with pytest.raises(ClientError) as excinfo:
            call(FunctionName=fn, Name="missing")
        assert error(excinfo) == ("ResourceNotFoundException", f"Cannot find alias arn: {arn}:missing", 404)
    lam.delete_function(FunctionName=f"{arn}:$LATEST".replace(":$LATEST", ""), Qualifier="2")
    assert [v["Version"] for v in lam.list_versions_by_function(FunctionName=arn)["Versions"]] == [
        "$LATEST", "1", *map(str, range(3, len(forms) + 1))]  # fmt: skip


def test_a_function_of_another_region(aws: Callable[..., Any], fn: str) -> None:
    lam = aws("lambda")
    with pytest.raises(ClientError) as excinfo:
        lam.get_function(FunctionName=f"arn:aws:lambda:us-west-2:{ACCOUNT}:function:{fn}")
    assert error(excinfo) == (
        "ResourceNotFoundException", "Functions from 'us-west-2' are not reachable in this region ('us-east-1')", 404)
    with pytest.raises(ClientError) as excinfo:
        lam.invoke(FunctionName=f"arn:aws:lambda:eu-west-1:{ACCOUNT}:function:{fn}", Payload=b"{}")
    assert error(excinfo)[1] == "Functions from 'eu-west-1' are not reachable in this region ('us-east-1')"


def test_the_arn_an_answer_names(aws: Callable[..., Any], role: str) -> None:
    """CreateFunction with Publish answers the new version under the unqualified ARN; a read through
    an alias is named by the alias (both as LocalStack's AWS-recorded snapshots have them)."""
    lam = aws("lambda")
    name = f"arn-{uuid.uuid4().hex[:8]}"
    arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"
    created = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": make_zip()}, Publish=True)  # fmt: skip
    assert (created["FunctionArn"], created["Version"]) == (arn, "1")
    lam.create_alias(FunctionName=name, Name="live", FunctionVersion="1")
    through = lam.get_function(FunctionName=name, Qualifier="live")["Configuration"]
    assert (through["FunctionArn"], through["Version"]) == (f"{arn}:live", "1")
    assert lam.get_function_configuration(FunctionName=f"{name}:1")["FunctionArn"] == f"{arn}:1"
    assert lam.get_function(FunctionName=name)["Configuration"]["FunctionArn"] == arn
