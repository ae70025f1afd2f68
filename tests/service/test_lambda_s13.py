"""Lambda, session 13 (issue 21): PauseDurableExecution, ResumeDurableExecution and
DeleteDurableExecution on real durable executions (a pause really holds the handler back until the
resume; waits and callbacks complete meanwhile; ExecutionTimeoutPaused; PAUSING until the running
invocation's next checkpoint), and the refusals the model names.

These operations are newer than the runtime's botocore floor (1.43.11): the tests skip where the
installed botocore lacks them, and fail under CI=true, whose test extra pins a boto3 that has them."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from tests.service.calls import refused, unique
from tests.service.lambda_setup import ECHO, LAMBDA_TRUST, lambda_role, zip_of
from tests.service.test_lambda_durable import RAW, durable_function, event_invoke, history, sdk_function, until

# Steps around a sleep, so that a test can pause while the invocation is in progress.
SLOW = RAW.replace(
    '    if given.get("mode") == "callback":',
    '''    if given.get("mode") == "slow":
        import time
        s1 = ops.get("s1")
        if s1 is None or s1["Status"] != "SUCCEEDED":
            checkpoint({"Id": "s1", "Type": "STEP", "SubType": "Step", "Action": "START"})
            time.sleep(given.get("sleep", 3))
            checkpoint({"Id": "s1", "Type": "STEP", "SubType": "Step", "Action": "SUCCEED", "Payload": "1"})
        checkpoint({"Id": "s2", "Type": "STEP", "SubType": "Step", "Action": "SUCCEED", "Payload": "2"})
        return {"Status": "SUCCEEDED", "Result": json.dumps("done")}

    if given.get("mode") == "callback":''',
    1,
)


def needs(client: Any, *operations: str) -> None:
    """Skip where the installed botocore does not model the operations (fail under CI=true)."""
    missing = [op for op in operations if op not in client.meta.service_model.operation_names]
    if not missing:
        return
    message = f"botocore lacks {', '.join(missing)} (newer than the runtime floor 1.43.11)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def lam(aws: Callable[..., Any]) -> Any:
    client = aws("lambda")
    needs(client, "PauseDurableExecution", "ResumeDurableExecution", "DeleteDurableExecution")
    return client


def kinds(lam: Any, arn: str) -> list[str]:
    return [e["EventType"] for e in history(lam, arn)]


def status(lam: Any, arn: str) -> str:
    return str(lam.get_durable_execution(DurableExecutionArn=arn)["Status"])


def answered(lam: Any, arn: str) -> None:
    """Until the first invocation answered (PENDING: the execution waits on something)."""
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))


def ended(lam: Any, arn: str) -> str:
    return str(until(lambda: status(lam, arn) not in ("RUNNING", "PAUSING", "PAUSED") and status(lam, arn)))


def test_a_paused_execution_is_not_invoked_until_resumed_while_its_wait_completes(aws: Callable[..., Any],
                                                                                  lam: Any) -> None:  # fmt: skip
    name, version = durable_function(aws)
    arn = event_invoke(lam, name, version, json.dumps({"who": "ada", "wait": 1}).encode())
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))  # answered PENDING: it waits 1 s

    lam.pause_durable_execution(DurableExecutionArn=arn, Reason="deploying")
    execution = lam.get_durable_execution(DurableExecutionArn=arn)
    assert execution["Status"] == "PAUSED"
    pause = execution["PauseDetails"]
    assert (pause["Reason"], pause["ExecutionTimeoutPaused"]) == ("deploying", True)
    assert pause["PauseRequestTimestamp"] >= execution["StartTimestamp"]
    assert "Error" not in execution and "EndTimestamp" not in execution
    listed = lam.list_durable_executions_by_function(FunctionName=name, Qualifier=version, Statuses=["PAUSED"])
    assert [e["DurableExecutionArn"] for e in listed["DurableExecutions"]] == [arn]

    # The wait completes while paused, but the handler is not invoked for it.
    assert until(lambda: "WaitSucceeded" in kinds(lam, arn))
    time.sleep(1.5)
    assert kinds(lam, arn).count("InvocationCompleted") == 1
    assert status(lam, arn) == "PAUSED"

    lam.resume_durable_execution(DurableExecutionArn=arn, Reason="deployed")
    assert ended(lam, arn) == "SUCCEEDED"
    execution = lam.get_durable_execution(DurableExecutionArn=arn)
    assert json.loads(execution["Result"]) == {"greeting": "hello ada"}
    assert "PauseDetails" not in execution
    events = history(lam, arn)
    assert [e["EventType"] for e in events] == [
        "ExecutionStarted", "StepStarted", "StepSucceeded", "WaitStarted", "InvocationCompleted",
        "ExecutionPaused", "WaitSucceeded", "ExecutionResumed", "InvocationCompleted", "ExecutionSucceeded",
    ]  # fmt: skip
    paused, resumed = events[5], events[7]
    assert paused["ExecutionPausedDetails"]["Reason"] == {"Payload": "deploying"}
    assert paused["ExecutionPausedDetails"]["ExecutionTimeoutPaused"] is True
    assert paused["ExecutionPausedDetails"]["PauseRequestTimestamp"] == pause["PauseRequestTimestamp"]
    assert resumed["ExecutionResumedDetails"]["Reason"] == {"Payload": "deployed"}
    assert resumed["ExecutionResumedDetails"]["ResumeRequestTimestamp"] <= resumed["EventTimestamp"]
    bare = lam.get_durable_execution_history(DurableExecutionArn=arn, IncludeExecutionData=False)["Events"]
    assert "Payload" not in bare[5]["ExecutionPausedDetails"].get("Reason", {})


def test_a_pause_during_an_invocation_takes_effect_at_its_next_checkpoint(aws: Callable[..., Any],
                                                                          lam: Any) -> None:  # fmt: skip
    name, version = durable_function(aws, SLOW)
    arn = event_invoke(lam, name, version, b'{"mode": "slow", "sleep": 5}')
    assert until(lambda: "StepStarted" in kinds(lam, arn))  # the invocation sleeps between its checkpoints

    lam.pause_durable_execution(DurableExecutionArn=arn, ExecutionTimeoutPaused=False)
    execution = lam.get_durable_execution(DurableExecutionArn=arn)
    assert execution["Status"] == "PAUSING"
    assert execution["PauseDetails"]["ExecutionTimeoutPaused"] is False
    assert "Reason" not in execution["PauseDetails"]

    assert until(lambda: status(lam, arn) == "PAUSED")
    # Its checkpoint was kept; what it tried after the pause was not, and the execution did not fail.
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))
    assert status(lam, arn) == "PAUSED"
    assert kinds(lam, arn) == ["ExecutionStarted", "StepStarted", "StepSucceeded", "ExecutionPaused",
                               "InvocationCompleted"]  # fmt: skip

    lam.resume_durable_execution(DurableExecutionArn=arn)  # the pause interrupted it: invoked again
    assert ended(lam, arn) == "SUCCEEDED"
    assert kinds(lam, arn)[4:] == ["InvocationCompleted", "ExecutionResumed", "StepStarted", "StepSucceeded",
                                   "InvocationCompleted", "ExecutionSucceeded"]  # fmt: skip
    failed = next(e for e in history(lam, arn) if e["EventType"] == "InvocationCompleted")
    assert failed["InvocationCompletedDetails"]["Error"]  # its checkpoint after the pause was refused


def test_resuming_a_pausing_execution_cancels_the_pause(aws: Callable[..., Any], lam: Any) -> None:
    name, version = durable_function(aws, SLOW)
    arn = event_invoke(lam, name, version, b'{"mode": "slow", "sleep": 5}')
    assert until(lambda: "StepStarted" in kinds(lam, arn))
    lam.pause_durable_execution(DurableExecutionArn=arn)
    assert status(lam, arn) == "PAUSING"
    lam.resume_durable_execution(DurableExecutionArn=arn)
    assert status(lam, arn) == "RUNNING"
    assert "PauseDetails" not in lam.get_durable_execution(DurableExecutionArn=arn)
    assert ended(lam, arn) == "SUCCEEDED"
    assert kinds(lam, arn) == ["ExecutionStarted", "StepStarted", "StepSucceeded", "StepStarted", "StepSucceeded",
                               "InvocationCompleted", "ExecutionSucceeded"]  # fmt: skip


def test_a_callback_completes_while_paused_and_the_resume_invokes_for_it(aws: Callable[..., Any],
                                                                         lam: Any) -> None:  # fmt: skip
    name, version = durable_function(aws)
    arn = event_invoke(lam, name, version, b'{"mode": "callback"}')
    [event] = until(lambda: [e for e in history(lam, arn) if e["EventType"] == "CallbackStarted"])
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))
    lam.pause_durable_execution(DurableExecutionArn=arn)
    lam.send_durable_execution_callback_success(CallbackId=event["CallbackStartedDetails"]["CallbackId"],
                                                Result=b'"yes"')  # fmt: skip
    assert "CallbackSucceeded" in kinds(lam, arn)
    time.sleep(1.0)
    assert status(lam, arn) == "PAUSED" and kinds(lam, arn).count("InvocationCompleted") == 1

    # Invoking by the paused execution's name gives it back, still paused (docs: durable-pause-resume).
    again = lam.invoke(FunctionName=name, Qualifier=version, InvocationType="Event", Payload=b'{"mode": "callback"}',
                       DurableExecutionName=lam.get_durable_execution(DurableExecutionArn=arn)["DurableExecutionName"])
    assert again["DurableExecutionArn"] == arn and status(lam, arn) == "PAUSED"

    lam.resume_durable_execution(DurableExecutionArn=arn)
    assert ended(lam, arn) == "SUCCEEDED"
    assert lam.get_durable_execution(DurableExecutionArn=arn)["Result"] == '"yes"'


def test_a_paused_timeout_does_not_run_out_and_an_unpaused_one_does(aws: Callable[..., Any], lam: Any) -> None:
    # 10 s: long enough for both first invocations to answer before it, on a loaded machine too.
    name, version = durable_function(aws, ExecutionTimeout=10)
    held = event_invoke(lam, name, version, b'{"mode": "callback"}')
    free = event_invoke(lam, name, version, b'{"mode": "callback"}')  # started after `held`
    for arn in (held, free):
        answered(lam, arn)
    lam.pause_durable_execution(DurableExecutionArn=held)  # ExecutionTimeoutPaused defaults to true
    lam.pause_durable_execution(DurableExecutionArn=free, ExecutionTimeoutPaused=False)
    assert until(lambda: status(lam, free) == "TIMED_OUT", 30)
    time.sleep(1.0)  # `held`'s own 10 s, which started first, are over too
    assert status(lam, held) == "PAUSED"
    lam.resume_durable_execution(DurableExecutionArn=held)
    assert until(lambda: status(lam, held) == "TIMED_OUT", 30)  # the rest of its 10 s, once resumed
    assert "ExecutionResumed" in kinds(lam, held)


def test_a_paused_execution_can_be_stopped(aws: Callable[..., Any], lam: Any) -> None:
    name, version = durable_function(aws)
    arn = event_invoke(lam, name, version, b'{"mode": "callback"}')
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))
    lam.pause_durable_execution(DurableExecutionArn=arn)
    lam.stop_durable_execution(DurableExecutionArn=arn)
    execution = lam.get_durable_execution(DurableExecutionArn=arn)
    assert execution["Status"] == "STOPPED" and "PauseDetails" not in execution
    assert refused(lam.resume_durable_execution, DurableExecutionArn=arn)[0] == "ResourceConflictException"


def test_pause_and_resume_refusals_and_client_tokens(aws: Callable[..., Any], lam: Any) -> None:
    name, version = durable_function(aws)
    arn = event_invoke(lam, name, version, b'{"mode": "callback"}')
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))
    code, _ = refused(lam.resume_durable_execution, DurableExecutionArn=arn)  # running, not paused
    assert code == "ResourceConflictException"

    lam.pause_durable_execution(DurableExecutionArn=arn, ClientToken="pause-1", Reason="r")
    lam.pause_durable_execution(DurableExecutionArn=arn, ClientToken="pause-1", Reason="r")  # the same request
    assert refused(lam.pause_durable_execution, DurableExecutionArn=arn)[0] == "ResourceConflictException"
    assert kinds(lam, arn).count("ExecutionPaused") == 1

    lam.resume_durable_execution(DurableExecutionArn=arn, ClientToken="resume-1")
    lam.resume_durable_execution(DurableExecutionArn=arn, ClientToken="resume-1")
    assert status(lam, arn) == "RUNNING" and kinds(lam, arn).count("ExecutionResumed") == 1
    lam.stop_durable_execution(DurableExecutionArn=arn)
    assert refused(lam.pause_durable_execution, DurableExecutionArn=arn)[0] == "ResourceConflictException"

    gone = arn.rsplit("/", 1)[0] + "/00000000-0000-0000-0000-000000000000"
    for call in (lam.pause_durable_execution, lam.resume_durable_execution, lam.delete_durable_execution):
        assert refused(call, DurableExecutionArn=gone)[0] == "ResourceNotFoundException"
    code, _ = refused(lam.pause_durable_execution, DurableExecutionArn=arn, Reason="x" * 1025)
    assert code in ("ValidationException", "InvalidParameterValueException")


def test_only_an_ended_execution_is_deleted(aws: Callable[..., Any], lam: Any) -> None:
    name, version = durable_function(aws)
    arn = event_invoke(lam, name, version, b'{"mode": "callback"}')
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))
    assert refused(lam.delete_durable_execution, DurableExecutionArn=arn)[0] == "ResourceConflictException"
    lam.pause_durable_execution(DurableExecutionArn=arn)
    assert refused(lam.delete_durable_execution, DurableExecutionArn=arn)[0] == "ResourceConflictException"
    assert status(lam, arn) == "PAUSED"

    lam.stop_durable_execution(DurableExecutionArn=arn)
    before = lam.get_durable_execution(DurableExecutionArn=arn)["EndTimestamp"]
    out = lam.delete_durable_execution(DurableExecutionArn=arn)
    assert out["ResponseMetadata"]["HTTPStatusCode"] == 202
    assert out["DeletionRequestTimestamp"] >= before
    assert refused(lam.get_durable_execution, DurableExecutionArn=arn)[0] == "ResourceNotFoundException"
    assert refused(lam.get_durable_execution_history, DurableExecutionArn=arn)[0] == "ResourceNotFoundException"
    listed = lam.list_durable_executions_by_function(FunctionName=name, Qualifier=version)["DurableExecutions"]
    assert arn not in [e["DurableExecutionArn"] for e in listed]
    assert refused(lam.delete_durable_execution, DurableExecutionArn=arn)[0] == "ResourceNotFoundException"


# ---------------------------------------------------------------------- resource policies as documents
@pytest.fixture
def rp(aws: Callable[..., Any]) -> Any:
    client = aws("lambda")
    needs(client, "PutResourcePolicy", "GetResourcePolicy", "DeleteResourcePolicy")
    return client


def plain_function(aws: Callable[..., Any]) -> str:
    """A new (non-durable) function's ARN."""
    name = unique("rp")
    out = aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=lambda_role(aws, "rp"),
                                        Handler="app.handler", Code={"ZipFile": zip_of(ECHO)})  # fmt: skip
    return str(out["FunctionArn"])


