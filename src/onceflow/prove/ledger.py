"""The effect ledger: every write to a business resource, with who made it.

Installed in every `onceflow serve` (setup below) and in the prover's private copy. It wraps the
registry's handlers of the operations an effect recorder knows (prove/recorders.py: DynamoDB's
item writes; other services register theirs) and Lambda's Invoke. Attribution, without guessing:
- a Step Functions task call runs on a thread that names it (sfn's TASK_CALL: the execution and
  the task's TaskStarted event id): a `dynamodb:` task's own writes carry it, and so does the
  Lambda invocation a Lambda task starts (held while the invocation runs);
- a handler's call comes from its worker, and each worker has its own role session: the Lambda
  pool says which invocation the worker holding those credentials runs now.
So concurrent Parallel branches and Map iterations each get their own writes.

In `onceflow serve` only attributed writes are kept (the prove_ledger table, in the write's own
transaction, so the row and the effect are durable together - except S3's, whose row follows the
commit: see STREAMED); any other write (a script's PutItem
as root) costs a context lookup and nothing else. The prover also collects every write in memory
(`collect()`), with the item itself. A write is recorded once its handler returned: a refused
write (ConditionalCheckFailed, an injected `before` fault) has no effect and no entry; a write
whose answer a `when: after` fault then loses has both."""

from __future__ import annotations

import functools
import itertools
import json
import threading
import time
from typing import Any

from onceflow.context import TASK_CALL, RequestContext
from onceflow.prove.recorders import RECORDERS, Effect
from onceflow.stack import Stack

# Services whose writes stream a body in before they commit (their ledger row is written after).
STREAMED = frozenset({"s3"})

MIGRATIONS = [
    ("prove-0001", """CREATE TABLE prove_ledger (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, execution TEXT NOT NULL, task_id INTEGER,
        lambda_request_id TEXT, request_id TEXT NOT NULL, caller TEXT NOT NULL, service TEXT NOT NULL,
        resource TEXT NOT NULL, operation TEXT NOT NULL, via TEXT NOT NULL, item_key TEXT NOT NULL,
        at REAL NOT NULL)"""),
    ("prove-0002", "CREATE INDEX prove_ledger_execution ON prove_ledger (execution, seq)"),
    ("prove-0003", "CREATE INDEX prove_ledger_item ON prove_ledger (service, resource, item_key)"),
]
MARKS = ("_aws_operation", "_aws_inline", "_aws_commits", "_aws_bounded")  # what the wire layer reads off a handler
Where = tuple[str, int | None, str | None]  # execution ARN, TaskStarted event id, Lambda request id


def setup(stack: Stack) -> None:
    """After the services: wrap their recorded operations (server.py's SETUPS)."""
    stack.db.migrate(MIGRATIONS)
    ledger = Ledger(stack)
    ledger.install()
    stack.services["ledger"] = ledger


