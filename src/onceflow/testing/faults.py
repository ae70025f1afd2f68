"""`Onceflow.faults`: the server's fault rules through `/_onceflow/faults` (README "Fault injection")."""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Mapping
from typing import Any

from onceflow.testing.errors import OnceflowError

Request = Callable[[str, str, bytes | None], tuple[int, Any]]
PATH = "/_onceflow/faults"


class FaultControl:
    def __init__(self, request: Request) -> None:
        self._request = request

    def add(self, *rules: Mapping[str, Any], **fields: Any) -> list[dict[str, Any]]:
        """Add rules to the set: `add({"service": "dynamodb", "operation": "PutItem"})`, or one rule
        as keywords: `add(service="lambda", operation="Invoke", kind="crash", times=1)`. Returns the
        rules added as the server keeps them (with their ids and counters)."""
        given = [dict(rule) for rule in rules]
        if fields:
            given.append(fields)
        if not given:
            raise OnceflowError("faults.add takes at least one rule")
        before = {rule["id"] for rule in self.list()}
        after = self._call("PATCH", {"rules": given})
        return [rule for rule in after if rule["id"] not in before]

    def set(self, *rules: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Replace the whole set."""
        return self._call("POST", {"rules": [dict(rule) for rule in rules]})

    def list(self) -> list[dict[str, Any]]:
        return self._call("GET", None)

    def clear(self) -> None:
        self._call("DELETE", None)

    def _call(self, method: str, body: Any) -> builtins.list[dict[str, Any]]:
        status, answer = self._request(method, PATH, None if body is None else json.dumps(body).encode())
        if status != 200:
            message = answer.get("message") if isinstance(answer, dict) else answer
            raise OnceflowError(f"fault rules: {message}")
        return list(answer["rules"])