def grant(arn: str, sid: str, service: str, **condition: Any) -> dict[str, Any]:
    statement: dict[str, Any] = {"Sid": sid, "Effect": "Allow", "Principal": {"Service": service},
                                 "Action": "lambda:InvokeFunction", "Resource": arn}  # fmt: skip
    if condition:
        statement["Condition"] = condition
    return statement


def document(*statements: dict[str, Any]) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def test_put_get_delete_a_resource_policy_is_the_functions_one_policy(aws: Callable[..., Any], rp: Any) -> None:
    arn = plain_function(aws)
    assert refused(rp.get_resource_policy, ResourceArn=arn) == (
        "ResourceNotFoundException", "The resource you requested does not exist.")  # fmt: skip

    put = rp.put_resource_policy(ResourceArn=arn, Policy=document(grant(arn, "sns", "sns.amazonaws.com")))
    assert json.loads(put["Policy"])["Statement"] == [grant(arn, "sns", "sns.amazonaws.com")]
    got = rp.get_resource_policy(ResourceArn=arn)
    assert (got["Policy"], got["RevisionId"]) == (put["Policy"], put["RevisionId"])
    # The same policy GetPolicy answers, under the function's RevisionId (a policy change moves both).
    policy = rp.get_policy(FunctionName=arn)
    assert (policy["Policy"], policy["RevisionId"]) == (put["Policy"], put["RevisionId"])
    assert rp.get_function(FunctionName=arn)["Configuration"]["RevisionId"] == put["RevisionId"]

    # AddPermission adds to it; PutResourcePolicy replaces the whole of it.
    rp.add_permission(FunctionName=arn, StatementId="events", Action="lambda:InvokeFunction",
                      Principal="events.amazonaws.com")  # fmt: skip
    sids = [s["Sid"] for s in json.loads(rp.get_resource_policy(ResourceArn=arn)["Policy"])["Statement"]]
    assert sids == ["sns", "events"]
    rp.put_resource_policy(ResourceArn=arn, Policy=document(grant(arn, "s3", "s3.amazonaws.com")))
    assert [s["Sid"] for s in json.loads(rp.get_policy(FunctionName=arn)["Policy"])["Statement"]] == ["s3"]
    assert refused(rp.remove_permission, FunctionName=arn, StatementId="events")[0] == "ResourceNotFoundException"

    rp.delete_resource_policy(ResourceArn=arn)
    assert refused(rp.get_policy, FunctionName=arn)[0] == "ResourceNotFoundException"
    assert refused(rp.get_resource_policy, ResourceArn=arn)[0] == "ResourceNotFoundException"
    assert refused(rp.delete_resource_policy, ResourceArn=arn)[0] == "ResourceNotFoundException"


