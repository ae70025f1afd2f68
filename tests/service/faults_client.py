"""Talking to /_onceflow/faults from tests (one place, should the endpoint's guard want more)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def faults(endpoint: str, method: str = "GET", body: Any = None) -> tuple[int, dict[str, Any]]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{endpoint}/_onceflow/faults", method=method, data=data,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read())


def set_rules(endpoint: str, rules: Any) -> list[dict[str, Any]]:
    status, body = faults(endpoint, "POST", rules)
    assert status == 200, body
    return body["rules"]
