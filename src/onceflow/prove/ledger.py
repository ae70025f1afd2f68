"""The effect ledger: every DynamoDB item write that took effect in the private stack, whoever made
it (a handler through its worker's role session, a Step Functions `dynamodb:` task through the
state machine's), in the order the store applied them.

It wraps the registry's write handlers of the private stack only (the user's server is another
process and never sees it). A write is recorded once its handler returned: a refused write
(ConditionalCheckFailed, an injected `before` fault) has no effect and no entry; a write whose
answer a `when: after` fault then loses has both."""

from __future__ import annotations

import functools
import itertools
import threading
from typing import Any

from onceflow.context import RequestContext
from onceflow.stack import Stack

WRITES = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")


class Ledger:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self.entries: list[dict[str, Any]] = []
        # Lambda invocations in the order they started ({requestId, function, caller}); a duplicate
        # delivery runs the handler twice under one request id and is listed once.
        self.invocations: list[dict[str, Any]] = []
        self._open: dict[str, tuple[str, int]] = {}  # request id -> (function name, handler runs in progress)

    def install(self, stack: Stack) -> None:
        for operation in WRITES:
            handler = stack.registry.get("dynamodb", operation)
            if handler is not None:
                stack.registry.add("dynamodb", operation, self._wrap(operation, handler))
        invoke = stack.registry.get("lambda", "Invoke")
        if invoke is not None:
            stack.registry.add("lambda", "Invoke", self._wrap_invoke(invoke))

    def reset(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(the writes, the invocations) so far, and a fresh ledger for the next run."""
        with self._lock:
            entries, self.entries = self.entries, []
            invocations, self.invocations = self.invocations, []
            self._open.clear()
        return entries, invocations

    def _wrap_invoke(self, handler: Any) -> Any:
        @functools.wraps(handler)
        def recorded(ctx: RequestContext, params: dict[str, Any]) -> Any:
            function = function_name(params.get("FunctionName"))
            rid = ctx.request_id
            with self._lock:
                name, runs = self._open.get(rid, (function, 0))
                if runs == 0 and not any(i["requestId"] == rid for i in self.invocations):
                    self.invocations.append({"requestId": rid, "function": function, "caller": ctx.principal.arn})
                self._open[rid] = (name, runs + 1)
            try:
                return handler(ctx, params)
            finally:
                with self._lock:
                    name, runs = self._open.get(rid, (function, 1))
                    if runs <= 1:
                        self._open.pop(rid, None)
                    else:
                        self._open[rid] = (name, runs - 1)

        for mark in ("_aws_operation", "_aws_inline", "_aws_commits"):
            setattr(recorded, mark, getattr(handler, mark, None))
        return recorded

    def _invocation_of(self, caller: str) -> str | None:
        """The one open invocation of the function whose worker made this call (its role session is
        named after the function, as Lambda names it); None when none or several are open."""
        session = caller.rsplit("/", 1)[-1] if ":assumed-role/" in caller else None
        found = [rid for rid, (name, _) in self._open.items() if name == session]
        return found[0] if len(found) == 1 else None

    def _wrap(self, operation: str, handler: Any) -> Any:
        @functools.wraps(handler)
        def recorded(ctx: RequestContext, params: dict[str, Any]) -> Any:
            result = handler(ctx, params)
            self._record(ctx, operation, params)
            return result

        for mark in ("_aws_operation", "_aws_inline", "_aws_commits"):  # the wire layer reads them
            setattr(recorded, mark, getattr(handler, mark, None))
        return recorded

    def _record(self, ctx: RequestContext, operation: str, params: dict[str, Any]) -> None:
        base = {"caller": ctx.principal.arn, "requestId": ctx.request_id}
        with self._lock:
            invocation = self._invocation_of(ctx.principal.arn)
            for table, op, what in members(operation, params):
                self.entries.append({"seq": next(self._seq), "operation": op, "table": table, **what,
                                     "via": operation, **base, "lambdaRequestId": invocation})


def function_name(given: Any) -> str:
    """FunctionName as a caller gives it (name, name:qualifier, or ARN) -> the function's name."""
    if not isinstance(given, str):
        return ""
    if given.startswith("arn:"):
        parts = given.split(":")
        return parts[6] if len(parts) > 6 else given
    return given.split(":", 1)[0]


def members(operation: str, params: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(table, single-item operation, {"key"|"item": ...}) for each item a write call changes."""
    if operation == "PutItem":
        return [(params["TableName"], "PutItem", {"item": _plain(params.get("Item"))})]
    if operation in ("UpdateItem", "DeleteItem"):
        return [(params["TableName"], operation, {"key": _plain(params.get("Key"))})]
    out: list[tuple[str, str, dict[str, Any]]] = []
    if operation == "BatchWriteItem":
        for table, requests in (params.get("RequestItems") or {}).items():
            for request in requests:
                if "PutRequest" in request:
                    out.append((table, "PutItem", {"item": _plain(request["PutRequest"].get("Item"))}))
                elif "DeleteRequest" in request:
                    out.append((table, "DeleteItem", {"key": _plain(request["DeleteRequest"].get("Key"))}))
    elif operation == "TransactWriteItems":
        for member in params.get("TransactItems") or []:
            for kind, op, field in (("Put", "PutItem", "Item"), ("Update", "UpdateItem", "Key"),
                                    ("Delete", "DeleteItem", "Key")):
                if kind in member:
                    out.append((member[kind]["TableName"], op, {field.lower(): _plain(member[kind].get(field))}))
    return out


def _plain(value: Any) -> Any:
    """DynamoDB JSON with blobs as text, so the ledger can go into the JSON report."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return sorted(_plain(v) for v in value)
    return value