class Ledger:
    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._tasks: dict[str, tuple[str, int]] = {}  # open Lambda invocation's request id -> its task call
        self._runs: dict[str, int] = {}  # request id -> handler runs in progress (a duplicate delivery runs 2)
        self.collecting = False
        self.entries: list[dict[str, Any]] = []  # every write, while collecting (the prover)
        # Lambda invocations in the order they started ({requestId, function, caller, execution,
        # taskId}), while collecting; a duplicate delivery runs the handler twice under one request id.
        self.invocations: list[dict[str, Any]] = []
        # Every call a handler made ({seq, service, operation, caller, requestId, lambdaRequestId}), while
        # collecting: fail-after-write faults the call that follows a write.
        self.calls: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ installing
    def install(self) -> None:
        registry = self.stack.registry  # wrap: now, or when a deferred service registers (stack.py)
        for (service, operation), recorder in RECORDERS.items():
            registry.wrap(service, operation, functools.partial(self._wrap_write, service, operation, recorder))
        registry.wrap("lambda", "Invoke", self._wrap_invoke)

    def collect(self) -> None:
        """Keep every write in memory too, and every call a handler makes (the prover's private
        stack: the registry is wrapped once more, so a write is in both lists)."""
        self.collecting = True
        registry = self.stack.registry
        for service in list(self.stack.resource_resolvers):  # every service registers its resolver
            for operation in registry.operations(service):
                handler = registry.get(service, operation)
                if handler is not None:
                    registry.add(service, operation, self._wrap_call(service, operation, handler))

    def reset(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
        """(the writes, the invocations, the handlers' calls) collected so far, and a fresh start."""
        with self._lock:
            entries, self.entries = self.entries, []
            invocations, self.invocations = self.invocations, []
            calls, self.calls = self.calls, []
        return entries, invocations, calls

    # ------------------------------------------------------------------ reading (the console)
    def writes_of(self, execution: str, limit: int = -1) -> list[dict[str, Any]]:
        """The execution's recorded writes in the order they took effect (at most `limit`; -1: all)."""
        rows = self.stack.db.query(
            "SELECT seq, task_id, lambda_request_id, request_id, caller, service, resource, operation, via, item_key, "
            "at FROM prove_ledger WHERE execution=? ORDER BY seq LIMIT ?", (execution, limit))
        names = ("seq", "taskId", "lambdaRequestId", "requestId", "caller", "service", "resource", "operation", "via",
                 "key", "at")
        return [dict(zip(names, row, strict=True)) for row in rows]

    def other_writers(self, execution: str, service: str, resource: str, key: str) -> list[str]:
        """The other executions that wrote the same item (oldest first)."""
        rows = self.stack.db.query(
            "SELECT execution, MIN(seq) AS first FROM prove_ledger WHERE service=? AND resource=? AND item_key=? "
            "AND execution<>? GROUP BY execution ORDER BY first LIMIT 20", (service, resource, key, execution))
        return [row[0] for row in rows]

    # ------------------------------------------------------------------ attribution
    def _where(self, ctx: RequestContext) -> Where | None:
        task = TASK_CALL.get()
        if task is not None:
            return task[0], task[1], None
        if ctx.principal.kind != "assumed-role" or not self._tasks:
            return None
        lam = self.stack.ports.functions.get()
        rid = lam.invoker.pool.serving(ctx.principal.access_key) if lam is not None else None
        found = self._tasks.get(rid) if rid is not None else None
        return (found[0], found[1], rid) if found is not None else None

    def _serving(self, ctx: RequestContext) -> str | None:
        """A handler's Lambda request id, attributed to a task or not (the prover's own runs)."""
        if ctx.principal.kind != "assumed-role":
            return None
        lam = self.stack.ports.functions.get()
        return lam.invoker.pool.serving(ctx.principal.access_key) if lam is not None else None

    # ------------------------------------------------------------------ wrappers
    def _wrap_invoke(self, handler: Any) -> Any:
        @functools.wraps(handler)
        def recorded(ctx: RequestContext, params: dict[str, Any]) -> Any:
            task, rid = TASK_CALL.get(), ctx.request_id
            if task is None and not self.collecting:
                return handler(ctx, params)
            with self._lock:
                runs = self._runs.get(rid, 0)
                self._runs[rid] = runs + 1
                if task is not None:
                    self._tasks[rid] = task
                if self.collecting and runs == 0 and not any(i["requestId"] == rid for i in self.invocations):
                    self.invocations.append({"requestId": rid, "function": function_name(params.get("FunctionName")),
                                             "caller": ctx.principal.arn, "execution": task[0] if task else None,
                                             "taskId": task[1] if task else None})
            try:
                return handler(ctx, params)
            finally:
                with self._lock:
                    if self._runs.get(rid, 1) <= 1:
                        self._runs.pop(rid, None)
                        self._tasks.pop(rid, None)
                    else:
                        self._runs[rid] -= 1

        return _marked(recorded, handler)

    def _wrap_call(self, service: str, operation: str, handler: Any) -> Any:
        @functools.wraps(handler)
        def logged(ctx: RequestContext, params: dict[str, Any]) -> Any:
            rid = self._serving(ctx)
            if rid is not None:
                with self._lock:
                    self.calls.append({"seq": next(self._seq), "service": service, "operation": operation,
                                       "caller": ctx.principal.arn, "requestId": ctx.request_id,
                                       "lambdaRequestId": rid})
            return handler(ctx, params)

        return _marked(logged, handler)

    def _wrap_write(self, service: str, operation: str, recorder: Any, handler: Any) -> Any:
        @functools.wraps(handler)
        def recorded(ctx: RequestContext, params: dict[str, Any]) -> Any:
            where = self._where(ctx)
            if where is None and not self.collecting:
                return handler(ctx, params)  # not a workflow's write: nothing to keep
            if service in STREAMED:
                # An upload streams its body before it commits: holding the writers' lock that long
                # would stall every other write, so its row follows in a transaction of its own.
                result = handler(ctx, params)
                effects = recorder(self.stack, ctx, params)
                if where is not None:
                    with self.stack.db.transaction() as conn:
                        self._insert(conn, ctx, service, operation, where, effects)
            else:
                with self.stack.db.transaction() as conn:  # the handler's own transaction joins this one
                    result = handler(ctx, params)
                    effects = recorder(self.stack, ctx, params)
                    if where is not None:
                        self._insert(conn, ctx, service, operation, where, effects)
            if self.collecting:
                self._collect(ctx, service, operation, where, effects)
            return result

        return _marked(recorded, handler)

    def _insert(self, conn: Any, ctx: RequestContext, service: str, via: str, where: Where,
                effects: list[Effect]) -> None:
        now = time.time()
        conn.executemany(
            "INSERT INTO prove_ledger (execution, task_id, lambda_request_id, request_id, caller, service, resource, "
            "operation, via, item_key, at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [(where[0], where[1], where[2], ctx.request_id, ctx.principal.arn, service, e.resource, e.operation, via,
              key_text(e.key), now) for e in effects])

    def _collect(self, ctx: RequestContext, service: str, via: str, where: Where | None,
                 effects: list[Effect]) -> None:
        base = {"caller": ctx.principal.arn, "requestId": ctx.request_id, "service": service, "via": via,
                "lambdaRequestId": where[2] if where is not None else self._serving(ctx),
                "execution": where[0] if where is not None else None,
                "taskId": where[1] if where is not None else None}
        with self._lock:
            for e in effects:
                what = {"key": e.key, "item": e.item} if e.item is not None else {"key": e.key}
                self.entries.append({"seq": next(self._seq), "operation": e.operation, "table": e.resource, **what,
                                     **base})


def _marked(wrapper: Any, handler: Any) -> Any:
    for mark in MARKS:
        setattr(wrapper, mark, getattr(handler, mark, None))
    return wrapper


def key_text(key: Any) -> str:
    """An item's key as compact JSON with sorted names: the same item always reads the same."""
    return json.dumps(key, sort_keys=True, separators=(",", ":"), default=str)


def function_name(given: Any) -> str:
    """FunctionName as a caller gives it (name, name:qualifier, or ARN) -> the function's name."""
    if not isinstance(given, str):
        return ""
    if given.startswith("arn:"):
        parts = given.split(":")
        return parts[6] if len(parts) > 6 else given
    return given.split(":", 1)[0]
