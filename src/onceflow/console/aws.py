"""The console's only way to the data: the AWS APIs, called in-process as the account's root.

Going through the operations (not the services' tables) keeps the console independent of how
each service stores things, and shows exactly what the CLI would see. An operation that no
service registers yet raises Unavailable, which pages show as a note instead of failing.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

from onceflow import internal, pages
from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.stack import Stack

NOT_FOUND = {"ResourceNotFoundException", "StateMachineDoesNotExist", "ExecutionDoesNotExist", "NoSuchEntity",
             "InvalidArn", "TableNotFoundException"}  # fmt: skip


class Unavailable(Exception):
    """The operation is not implemented by this onceflow."""

    def __init__(self, service: str, operation: str) -> None:
        super().__init__(f"{service} {operation} is not available in this onceflow yet")
        self.service, self.operation = service, operation


class NotFound(Exception):
    """The resource a page is about does not exist (rendered as a 404 page)."""


class Aws:
    """API calls in one account and region."""

    def __init__(self, stack: Stack, account: str, region: str) -> None:
        self.stack, self.account, self.region = stack, account, region
        self.principal = Principal.root(account)

    def available(self, service: str, operation: str) -> bool:
        return self.stack.registry.get(service, operation) is not None

    def call(self, service: str, operation: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if not self.available(service, operation):
            raise Unavailable(service, operation)
        try:
            return internal.call(self.stack, self.principal, service, operation, params or {}, region=self.region)
        except ServiceError as err:
            if err.code in NOT_FOUND or err.status == 404:
                raise NotFound(err.message) from err
            raise

    def pages(self, service: str, operation: str, params: dict[str, Any], items: str, token: str = "nextToken",
              out_token: str | None = None, limit: int = 1000) -> Iterator[dict[str, Any]]:
        """Items of a paginated list, following the token until `limit` items or the end."""
        params, count = dict(params), 0
        while True:
            page = self.call(service, operation, params)
            for item in page.get(items) or []:
                yield item
                count += 1
                if count >= limit:
                    return
            nxt = page.get(out_token or token)
            if not nxt:
                return
            params[token] = nxt

    def all(self, service: str, operation: str, params: dict[str, Any], items: str, **kw: Any) -> list[Any]:
        return list(self.pages(service, operation, params, items, **kw))

    # ARNs built the way the services build them
    def state_machine_arn(self, name: str) -> str:
        return f"arn:aws:states:{self.region}:{self.account}:stateMachine:{name}"

    def execution_arn(self, machine: str, name: str) -> str:
        return f"arn:aws:states:{self.region}:{self.account}:execution:{machine}:{name}"


# DynamoDB keys travel in URLs (paging tokens, item links): typed JSON with blobs in base64.
def encode_key(key: dict[str, Any]) -> str:
    return pages.encode(_typed_to_json(key))


def _not_a_key() -> ValueError:
    return ValueError("not a valid key token")


def decode_key(token: str) -> dict[str, Any]:
    value = pages.decode(token, _not_a_key)
    if not isinstance(value, dict) or not value:
        raise _not_a_key()
    return {k: _json_to_typed(v) for k, v in value.items()}


def _typed_to_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _typed_to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed_to_json(v) for v in value]
    if isinstance(value, bytes | bytearray):
        return {"$b64": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, set | frozenset):
        return [_typed_to_json(v) for v in sorted(value, key=repr)]
    return value


def _json_to_typed(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"$b64"} and isinstance(value["$b64"], str):
            return base64.b64decode(value["$b64"])
        return {k: _json_to_typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_to_typed(v) for v in value]
    return value