def test_the_revision_id_guards_put_and_delete(aws: Callable[..., Any], rp: Any) -> None:
    arn = plain_function(aws)
    first = rp.put_resource_policy(ResourceArn=arn, Policy=document(grant(arn, "a", "sns.amazonaws.com")))
    stale = "00000000-0000-0000-0000-000000000000"
    for call, more in ((rp.put_resource_policy, {"Policy": document(grant(arn, "b", "sns.amazonaws.com"))}),
                       (rp.delete_resource_policy, {})):  # fmt: skip
        code, _ = refused(call, ResourceArn=arn, RevisionId=stale, **more)
        assert code == "PreconditionFailedException"
    assert rp.get_resource_policy(ResourceArn=arn)["Policy"] == first["Policy"]  # nothing changed

    second = rp.put_resource_policy(ResourceArn=arn, Policy=document(grant(arn, "b", "sns.amazonaws.com")),
                                    RevisionId=first["RevisionId"])  # fmt: skip
    assert second["RevisionId"] != first["RevisionId"]
    assert refused(rp.delete_resource_policy, ResourceArn=arn, RevisionId=first["RevisionId"])[0] == (
        "PreconditionFailedException")  # fmt: skip
    rp.delete_resource_policy(ResourceArn=arn, RevisionId=second["RevisionId"])
    assert refused(rp.get_resource_policy, ResourceArn=arn)[0] == "ResourceNotFoundException"


