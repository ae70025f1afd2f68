"""Acknowledged IAM writes survive kill -9 of the server (group commit makes them durable)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serverproc import client_factory

TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)
POLICY = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": "*"}]}
)


def test_acknowledged_writes_survive_kill_9(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    data = tmp_path / "data"
    srv = server_factory(data)
    aws = client_factory(srv.url)
    acknowledged: list[str] = []
    lock = threading.Lock()

    def writer(n: int) -> None:
        iam = aws("iam")
        for i in range(10):
            name = f"durable-{n}-{i}"
            iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
            iam.put_role_policy(RoleName=name, PolicyName="invoke", PolicyDocument=POLICY)
            with lock:
                acknowledged.append(name)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    srv.kill()  # no clean shutdown: only what was committed durably may remain

    srv = server_factory(data)
    iam = client_factory(srv.url)("iam")
    names = {r["RoleName"] for p in iam.get_paginator("list_roles").paginate() for r in p["Roles"]}
    assert set(acknowledged) <= names and len(acknowledged) == 40
    for name in acknowledged:
        assert iam.list_role_policies(RoleName=name)["PolicyNames"] == ["invoke"]
