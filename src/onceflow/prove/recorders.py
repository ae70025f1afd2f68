"""Effect recorders: for each write operation of a business resource, the items it changed.

The ledger (prove/ledger.py) wraps every (service, operation) registered here, in `onceflow serve`
and in the prover's copy alike. A recorder runs after its handler returned (the write took effect)
and gets the stack, the request context and the parsed parameters; it returns one Effect per item
the call changed. DynamoDB's item writes, SQS's sends and S3's object writes are
registered below (queues and buckets named `sqs:<queue>` / `s3:<bucket>`, as the oracle names
them); SNS's publishes reach the prover through the queues and functions they deliver to. Another
service registers its writes the same way: `register("svc", "Operation", fn)`.

`key` names the item inside `resource` (the same item must always give the same key: the console
flags repeated writes by it); `item` is what was written, when the call says (the prover's report
shows it). Keep recorders cheap and free of I/O beyond cached lookups: they run inside the write's
transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from onceflow.context import RequestContext
from onceflow.stack import Stack


@dataclass(frozen=True)
class Effect:
    resource: str  # the table (queue, bucket...) written
    operation: str  # the single-item operation: "PutItem" for a batch's put member
    key: dict[str, Any] | None  # which item
    item: dict[str, Any] | None = None  # its new content, when the call carries it


Recorder = Callable[[Stack, RequestContext, dict[str, Any]], list[Effect]]
RECORDERS: dict[tuple[str, str], Recorder] = {}


def register(service: str, operation: str, recorder: Recorder) -> None:
    """Record `service.operation`'s effects (before the ledger is installed: at import or setup)."""
    RECORDERS[(service, operation)] = recorder


# ---------------------------------------------------------------------- DynamoDB's item writes
def _key_names(stack: Stack, ctx: RequestContext, table: str) -> list[str]:
    try:
        return list(stack.ports.tables().table(ctx.account, ctx.region, table).key_names)
    except Exception:  # a table deleted meanwhile: the whole item stands in for its key
        return []


def _put(stack: Stack, ctx: RequestContext, table: str, item: Any) -> Effect:
    plain = _plain(item)
    names = _key_names(stack, ctx, table)
    key = {k: plain[k] for k in names if k in plain} if names and isinstance(plain, dict) else plain
    return Effect(table, "PutItem", key, plain)


def _ddb_single(operation: str) -> Recorder:
    def recorder(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[Effect]:
        if operation == "PutItem":
            return [_put(stack, ctx, params["TableName"], params.get("Item"))]
        return [Effect(params["TableName"], operation, _plain(params.get("Key")))]

    return recorder


def _ddb_batch(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[Effect]:
    out = []
    for table, requests in (params.get("RequestItems") or {}).items():
        for request in requests:
            if "PutRequest" in request:
                out.append(_put(stack, ctx, table, request["PutRequest"].get("Item")))
            elif "DeleteRequest" in request:
                out.append(Effect(table, "DeleteItem", _plain(request["DeleteRequest"].get("Key"))))
    return out


def _ddb_transaction(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[Effect]:
    out = []
    for member in params.get("TransactItems") or []:
        if "Put" in member:
            out.append(_put(stack, ctx, member["Put"]["TableName"], member["Put"].get("Item")))
        for kind, op in (("Update", "UpdateItem"), ("Delete", "DeleteItem")):
            if kind in member:
                out.append(Effect(member[kind]["TableName"], op, _plain(member[kind].get("Key"))))
    return out  # a ConditionCheck member changes nothing


def _plain(value: Any) -> Any:
    """DynamoDB JSON with blobs as text, so the ledger can go into JSON (the report, the table)."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return sorted(_plain(v) for v in value)
    return value


for _op in ("PutItem", "UpdateItem", "DeleteItem"):
    register("dynamodb", _op, _ddb_single(_op))
register("dynamodb", "BatchWriteItem", _ddb_batch)
register("dynamodb", "TransactWriteItems", _ddb_transaction)


# ---------------------------------------------------------------------- SQS messages, S3 objects
def _queue(params: dict[str, Any]) -> str:
    return "sqs:" + str(params.get("QueueUrl", "")).rstrip("/").rsplit("/", 1)[-1]


def _sqs_send(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[Effect]:
    return [Effect(_queue(params), "SendMessage", {"body": params.get("MessageBody")})]


def _sqs_batch(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[Effect]:
    return [Effect(_queue(params), "SendMessage", {"body": e.get("MessageBody")}) for e in params.get("Entries") or []]


def _s3_one(operation: str) -> Recorder:
    def recorder(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[Effect]:
        return [Effect(f"s3:{params.get('Bucket')}", operation, {"key": params.get("Key")})]

    return recorder


def _s3_deletes(stack: Stack, ctx: RequestContext, params: dict[str, Any]) -> list[Effect]:
    return [Effect(f"s3:{params.get('Bucket')}", "DeleteObject", {"key": o.get("Key")})
            for o in (params.get("Delete") or {}).get("Objects") or []]


register("sqs", "SendMessage", _sqs_send)
register("sqs", "SendMessageBatch", _sqs_batch)
for _op in ("PutObject", "CopyObject", "DeleteObject"):
    register("s3", _op, _s3_one(_op))
register("s3", "DeleteObjects", _s3_deletes)