def test_a_version_and_an_alias_hold_policies_of_their_own(aws: Callable[..., Any], rp: Any) -> None:
    arn = plain_function(aws)
    version = rp.publish_version(FunctionName=arn)["Version"]
    rp.create_alias(FunctionName=arn, Name="live", FunctionVersion=version)
    for qualified in (f"{arn}:{version}", f"{arn}:live"):
        rp.put_resource_policy(ResourceArn=qualified, Policy=document(grant(qualified, "q", "sns.amazonaws.com")))
        got = json.loads(rp.get_resource_policy(ResourceArn=qualified)["Policy"])
        assert got["Statement"][0]["Resource"] == qualified
        qualifier = qualified.rsplit(":", 1)[1]
        assert rp.get_policy(FunctionName=arn, Qualifier=qualifier)["Policy"] == json.dumps(
            got, separators=(",", ":"))  # fmt: skip
    assert refused(rp.get_resource_policy, ResourceArn=arn)[0] == "ResourceNotFoundException"


def test_a_put_policy_decides_what_a_service_may_invoke(aws: Callable[..., Any], rp: Any) -> None:
    """CloudWatch Logs checks the function's policy when a subscription filter names it."""
    arn = plain_function(aws)
    logs = aws("logs")
    group = unique("/rp/group")
    logs.create_log_group(logGroupName=group)

    def subscribe() -> None:
        logs.put_subscription_filter(logGroupName=group, filterName="f", filterPattern="", destinationArn=arn)

    assert refused(subscribe)[0] == "InvalidParameterException"
    rp.put_resource_policy(ResourceArn=arn, Policy=document(grant(arn, "logs", "logs.amazonaws.com")))
    subscribe()
    assert [f["filterName"] for f in logs.describe_subscription_filters(logGroupName=group)["subscriptionFilters"]] == [
        "f"
    ]


