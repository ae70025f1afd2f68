"""CloudWatch Logs through the AWS CLI v1, as scripts use it."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from collections.abc import Callable

Cli = Callable[..., subprocess.CompletedProcess[str]]


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_filter_log_events_through_the_cli(aws_cli: Cli) -> None:
    group = f"/cli/{uuid.uuid4().hex[:10]}"
    assert ok(aws_cli("logs", "create-log-group", "--log-group-name", group)) == ""
    ok(aws_cli("logs", "create-log-stream", "--log-group-name", group, "--log-stream-name", "web"))
    ok(aws_cli("logs", "create-log-stream", "--log-group-name", group, "--log-stream-name", "worker"))
    t = int(time.time() * 1000) - 5000
    web = [{"timestamp": t, "message": "GET /orders 200"}, {"timestamp": t + 2, "message": "GET /orders 500 ERROR"}]
    worker = [{"timestamp": t + 1, "message": '{"order": "o-1", "status": "failed"}'}]
    put = json.loads(ok(aws_cli("logs", "put-log-events", "--log-group-name", group, "--log-stream-name", "web",
                                "--log-events", json.dumps(web))))
    assert list(put) == ["nextSequenceToken"]
    ok(aws_cli("logs", "put-log-events", "--log-group-name", group, "--log-stream-name", "worker",
               "--log-events", json.dumps(worker)))

    out = json.loads(ok(aws_cli("logs", "filter-log-events", "--log-group-name", group)))
    assert [(e["logStreamName"], e["message"]) for e in out["events"]] == [
        ("web", "GET /orders 200"), ("worker", '{"order": "o-1", "status": "failed"}'),
        ("web", "GET /orders 500 ERROR")]
    assert out["searchedLogStreams"] == []

    errors = json.loads(ok(aws_cli("logs", "filter-log-events", "--log-group-name", group,
                                   "--filter-pattern", "?ERROR ?failed")))
    assert [e["message"] for e in errors["events"]] == ['{"order": "o-1", "status": "failed"}', "GET /orders 500 ERROR"]
    failed = ok(aws_cli("logs", "filter-log-events", "--log-group-name", group, "--filter-pattern",
                        '{ $.status = "failed" }', "--query", "events[].message", "--output", "text"))
    assert failed.strip() == '{"order": "o-1", "status": "failed"}'
    paged = json.loads(ok(aws_cli("logs", "filter-log-events", "--log-group-name", group, "--page-size", "1")))
    assert len(paged["events"]) == 3

    text = ok(aws_cli("logs", "get-log-events", "--log-group-name", group, "--log-stream-name", "web",
                      "--start-from-head", "--query", "events[].message", "--output", "text"))
    assert text.strip().split("\t") == ["GET /orders 200", "GET /orders 500 ERROR"]


def test_delete_log_group_twice_prints_aws_error(aws_cli: Cli) -> None:
    group = f"/cli/{uuid.uuid4().hex[:10]}"
    ok(aws_cli("logs", "create-log-group", "--log-group-name", group))
    ok(aws_cli("logs", "delete-log-group", "--log-group-name", group))
    second = aws_cli("logs", "delete-log-group", "--log-group-name", group)
    assert second.returncode == 255
    assert second.stderr.strip() == ("An error occurred (ResourceNotFoundException) when calling the DeleteLogGroup "
                                     "operation: The specified log group does not exist.")


def test_describe_log_groups_prefix_through_the_cli(aws_cli: Cli) -> None:
    prefix = f"/cli/{uuid.uuid4().hex[:10]}"
    for suffix in ("b", "a", "c"):
        ok(aws_cli("logs", "create-log-group", "--log-group-name", f"{prefix}/{suffix}"))
    ok(aws_cli("logs", "put-retention-policy", "--log-group-name", f"{prefix}/a", "--retention-in-days", "30"))
    out = json.loads(ok(aws_cli("logs", "describe-log-groups", "--log-group-name-prefix", prefix, "--page-size", "2")))
    assert [g["logGroupName"] for g in out["logGroups"]] == [f"{prefix}/a", f"{prefix}/b", f"{prefix}/c"]
    assert out["logGroups"][0]["retentionInDays"] == 30
