"""STS's sessions table moved from IAM's store to STS's own (sts/store.py): a data folder written
before the move (its sts_sessions made by iam-0001, no sts-0001 recorded) keeps its sessions."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from serverproc import ServerProcess

TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": "000000000000"}, "Action": "sts:AssumeRole"}]})


def test_a_session_from_before_the_move_still_signs(server_factory: Callable[..., ServerProcess],
                                                    tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = server_factory(data)
    arn = server.client("iam").create_role(RoleName="upgraded", AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    creds: dict[str, Any] = server.client("sts").assume_role(RoleArn=arn, RoleSessionName="old")["Credentials"]
    server.stop()
    with sqlite3.connect(data / "onceflow.db") as db:  # what an older onceflow left behind
        db.execute("DELETE FROM schema_migrations WHERE id='sts-0001'")
        assert db.execute("SELECT COUNT(*) FROM sts_sessions").fetchone() == (1,)

    server = server_factory(data)
    who = server.client("sts", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                        session_token=creds["SessionToken"]).get_caller_identity()
    assert who["Arn"] == "arn:aws:sts::000000000000:assumed-role/upgraded/old"
    server.stop()
    with sqlite3.connect(data / "onceflow.db") as db:
        assert db.execute("SELECT 1 FROM schema_migrations WHERE id='sts-0001'").fetchone() == (1,)
