"""console/express.py: execution-log messages back into history events, per execution."""

from __future__ import annotations

import json

from onceflow.console import express

ARN = "arn:aws:states:us-east-1:000000000000:express:m:run:5a0c2c1e-0000-4000-8000-000000000000"


def msg(ident: int, kind: str, details: dict[str, object], arn: str = ARN, prev: int = 0) -> str:
    return json.dumps({"id": str(ident), "type": kind, "details": details, "previous_event_id": str(prev),
                       "event_timestamp": str(1700000000000 + ident), "execution_arn": arn, "redrive_count": "0"})


def test_messages_become_history_events_grouped_by_execution_and_ordered_by_id() -> None:
    other = ARN.replace("run:", "other:")
    found = express.runs([
        msg(2, "PassStateEntered", {"name": "P", "input": "{}"}, prev=1),
        msg(1, "ExecutionStarted", {"input": '{"a":1}', "roleArn": "r"}),
        "not json", '{"id": "x"}', "[]",
        msg(1, "ExecutionStarted", {"input": "{}"}, arn=other),
        msg(3, "ExecutionFailed", {"error": "E", "cause": "c"}, prev=2),
    ])
    assert list(found) == [ARN, other]
    run = found[ARN]
    assert [e["id"] for e in run.events] == [1, 2, 3]
    assert run.events[1] == {"id": 2, "type": "PassStateEntered", "previousEventId": 1, "timestamp": 1700000000.002,
                             "stateEnteredEventDetails": {"name": "P", "input": "{}"}}
    assert (run.name, run.key, run.status) == ("run", ARN.split(":", 7)[7], "FAILED")
    described = run.description("arn:m")
    assert described["input"] == '{"a":1}' and (described["error"], described["cause"]) == ("E", "c")
    assert described["stopDate"] == 1700000000.003 and "output" not in described
    assert found[other].status == "RUNNING" and "stopDate" not in found[other].description("arn:m")


def test_the_log_group_of_a_logging_configuration() -> None:
    dest = [{"cloudWatchLogsLogGroup": {"logGroupArn": "arn:aws:logs:us-east-1:1:log-group:/x/y:*"}}]
    assert express.log_group({"level": "ALL", "destinations": dest}) == "/x/y"
    assert express.log_group({"level": "OFF", "destinations": dest}) is None
    assert express.log_group({"level": "ERROR", "destinations": []}) is None
    assert express.log_group(None) is None