def test_resource_policy_refusals(aws: Callable[..., Any], rp: Any) -> None:
    arn = plain_function(aws)
    missing = arn + "-gone"
    for call, more in ((rp.put_resource_policy, {"Policy": document(grant(missing, "a", "sns.amazonaws.com"))}),
                       (rp.get_resource_policy, {}), (rp.delete_resource_policy, {})):  # fmt: skip
        code, message = refused(call, ResourceArn=missing, **more)
        assert code == "ResourceNotFoundException", (call, message)
    assert refused(rp.put_resource_policy, ResourceArn=arn, Policy="{not json")[0] == "InvalidParameterValueException"
    no_principal = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": arn}]})  # fmt: skip
    assert refused(rp.put_resource_policy, ResourceArn=arn, Policy=no_principal)[0] == "InvalidParameterValueException"
    latest = f"{arn}:$LATEST"
    code, _ = refused(rp.put_resource_policy, ResourceArn=latest, Policy=document(grant(arn, "a", "sns.amazonaws.com")))
    assert code == "InvalidParameterValueException"
    assert refused(rp.get_resource_policy, ResourceArn=arn)[0] == "ResourceNotFoundException"  # nothing written


# ---------------------------------------------------------------------- another account's function
CALLER, OWNER, REGION = "000000000000", "111111111111", "us-east-1"


