"""Distributed Map runs through boto3: the map run, its child executions, their histories, and
DescribeMapRun / ListMapRuns / UpdateMapRun, as the Step Functions API reference describes them."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
ALLOW_ALL = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    iam = aws("iam")
    name = f"sfn-maprun-{uuid.uuid4().hex[:8]}"
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    iam.put_role_policy(RoleName=name, PolicyName="all", PolicyDocument=ALLOW_ALL)
    return arn


@pytest.fixture(scope="module")
def sfn(aws: Callable[..., Any]) -> Any:
    return aws("stepfunctions")


def machine(sfn: Any, role: str, map_state: dict[str, Any], name: str | None = None) -> str:
    definition = {"StartAt": "M", "States": {"M": {"Type": "Map", "End": True, **map_state}}}
    return sfn.create_state_machine(name=name or f"mr-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                    roleArn=role)["stateMachineArn"]


def processor(states: dict[str, Any], execution_type: str = "STANDARD") -> dict[str, Any]:
    return {"ProcessorConfig": {"Mode": "DISTRIBUTED", "ExecutionType": execution_type},
            "StartAt": next(iter(states)), "States": states}


def wait(sfn: Any, arn: str) -> dict[str, Any]:
    deadline = time.time() + 60
    while (d := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        assert time.time() < deadline, d
        time.sleep(0.05)
    return d


def start(sfn: Any, sm: str, data: Any) -> str:
    return sfn.start_execution(stateMachineArn=sm, input=json.dumps(data))["executionArn"]


def test_a_map_run_and_its_child_executions(sfn: Any, role: str) -> None:
    name = f"mr-{uuid.uuid4().hex[:10]}"
    sm = machine(sfn, role, {"Label": "Doubler", "ItemProcessor": processor({
        "Double": {"Type": "Pass", "Parameters": {"v.$": "States.MathAdd($.v, $.v)"}, "End": True}})}, name)
    arn = start(sfn, sm, [{"v": 1}, {"v": 2}, {"v": 3}])
    d = wait(sfn, arn)
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [{"v": 2}, {"v": 4}, {"v": 6}]

    events = sfn.get_execution_history(executionArn=arn)["events"]
    assert [e["type"] for e in events] == [
        "ExecutionStarted", "MapStateEntered", "MapStateStarted", "MapRunStarted", "MapRunSucceeded",
        "MapStateSucceeded", "MapStateExited", "ExecutionSucceeded"]
    run_arn = events[3]["mapRunStartedEventDetails"]["mapRunArn"]
    assert re.fullmatch(rf"arn:aws:states:us-east-1:\d{{12}}:mapRun:{name}/Doubler:{UUID}", run_arn)

    runs = sfn.list_map_runs(executionArn=arn)["mapRuns"]
    # AWS lists the run's labelled machine (test_sfn_api_map_run.snapshot.json)
    labelled = sm.replace(f":stateMachine:{name}", f":stateMachine:{name}/Doubler")
    assert [(r["mapRunArn"], r["executionArn"], r["stateMachineArn"]) for r in runs] == [(run_arn, arn, labelled)]
    assert "stopDate" in runs[0]

    run = sfn.describe_map_run(mapRunArn=run_arn)
    assert run["status"] == "SUCCEEDED"
    assert run["executionArn"] == arn
    assert (run["maxConcurrency"], run["toleratedFailureCount"], run["toleratedFailurePercentage"]) == (0, 0, 0.0)
    # without a ResultWriter a succeeded run's results count as written (AWS, test_sfn_api_map_run.snapshot.json)
    counts = {"pending": 0, "running": 0, "succeeded": 3, "failed": 0, "timedOut": 0, "aborted": 0, "total": 3,
              "resultsWritten": 3}
    assert run["itemCounts"] == counts
    assert run["executionCounts"] == counts

    children = sfn.list_executions(mapRunArn=run_arn)["executions"]
    assert len(children) == 3
    for child in children:
        assert child["stateMachineArn"] == labelled
        assert child["mapRunArn"] == run_arn
        assert child["itemCount"] == 1
        assert child["status"] == "SUCCEEDED"
        assert re.fullmatch(rf"arn:aws:states:us-east-1:\d{{12}}:execution:{name}/Doubler:{UUID}",
                            child["executionArn"])
        assert child["executionArn"].endswith(":" + child["name"])
    outputs = sorted(json.loads(sfn.describe_execution(executionArn=c["executionArn"])["output"])["v"]
                     for c in children)
    assert outputs == [2, 4, 6]

    one = sfn.describe_execution(executionArn=children[0]["executionArn"])
    assert one["mapRunArn"] == run_arn
    assert one["stateMachineArn"] == labelled
    history = sfn.get_execution_history(executionArn=one["executionArn"])["events"]
    assert [(e["type"], e["id"], e["previousEventId"]) for e in history] == [
        ("ExecutionStarted", 1, 0), ("PassStateEntered", 2, 1), ("PassStateExited", 3, 2),
        ("ExecutionSucceeded", 4, 3)]
    assert history[0]["executionStartedEventDetails"]["input"] == one["input"]
    assert history[3]["executionSucceededEventDetails"]["output"] == one["output"]


def test_a_failing_child_fails_the_map_run(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor({
        "C": {"Type": "Choice", "Choices": [{"Variable": "$", "NumericEquals": 2, "Next": "Boom"}],
              "Default": "Ok"},
        "Ok": {"Type": "Pass", "End": True},
        "Boom": {"Type": "Fail", "Error": "Bad", "Cause": "two"}}), "MaxConcurrency": 1})
    arn = start(sfn, sm, [1, 2, 3])
    d = wait(sfn, arn)
    assert d["status"] == "FAILED"
    assert (d["error"], d["cause"]) == ("Bad", "two")
    types = [e["type"] for e in sfn.get_execution_history(executionArn=arn)["events"]]
    assert types[-4:] == ["MapRunStarted", "MapRunFailed", "MapStateFailed", "ExecutionFailed"]
    run_arn = sfn.list_map_runs(executionArn=arn)["mapRuns"][0]["mapRunArn"]
    run = sfn.describe_map_run(mapRunArn=run_arn)
    assert run["status"] == "FAILED"
    assert run["maxConcurrency"] == 1
    # One at a time: item 3 never started.
    assert run["executionCounts"] | {} == {"pending": 1, "running": 0, "succeeded": 1, "failed": 1, "timedOut": 0,
                                          "aborted": 0, "total": 3, "resultsWritten": 0}
    failed = sfn.list_executions(mapRunArn=run_arn, statusFilter="FAILED")["executions"]
    assert len(failed) == 1
    child = sfn.describe_execution(executionArn=failed[0]["executionArn"])
    assert (child["error"], child["cause"], child["redriveStatus"]) == ("Bad", "two", "REDRIVABLE_BY_MAP_RUN")
    last = sfn.get_execution_history(executionArn=child["executionArn"], reverseOrder=True)["events"][0]
    assert last["type"] == "ExecutionFailed"
    assert last["executionFailedEventDetails"] == {"error": "Bad", "cause": "two"}


def test_batches_count_items_and_executions_apart(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemBatcher": {"MaxItemsPerBatch": 2}, "ToleratedFailurePercentage": 50,
                             "ItemProcessor": processor({"P": {"Type": "Pass", "End": True}}, "EXPRESS")})
    arn = start(sfn, sm, [1, 2, 3, 4, 5])
    assert wait(sfn, arn)["status"] == "SUCCEEDED"
    run_arn = sfn.list_map_runs(executionArn=arn)["mapRuns"][0]["mapRunArn"]
    run = sfn.describe_map_run(mapRunArn=run_arn)
    assert run["toleratedFailurePercentage"] == 50.0
    assert (run["itemCounts"]["succeeded"], run["itemCounts"]["total"]) == (5, 5)
    assert (run["executionCounts"]["succeeded"], run["executionCounts"]["total"]) == (3, 3)
    children = sfn.list_executions(mapRunArn=run_arn)["executions"]
    assert sorted(c["itemCount"] for c in children) == [1, 2, 2]
    assert all(":express:" in c["executionArn"] for c in children)


def test_update_map_run_while_it_runs(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"MaxConcurrency": 1, "ItemProcessor": processor({
        "W": {"Type": "Wait", "Seconds": 1, "End": True}})})
    arn = start(sfn, sm, [1, 2, 3, 4])
    deadline = time.time() + 30
    while not (runs := sfn.list_map_runs(executionArn=arn)["mapRuns"]):
        assert time.time() < deadline
        time.sleep(0.05)
    run_arn = runs[0]["mapRunArn"]
    running = sfn.describe_map_run(mapRunArn=run_arn)
    assert running["status"] == "RUNNING"
    assert running["executionCounts"]["running"] == 1
    sfn.update_map_run(mapRunArn=run_arn, maxConcurrency=4, toleratedFailureCount=2)
    updated = sfn.describe_map_run(mapRunArn=run_arn)
    assert (updated["maxConcurrency"], updated["toleratedFailureCount"]) == (4, 2)
    assert wait(sfn, arn)["status"] == "SUCCEEDED"
    done = sfn.describe_map_run(mapRunArn=run_arn)
    assert done["executionCounts"]["succeeded"] == 4
    # Once the first child ended, the other three ran side by side (their spans overlap).
    spans = sorted((c["startDate"], c["stopDate"]) for c in sfn.list_executions(mapRunArn=run_arn)["executions"])
    assert spans[0][1] <= spans[1][0]
    assert spans[2][0] < spans[1][1] and spans[3][0] < spans[1][1]
    with pytest.raises(ClientError) as e:
        sfn.update_map_run(mapRunArn=run_arn, maxConcurrency=2)
    assert e.value.response["Error"]["Code"] == "ValidationException"


def test_stopping_the_parent_aborts_the_run(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor({"W": {"Type": "Wait", "Seconds": 60, "End": True}})})
    arn = start(sfn, sm, [1, 2])
    deadline = time.time() + 30
    while not (runs := sfn.list_map_runs(executionArn=arn)["mapRuns"]):
        assert time.time() < deadline
        time.sleep(0.05)
    sfn.stop_execution(executionArn=arn)
    run = sfn.describe_map_run(mapRunArn=runs[0]["mapRunArn"])
    assert run["status"] == "ABORTED"
    assert run["executionCounts"]["aborted"] == 2
    statuses = {c["status"] for c in sfn.list_executions(mapRunArn=runs[0]["mapRunArn"])["executions"]}
    assert statuses == {"ABORTED"}


@pytest.mark.parametrize(("call", "code"), [
    (lambda s: s.describe_map_run(mapRunArn="arn:aws:states:us-east-1:000000000000:mapRun:nope/M:" + str(uuid.uuid4())),
     "ResourceNotFound"),
    (lambda s: s.describe_map_run(mapRunArn="nope"), "InvalidArn"),
    (lambda s: s.update_map_run(mapRunArn="arn:aws:states:us-east-1:000000000000:mapRun:nope/M:x"),
     "ValidationException"),
    (lambda s: s.list_map_runs(executionArn="arn:aws:states:us-east-1:000000000000:execution:nope:x"),
     "ExecutionDoesNotExist"),
    (lambda s: s.list_executions(mapRunArn="arn:aws:states:us-east-1:000000000000:mapRun:nope/M:x",
                                 stateMachineArn="arn:aws:states:us-east-1:000000000000:stateMachine:nope"),
     "ValidationException"),
])
def test_bad_map_run_requests(sfn: Any, call: Callable[[Any], Any], code: str) -> None:
    with pytest.raises(ClientError) as e:
        call(sfn)
    assert e.value.response["Error"]["Code"] == code
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_a_child_is_an_execution_of_its_own(sfn: Any, role: str) -> None:
    name = f"mr-{uuid.uuid4().hex[:10]}"
    inner = processor({"Who": {"Type": "Pass", "Parameters": {
        "id.$": "$$.Execution.Id", "name.$": "$$.Execution.Name", "input.$": "$$.Execution.Input",
        "machine.$": "$$.StateMachine.Id"}, "End": True}})
    sm = machine(sfn, role, {"Label": "L", "ItemProcessor": inner}, name)
    arn = start(sfn, sm, [{"k": 1}])
    d = wait(sfn, arn)
    assert d["status"] == "SUCCEEDED", d
    child = sfn.list_executions(mapRunArn=sfn.list_map_runs(executionArn=arn)["mapRuns"][0]["mapRunArn"])[
        "executions"][0]
    assert json.loads(d["output"]) == [{"id": child["executionArn"], "name": child["name"], "input": {"k": 1},
                                        "machine": child["stateMachineArn"]}]
    described = sfn.describe_state_machine_for_execution(executionArn=child["executionArn"])
    assert described["stateMachineArn"] == child["stateMachineArn"]
    assert (described["label"], described["mapRunArn"]) == ("L", child["mapRunArn"])
    assert json.loads(described["definition"]) == inner
    assert described["roleArn"] == role


def test_an_s3_inventory_manifest_is_read_row_by_row(aws: Callable[..., Any], sfn: Any, role: str) -> None:
    import gzip

    s3 = aws("s3")
    bucket = f"inv-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    rows = ['"src","a.txt","3","2026-11-16T00:29:32.000Z"\n', '"src","b/c.txt","10","2026-11-16T00:29:33.000Z"\n',
            '"src","d.txt","0","2026-11-16T00:29:34.000Z"\n']
    s3.put_object(Bucket=bucket, Key="inv/data/one.csv.gz", Body=gzip.compress("".join(rows[:2]).encode()))
    s3.put_object(Bucket=bucket, Key="inv/data/two.csv.gz", Body=gzip.compress(rows[2].encode()))
    manifest = {"sourceBucket": "src", "destinationBucket": f"arn:aws:s3:::{bucket}", "version": "2016-11-30",
                "fileFormat": "CSV", "fileSchema": "Bucket, Key, Size, LastModifiedDate",
                "files": [{"key": "inv/data/one.csv.gz", "size": 1, "MD5checksum": "x"},
                          {"key": "inv/data/two.csv.gz", "size": 1, "MD5checksum": "y"}]}
    s3.put_object(Bucket=bucket, Key="inv/manifest.json", Body=json.dumps(manifest).encode())
    sm = machine(sfn, role, {
        "ItemReader": {"Resource": "arn:aws:states:::s3:getObject", "ReaderConfig": {"InputType": "MANIFEST"},
                       "Parameters": {"Bucket": bucket, "Key": "inv/manifest.json"}},
        "ItemProcessor": processor({"P": {"Type": "Pass", "End": True}})})
    d = wait(sfn, start(sfn, sm, {}))
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [
        {"Bucket": "src", "Key": "a.txt", "Size": "3", "LastModifiedDate": "2026-11-16T00:29:32.000Z"},
        {"Bucket": "src", "Key": "b/c.txt", "Size": "10", "LastModifiedDate": "2026-11-16T00:29:33.000Z"},
        {"Bucket": "src", "Key": "d.txt", "Size": "0", "LastModifiedDate": "2026-11-16T00:29:34.000Z"}]


def _running_children(sfn: Any, arn: str, count: int) -> tuple[str, list[dict[str, Any]]]:
    """The map run of `arn` once `count` of its children run."""
    deadline = time.time() + 30
    while True:
        runs = sfn.list_map_runs(executionArn=arn)["mapRuns"]
        if runs:
            kids = sfn.list_executions(mapRunArn=runs[0]["mapRunArn"], statusFilter="RUNNING")["executions"]
            if len(kids) >= count:
                return runs[0]["mapRunArn"], kids
        assert time.time() < deadline
        time.sleep(0.05)


def test_a_map_run_goes_on_after_a_kill_9(server_factory: Any, tmp_path: Any) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    sfn, iam = server.client("stepfunctions"), server.client("iam")
    role = iam.create_role(RoleName="r", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    sm = machine(sfn, role, {"MaxConcurrency": 2, "ItemProcessor": processor({
        "A": {"Type": "Pass", "Next": "W"}, "W": {"Type": "Wait", "Seconds": 1, "Next": "B"},
        "B": {"Type": "Pass", "End": True}})})
    arn = start(sfn, sm, [1, 2, 3, 4])
    # And a run with a child stopped on its own: after the restart it is not run again.
    stopping = machine(sfn, role, {"ToleratedFailureCount": 1, "ItemProcessor": processor({
        "C": {"Type": "Choice", "Choices": [{"Variable": "$", "NumericEquals": 1, "Next": "Long"}],
              "Default": "Short"},
        "Long": {"Type": "Wait", "Seconds": 120, "End": True},
        "Short": {"Type": "Wait", "Seconds": 2, "End": True}})})
    other = start(sfn, stopping, [1, 2])
    other_run, kids = _running_children(sfn, other, 2)
    long_child = next(c["executionArn"] for c in kids
                      if sfn.describe_execution(executionArn=c["executionArn"])["input"] == "1")
    sfn.stop_execution(executionArn=long_child)
    deadline = time.time() + 30
    while not (runs := sfn.list_map_runs(executionArn=arn)["mapRuns"]) or \
            sfn.describe_map_run(mapRunArn=runs[0]["mapRunArn"])["executionCounts"]["running"] == 0:
        assert time.time() < deadline
        time.sleep(0.05)
    server.kill()
    server = server_factory(data)
    sfn = server.client("stepfunctions")
    d = wait(sfn, other)
    assert (d["status"], json.loads(d["output"])) == ("SUCCEEDED", [{}, 2]), d
    assert sfn.describe_execution(executionArn=long_child)["status"] == "ABORTED"
    counts = sfn.describe_map_run(mapRunArn=other_run)["executionCounts"]
    assert (counts["aborted"], counts["succeeded"]) == (1, 1)
    d = wait(sfn, arn)
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [1, 2, 3, 4]
    run = sfn.describe_map_run(mapRunArn=runs[0]["mapRunArn"])
    assert (run["status"], run["executionCounts"]["succeeded"], run["itemCounts"]["succeeded"]) == ("SUCCEEDED", 4, 4)
    for child in sfn.list_executions(mapRunArn=run["mapRunArn"])["executions"]:
        types = [e["type"] for e in sfn.get_execution_history(executionArn=child["executionArn"])["events"]]
        assert types == ["ExecutionStarted", "PassStateEntered", "PassStateExited", "WaitStateEntered",
                         "WaitStateExited", "PassStateEntered", "PassStateExited", "ExecutionSucceeded"], types


def test_a_map_run_inside_a_child_belongs_to_that_child(sfn: Any, role: str) -> None:
    inner = {"Type": "Map", "ItemsPath": "$.xs", "End": True,
             "ItemProcessor": processor({"P": {"Type": "Pass", "End": True}})}
    sm = machine(sfn, role, {"ItemProcessor": processor({"Inner": inner})})
    arn = start(sfn, sm, [{"xs": [1, 2]}, {"xs": [3]}])
    d = wait(sfn, arn)
    assert (d["status"], json.loads(d["output"])) == ("SUCCEEDED", [[1, 2], [3]]), d
    runs = sfn.list_map_runs(executionArn=arn)["mapRuns"]
    assert len(runs) == 1  # the nested runs are the children's
    children = sfn.list_executions(mapRunArn=runs[0]["mapRunArn"])["executions"]
    sizes = []
    for child in children:
        nested = sfn.list_map_runs(executionArn=child["executionArn"])["mapRuns"]
        # the nested run's own labelled machine, as its children run (UNCONFIRMED for a nested run)
        assert [(r["executionArn"], r["stateMachineArn"]) for r in nested] == [
            (child["executionArn"], f"{sm}/Inner")]
        run = sfn.describe_map_run(mapRunArn=nested[0]["mapRunArn"])
        sizes.append(run["executionCounts"]["succeeded"])
        types = [e["type"] for e in sfn.get_execution_history(executionArn=child["executionArn"])["events"]]
        assert types == ["ExecutionStarted", "MapStateEntered", "MapStateStarted", "MapRunStarted", "MapRunSucceeded",
                         "MapStateSucceeded", "MapStateExited", "ExecutionSucceeded"]
    assert sorted(sizes) == [1, 2]


def test_stopping_one_child_is_a_tolerated_failure(sfn: Any, role: str) -> None:
    # Item 1 waits long (it is the one stopped); the others end quickly.
    sm = machine(sfn, role, {"ToleratedFailureCount": 1, "ItemProcessor": processor({
        "C": {"Type": "Choice", "Choices": [{"Variable": "$", "NumericEquals": 1, "Next": "Long"}],
              "Default": "Short"},
        "Long": {"Type": "Wait", "Seconds": 120, "End": True},
        "Short": {"Type": "Wait", "Seconds": 1, "End": True}})})
    arn = start(sfn, sm, [1, 2, 3])
    run_arn, _ = _running_children(sfn, arn, 3)
    long_child = next(c for c in sfn.list_executions(mapRunArn=run_arn)["executions"]
                      if sfn.describe_execution(executionArn=c["executionArn"])["input"] == "1")
    stopped = sfn.stop_execution(executionArn=long_child["executionArn"], error="Manual", cause="by hand")
    assert "stopDate" in stopped
    child = sfn.describe_execution(executionArn=long_child["executionArn"])
    assert (child["status"], child["error"], child["cause"]) == ("ABORTED", "Manual", "by hand")
    d = wait(sfn, arn)
    assert d["status"] == "SUCCEEDED", d
    assert json.loads(d["output"]) == [{"Error": "Manual", "Cause": "by hand"}, 2, 3]
    run = sfn.describe_map_run(mapRunArn=run_arn)
    assert run["status"] == "SUCCEEDED"
    assert {k: run["executionCounts"][k] for k in ("succeeded", "aborted", "failed", "running")} == {
        "succeeded": 2, "aborted": 1, "failed": 0, "running": 0}
    last = sfn.get_execution_history(executionArn=long_child["executionArn"], reverseOrder=True)["events"][0]
    assert last["type"] == "ExecutionAborted"
    assert last["executionAbortedEventDetails"] == {"error": "Manual", "cause": "by hand"}
    # Stopping it again changes nothing.
    again = sfn.stop_execution(executionArn=long_child["executionArn"])
    assert again["stopDate"] == child["stopDate"]
    assert sfn.describe_execution(executionArn=long_child["executionArn"])["error"] == "Manual"


def test_stopping_a_child_without_tolerance_fails_the_map(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor({"W": {"Type": "Wait", "Seconds": 120, "End": True}})})
    arn = start(sfn, sm, [1, 2])
    run_arn, kids = _running_children(sfn, arn, 2)
    sfn.stop_execution(executionArn=kids[0]["executionArn"])
    d = wait(sfn, arn)
    assert (d["status"], d["error"], d["cause"]) == (
        "FAILED", "States.ExceedToleratedFailureThreshold", "The specified tolerated failure threshold was exceeded")
    types = [e["type"] for e in sfn.get_execution_history(executionArn=arn)["events"]]
    assert types[-4:] == ["MapRunStarted", "MapRunFailed", "MapStateFailed", "ExecutionFailed"]
    run = sfn.describe_map_run(mapRunArn=run_arn)
    assert run["status"] == "FAILED"
    # The stopped one, and the other one aborted as its run failed.
    assert run["executionCounts"]["aborted"] == 2
    child = sfn.describe_execution(executionArn=kids[0]["executionArn"])
    assert child["status"] == "ABORTED" and "error" not in child


def test_a_cancelled_distributed_map_aborts_its_run(sfn: Any, role: str) -> None:
    dist = {"Type": "Map", "End": True, "ItemsPath": "$.xs",
            "ItemProcessor": processor({"W": {"Type": "Wait", "Seconds": 120, "End": True}})}
    definition = {"StartAt": "P", "States": {"P": {"Type": "Parallel", "End": True, "Branches": [
        {"StartAt": "D", "States": {"D": dist}},
        {"StartAt": "W", "States": {"W": {"Type": "Wait", "Seconds": 1, "Next": "F"},
                                    "F": {"Type": "Fail", "Error": "Late", "Cause": "branch"}}}]}}}
    sm = sfn.create_state_machine(name=f"mr-{uuid.uuid4().hex[:10]}", definition=json.dumps(definition),
                                  roleArn=role)["stateMachineArn"]
    arn = start(sfn, sm, {"xs": [1, 2]})
    d = wait(sfn, arn)
    assert (d["status"], d["error"]) == ("FAILED", "Late"), d
    types = [e["type"] for e in sfn.get_execution_history(executionArn=arn)["events"]]
    assert types.count("MapRunAborted") == 1
    assert types.index("MapRunStarted") < types.index("MapRunAborted") < types.index("ParallelStateFailed")
    run = sfn.describe_map_run(mapRunArn=sfn.list_map_runs(executionArn=arn)["mapRuns"][0]["mapRunArn"])
    assert (run["status"], run["executionCounts"]["aborted"]) == ("ABORTED", 2)



def test_a_redrive_runs_a_stopped_child_again(sfn: Any, role: str) -> None:
    sm = machine(sfn, role, {"ItemProcessor": processor({"W": {"Type": "Wait", "Seconds": 3, "End": True}})})
    arn = start(sfn, sm, [1])
    run_arn, kids = _running_children(sfn, arn, 1)
    sfn.stop_execution(executionArn=kids[0]["executionArn"])
    assert wait(sfn, arn)["status"] == "FAILED"
    sfn.redrive_execution(executionArn=arn)
    d = wait(sfn, arn)
    assert (d["status"], json.loads(d["output"])) == ("SUCCEEDED", [1]), d
    child = sfn.describe_execution(executionArn=kids[0]["executionArn"])
    assert (child["status"], child["redriveCount"]) == ("SUCCEEDED", 1)
    run = sfn.describe_map_run(mapRunArn=run_arn)
    assert (run["status"], run["redriveCount"], run["executionCounts"]["succeeded"]) == ("SUCCEEDED", 1, 1)
    types = [e["type"] for e in sfn.get_execution_history(executionArn=kids[0]["executionArn"])["events"]]
    assert types == ["ExecutionStarted", "WaitStateEntered", "ExecutionAborted", "ExecutionRedriven",
                     "WaitStateEntered", "WaitStateExited", "ExecutionSucceeded"], types
