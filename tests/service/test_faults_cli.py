"""`onceflow serve --faults FILE` and `onceflow faults add|list|clear` against a real server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError


def onceflow(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "onceflow", *args], capture_output=True, text=True, timeout=120)


def list_tables_error(url: str) -> str | None:
    ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                       aws_secret_access_key="test", config=Config(retries={"total_max_attempts": 1}))
    try:
        ddb.list_tables()
    except ClientError as exc:
        return str(exc.response["Error"]["Code"])
    return None


def test_serve_loads_a_json_rules_file(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"rules": [{"service": "dynamodb", "operation": "ListTables",
                                            "error": {"code": "InternalServerError"}}]}))
    server = server_factory(tmp_path / "data", extra_args=("--faults", str(rules)))
    assert list_tables_error(server.url) == "InternalServerError"


def test_serve_loads_a_yaml_rules_file(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    rules = tmp_path / "rules.yaml"
    rules.write_text("- service: dynamodb\n  operation: ListTables\n  error:\n    code: ThrottlingException\n")
    server = server_factory(tmp_path / "data", extra_args=("--faults", str(rules)))
    assert list_tables_error(server.url) == "ThrottlingException"


def test_serve_refuses_a_bad_rules_file(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"service": "dynamodb", "probability": 3}]))
    proc = onceflow("serve", "--in-memory", "--port", "0", "--faults", str(rules))
    assert proc.returncode != 0
    assert "rules[0].probability" in proc.stderr


def test_faults_add_list_clear(server_factory: Callable[..., Any], tmp_path: Path) -> None:
    server = server_factory(tmp_path / "data")
    added = onceflow("faults", "--endpoint", server.url, "add",
                     '{"service": "dynamodb", "operation": "ListTables", "error": {"code": "ThrottlingException"}}')
    assert added.returncode == 0, added.stderr
    assert list_tables_error(server.url) == "ThrottlingException"
    listed = onceflow("faults", "--endpoint", server.url, "list")
    [rule] = json.loads(listed.stdout)["rules"]
    assert (rule["operation"], rule["matched"], rule["fired"]) == ("ListTables", 1, 1)
    bad = onceflow("faults", "--endpoint", server.url, "add", '{"service": "dynamodb", "operation": "Nope"}')
    assert bad.returncode == 1 and "rules[0].operation" in bad.stderr
    cleared = onceflow("faults", "--endpoint", server.url, "clear")
    assert cleared.returncode == 0 and json.loads(cleared.stdout) == {"rules": []}
    assert list_tables_error(server.url) is None