def denial(action: str, resource: str) -> tuple[str, str]:
    """AWS's refusal of an ungranted call on another account's resource (a 403)."""
    return ("AccessDeniedException", f"User: arn:aws:iam::{CALLER}:root is not authorized to perform: {action} on "
            f"resource: {resource} because no resource-based policy allows the {action} action")  # fmt: skip


def denied(call: Callable[..., Any], **params: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as e:
        call(**params)
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]


@pytest.fixture
def owned(aws: Callable[..., Any]) -> tuple[Any, str]:
    """(the owner account's client, a function of that account with a version 1 and an alias live)."""
    owner = aws("lambda", access_key=OWNER)  # a 12-digit key acts as that account's root
    name = unique("xa")
    role = aws("iam", access_key=OWNER).create_role(RoleName=unique("xa"),
                                                    AssumeRolePolicyDocument=json.dumps(LAMBDA_TRUST))["Role"]["Arn"]
    arn = owner.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                Code={"ZipFile": zip_of(ECHO)})["FunctionArn"]  # fmt: skip
    assert f":{OWNER}:" in arn
    owner.publish_version(FunctionName=name)
    owner.create_alias(FunctionName=name, Name="live", FunctionVersion="1")
    return owner, str(arn)


def test_another_accounts_function_is_refused_403_not_404(aws: Callable[..., Any], owned: tuple[Any, str]) -> None:
    lam = aws("lambda")
    _, arn = owned
    assert denied(lam.get_function, FunctionName=arn) == denial("lambda:GetFunction", arn)
    assert denied(lam.get_function_configuration, FunctionName=arn) == denial("lambda:GetFunctionConfiguration", arn)
    assert denied(lam.invoke, FunctionName=arn, Payload=b"{}") == denial("lambda:InvokeFunction", arn)
    assert denied(lam.get_function, FunctionName=arn, Qualifier="live") == denial("lambda:GetFunction", f"{arn}:live")
    assert denied(lam.list_aliases, FunctionName=arn) == denial("lambda:ListAliases", arn)
    gone = arn.rsplit(":", 1)[0] + ":" + unique("gone")  # AWS cannot tell the caller it is missing either
    assert denied(lam.get_function, FunctionName=gone) == denial("lambda:GetFunction", gone)
    # The caller's own account is unchanged: a missing function there is not found.
    mine = f"arn:aws:lambda:{REGION}:{CALLER}:function:{unique('none')}"
    assert refused(lam.get_function, FunctionName=mine)[0] == "ResourceNotFoundException"


