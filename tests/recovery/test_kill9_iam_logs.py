"""kill -9 in the middle of concurrent IAM and Logs writes: every acknowledged write survives a restart."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import botocore.config
from botocore.exceptions import BotoCoreError, ClientError

from serverproc import client_factory

NO_RETRY = botocore.config.Config(retries={"max_attempts": 1, "mode": "standard"}, connect_timeout=5,
                                  read_timeout=30)
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
WRITERS = 3  # threads per service
KILL_AFTER = 150  # acknowledged writes before the kill; writers keep going while it happens


def client(url: str, service: str) -> Any:
    return client_factory(url)(service, config=NO_RETRY)


class Acks:
    """What the server acknowledged, recorded only after a successful response."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.roles: set[str] = set()
        self.policies: dict[tuple[str, str], str] = {}
        self.groups: set[str] = set()
        self.events: dict[tuple[str, str], list[str]] = {}
        self.enough = threading.Event()

    def add(self, record: Callable[[], None]) -> None:
        with self.lock:
            record()
            self.count += 1
            if self.count >= KILL_AFTER:
                self.enough.set()


def iam_writer(url: str, n: int, acks: Acks, stop: threading.Event) -> None:
    iam = client(url, "iam")
    i = 0
    while not stop.is_set():
        role = f"kill9-w{n}-r{i}"
        policy = json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": "logs:PutLogEvents", "Resource": f"arn:aws:logs:*:*:log-group:{role}:*"}]})
        try:
            iam.create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)
            acks.add(lambda role=role: acks.roles.add(role))
            iam.put_role_policy(RoleName=role, PolicyName="inline", PolicyDocument=policy)
            acks.add(lambda role=role, policy=policy: acks.policies.__setitem__((role, "inline"), policy))
        except (BotoCoreError, ClientError):
            return  # the server is gone: nothing after this was acknowledged
        i += 1


def logs_writer(url: str, n: int, acks: Acks, stop: threading.Event) -> None:
    logs = client(url, "logs")
    group = f"/kill9/w{n}"
    try:
        logs.create_log_group(logGroupName=group)
        acks.add(lambda: acks.groups.add(group))
        logs.create_log_stream(logGroupName=group, logStreamName="s")
    except (BotoCoreError, ClientError):
        return
    i = 0
    while not stop.is_set():
        messages = [f"w{n} batch {i} line {j}" for j in range(3)]
        now = int(time.time() * 1000)
        try:
            logs.put_log_events(logGroupName=group, logStreamName="s",
                                logEvents=[{"timestamp": now, "message": m} for m in messages])
        except (BotoCoreError, ClientError):
            return
        acks.add(lambda messages=messages: acks.events.setdefault((group, "s"), []).extend(messages))
        extra = f"/kill9/w{n}/g{i}"
        try:
            logs.create_log_group(logGroupName=extra)
        except (BotoCoreError, ClientError):
            return
        acks.add(lambda extra=extra: acks.groups.add(extra))
        i += 1


def test_acknowledged_iam_and_logs_writes_survive_kill9(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "kill9-data"
    server = server_factory(data)
    acks, stop = Acks(), threading.Event()
    threads = [threading.Thread(target=writer, args=(server.url, n, acks, stop), daemon=True)
               for writer in (iam_writer, logs_writer) for n in range(WRITERS)]
    for t in threads:
        t.start()
    assert acks.enough.wait(120), "writers did not get going"
    server.kill()  # SIGKILL while requests are in flight
    stop.set()
    for t in threads:
        t.join(60)
    with acks.lock:
        roles, policies = set(acks.roles), dict(acks.policies)
        groups, events = set(acks.groups), {k: list(v) for k, v in acks.events.items()}
    assert len(roles) + len(groups) >= WRITERS * 2

    restarted = server_factory(data)
    iam, logs = client(restarted.url, "iam"), client(restarted.url, "logs")
    listed = {r["RoleName"] for page in iam.get_paginator("list_roles").paginate() for r in page["Roles"]}
    assert roles <= listed, sorted(roles - listed)
    for (role, name), document in policies.items():
        got = iam.get_role_policy(RoleName=role, PolicyName=name)["PolicyDocument"]
        assert got == json.loads(document)
    present = {g["logGroupName"] for page in logs.get_paginator("describe_log_groups").paginate(
        logGroupNamePrefix="/kill9/") for g in page["logGroups"]}
    assert groups <= present, sorted(groups - present)
    for (group, stream), messages in events.items():
        stored = [e["message"] for page in logs.get_paginator("filter_log_events").paginate(
            logGroupName=group, logStreamNames=[stream]) for e in page["events"]]
        assert set(messages) <= set(stored), sorted(set(messages) - set(stored))[:5]