def test_a_grant_lets_another_account_read_and_invoke_what_it_names(aws: Callable[..., Any],
                                                                    owned: tuple[Any, str]) -> None:  # fmt: skip
    lam = aws("lambda")
    owner, arn = owned
    owner.add_permission(FunctionName=arn, StatementId="read", Action="lambda:GetFunction", Principal=CALLER)
    got = lam.get_function(FunctionName=arn)
    assert got["Configuration"]["FunctionArn"] == arn
    # Only what the policy names: GetFunctionConfiguration is still refused.
    assert denied(lam.get_function_configuration, FunctionName=arn) == denial("lambda:GetFunctionConfiguration", arn)

    # The alias's own policy (put as a whole document) lets the caller invoke through the alias only.
    needs(owner, "PutResourcePolicy")
    live = f"{arn}:live"
    owner.put_resource_policy(ResourceArn=live, Policy=json.dumps({"Version": "2012-10-17", "Statement": [{
        "Sid": "xaccount", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{CALLER}:root"},
        "Action": "lambda:InvokeFunction", "Resource": live}]}))  # fmt: skip
    out = lam.invoke(FunctionName=live, Payload=b'{"n": 1}')
    assert (out["StatusCode"], out["ExecutedVersion"], json.loads(out["Payload"].read())) == (200, "1", {"n": 1})
    assert denied(lam.invoke, FunctionName=arn, Payload=b"{}") == denial("lambda:InvokeFunction", arn)
    # An explicit deny in the owner's policy wins over its grant.
    owner.put_resource_policy(ResourceArn=arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "read", "Effect": "Allow", "Principal": {"AWS": CALLER}, "Action": "lambda:GetFunction",
         "Resource": arn},
        {"Sid": "no", "Effect": "Deny", "Principal": "*", "Action": "lambda:GetFunction", "Resource": arn},
    ]}))  # fmt: skip
    code, message = denied(lam.get_function, FunctionName=arn)
    assert code == "AccessDeniedException" and message.endswith("with an explicit deny in a resource-based policy")


def test_the_reads_and_settings_another_account_is_granted(aws: Callable[..., Any], owned: tuple[Any, str]) -> None:
    lam = aws("lambda")
    owner, arn = owned
    owner.tag_resource(Resource=arn, Tags={"team": "a"})
    owner.put_function_concurrency(FunctionName=arn, ReservedConcurrentExecutions=3)
    assert denied(lam.list_versions_by_function, FunctionName=arn) == denial("lambda:ListVersionsByFunction", arn)
    owner.add_permission(FunctionName=arn, StatementId="reads", Action="lambda:*", Principal=CALLER)
    assert [a["AliasArn"] for a in lam.list_aliases(FunctionName=arn)["Aliases"]] == [f"{arn}:live"]
    assert lam.get_alias(FunctionName=arn, Name="live")["FunctionVersion"] == "1"
    versions = lam.list_versions_by_function(FunctionName=arn)["Versions"]
    assert [v["FunctionArn"] for v in versions] == [f"{arn}:$LATEST", f"{arn}:1"]
    assert json.loads(lam.get_policy(FunctionName=arn)["Policy"])["Statement"][0]["Sid"] == "reads"
    assert lam.list_tags(Resource=arn)["Tags"] == {"team": "a"}
    assert lam.get_function_concurrency(FunctionName=arn)["ReservedConcurrentExecutions"] == 3
    # Tagging and reserved concurrency too, written to the owner's function.
    lam.tag_resource(Resource=arn, Tags={"by": "caller"})
    lam.untag_resource(Resource=arn, TagKeys=["team"])
    lam.put_function_concurrency(FunctionName=arn, ReservedConcurrentExecutions=5)
    assert owner.list_tags(Resource=arn)["Tags"] == {"by": "caller"}
    assert owner.get_function_concurrency(FunctionName=arn)["ReservedConcurrentExecutions"] == 5
    lam.delete_function_concurrency(FunctionName=arn)
    assert "ReservedConcurrentExecutions" not in owner.get_function_concurrency(FunctionName=arn)


def test_another_accounts_layer_version_is_read_once_its_policy_grants_it(aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    owner = aws("lambda", access_key=OWNER)
    layer = owner.publish_layer_version(LayerName=unique("xa-layer"), Content={"ZipFile": zip_of(ECHO)})
    arn = layer["LayerVersionArn"]
    assert denied(lam.get_layer_version_by_arn, Arn=arn) == denial("lambda:GetLayerVersion", arn)
    owner.add_layer_version_permission(LayerName=layer["LayerArn"], VersionNumber=layer["Version"], StatementId="all",
                                       Action="lambda:GetLayerVersion", Principal="*")  # fmt: skip
    assert lam.get_layer_version_by_arn(Arn=arn)["LayerVersionArn"] == arn


SDK_SLOW = """
import time
from aws_durable_execution_sdk_python import DurableContext, durable_execution


def first(_):
    time.sleep(5)  # long enough for the test to pause it meanwhile
    return 1


@durable_execution
def handler(event, context: DurableContext):
    a = context.step(first, name="first")
    b = context.step(lambda _: a + 1, name="second")
    return {"sum": a + b}
"""


def test_the_durable_sdk_paused_at_a_checkpoint_replays_after_the_resume(aws: Callable[..., Any], lam: Any) -> None:
    """The real SDK (aws-durable-execution-sdk-python): paused while its first step runs, the step's
    result is kept, its invocation ends there, and the resume's invocation replays it."""
    name = sdk_function(aws, SDK_SLOW)
    arn = event_invoke(lam, name, "$LATEST", b"{}")
    assert until(lambda: "StepStarted" in kinds(lam, arn))
    lam.pause_durable_execution(DurableExecutionArn=arn)
    assert status(lam, arn) == "PAUSING"
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))
    assert status(lam, arn) == "PAUSED"
    steps = [e for e in history(lam, arn) if e["EventType"] == "StepSucceeded"]
    assert [e["Name"] for e in steps] == ["first"]
    lam.resume_durable_execution(DurableExecutionArn=arn)
    assert ended(lam, arn) == "SUCCEEDED"
    assert json.loads(lam.get_durable_execution(DurableExecutionArn=arn)["Result"]) == {"sum": 3}
    assert [e["Name"] for e in history(lam, arn) if e["EventType"] == "StepSucceeded"] == ["first", "second"]


def test_a_paused_execution_stays_paused_across_a_restart(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    from serverproc import client_factory

    data = tmp_path / "data"
    first = server_factory(data)
    aws = client_factory(first.url)
    lam = aws("lambda")
    needs(lam, "PauseDurableExecution")
    name, version = durable_function(aws)
    arn = event_invoke(lam, name, version, b'{"who": "restart", "wait": 1}')
    assert until(lambda: "InvocationCompleted" in kinds(lam, arn))
    lam.pause_durable_execution(DurableExecutionArn=arn, Reason="over the restart")
    assert first.stop() == 0
    second = server_factory(data)
    lam = client_factory(second.url)("lambda")
    assert until(lambda: "WaitSucceeded" in kinds(lam, arn))  # its wait still completes
    time.sleep(1.0)
    execution = lam.get_durable_execution(DurableExecutionArn=arn)
    assert (execution["Status"], execution["PauseDetails"]["Reason"]) == ("PAUSED", "over the restart")
    assert kinds(lam, arn).count("InvocationCompleted") == 1
    lam.resume_durable_execution(DurableExecutionArn=arn)
    assert ended(lam, arn) == "SUCCEEDED"
