"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction: each statement, planned
(plan.py), runs through the item operation it stands for, so conditions, capacity, sizes and errors
are the native API's rules; paging tokens, batch errors and transaction cancellations in PartiQL's
shapes."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from onceflow.ddb import errors
from onceflow.ddb.batch import Batches
from onceflow.ddb.errors import transaction_canceled
from onceflow.ddb.partiql.authorize import AuthRequests, authorization
from onceflow.ddb.partiql.plan import Plan, Planner, flatten
from onceflow.ddb.reads import Reader
from onceflow.ddb.service import DynamoDB
from onceflow.ddb.values import dumps, loads
from onceflow.errors import ServiceError, validation_error

BATCH_CODES = {"ConditionalCheckFailedException": "ConditionalCheckFailed", "DuplicateItemException": "DuplicateItem",
               "ValidationException": "ValidationError", "ResourceNotFoundException": "ResourceNotFound",
               "ItemCollectionSizeLimitExceededException": "ItemCollectionSizeLimitExceeded",
               "TransactionConflictException": "TransactionConflict",
               "ProvisionedThroughputExceededException": "ProvisionedThroughputExceeded",
               "RequestLimitExceeded": "RequestLimitExceeded", "AccessDeniedException": "AccessDenied"}
PARTIQL_OPERATIONS = ("ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction")

_KIND_PREFIX = re.compile(r"^Invalid (KeyConditionExpression|FilterExpression|ConditionExpression|UpdateExpression|"
                          r"ProjectionExpression): ")


def _as_statement_error(e: ServiceError) -> ServiceError:
    """The native operations name the expression a problem is in; a statement has none of them."""
    if e.code == "ValidationException" and _KIND_PREFIX.match(e.message):
        return validation_error(_KIND_PREFIX.sub("", e.message))
    return e


class PartiQL:
    def __init__(self, svc: DynamoDB, reads: Reader, batches: Batches) -> None:
        self.svc = svc
        self.reads = reads
        self.batches = batches
        self.planner = Planner(svc)
        self.plan = self.planner.plan

    def authorization(self, account: str, region: str, operation: str, p: dict[str, Any]) -> AuthRequests:
        return authorization(self.planner, account, region, operation, p)

    # -------------------------------------------------------------- ExecuteStatement
    def execute(self, account: str, region: str, p: dict[str, Any], raw: bool = False) -> dict[str, Any]:
        extra = {k: p[k] for k in ("ConsistentRead", "ReturnConsumedCapacity", "ReturnValuesOnConditionCheckFailure")
                 if p.get(k) is not None}
        plan = self.plan(account, region, p["Statement"], p.get("Parameters"), extra)
        if plan.op == "ConditionCheck":
            raise validation_error(errors.EXISTS_OUTSIDE_TRANSACTION)
        if plan.op in ("GetItem", "Query", "Scan"):
            return self._read(plan, p, raw)
        return self._write(account, region, plan)

    def _read(self, plan: Plan, p: dict[str, Any], raw: bool) -> dict[str, Any]:
        q = dict(plan.p)
        q.pop("ReturnValuesOnConditionCheckFailure", None)
        digest = hashlib.sha256(p["Statement"].encode()).hexdigest()[:16]
        if p.get("NextToken"):
            q["ExclusiveStartKey"] = _unpack_token(p["NextToken"], digest)
        if p.get("Limit") is not None:
            q["Limit"] = p["Limit"]
        got = self._run_read(plan, q, raw)
        out: dict[str, Any] = {"Items": got.get("Items", [])}
        if "LastEvaluatedKey" in got:
            out["NextToken"] = _pack_token(got["LastEvaluatedKey"], digest)
            out["LastEvaluatedKey"] = got["LastEvaluatedKey"]
        if "ConsumedCapacity" in got:
            out["ConsumedCapacity"] = got["ConsumedCapacity"]
        return out

    def _run_read(self, plan: Plan, q: dict[str, Any], raw: bool = False) -> dict[str, Any]:
        account, region = plan.table.account, plan.table.region
        nested = plan.st.projection is not None and "ProjectionExpression" not in q
        try:
            got = (self.reads.scan(account, region, q, raw=raw and not nested) if plan.op == "Scan"
                   else self.reads.query(account, region, q, raw=raw and not nested))
        except ServiceError as e:
            raise _as_statement_error(e) from None
        if nested and "Items" in got:
            assert plan.st.projection is not None
            got["Items"] = flatten(got["Items"], plan.st.projection)
        return got

    def _write(self, account: str, region: str, plan: Plan) -> dict[str, Any]:
        ops: dict[str, Callable[[str, str, dict[str, Any]], dict[str, Any]]] = {
            "PutItem": self.svc.put_item, "UpdateItem": self.svc.update_item, "DeleteItem": self.svc.delete_item}
        try:
            got = ops[plan.op](account, region, plan.p)
        except ServiceError as e:
            if plan.op == "PutItem" and e.code == "ConditionalCheckFailedException":
                raise errors.duplicate_item() from None
            raise _as_statement_error(e) from None
        out: dict[str, Any] = {"Items": [got["Attributes"]] if got.get("Attributes") else []}
        if "ConsumedCapacity" in got:
            out["ConsumedCapacity"] = got["ConsumedCapacity"]
        return out

    # -------------------------------------------------------------- BatchExecuteStatement
    def batch(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        planned: list[Plan | ServiceError] = []
        for s in p["Statements"]:
            # ReturnValuesOnConditionCheckFailure has no effect on a batch member (no Item comes back).
            extra = {"ConsistentRead": s["ConsistentRead"]} if s.get("ConsistentRead") is not None else {}
            if p.get("ReturnConsumedCapacity"):
                extra["ReturnConsumedCapacity"] = p["ReturnConsumedCapacity"]
            try:
                pl = self.plan(account, region, s["Statement"], s.get("Parameters"), extra)
                if pl.op == "ConditionCheck":
                    raise validation_error(errors.EXISTS_OUTSIDE_TRANSACTION)
                if pl.op in ("Query", "Scan") or (pl.op == "GetItem" and pl.st.index is not None):
                    raise validation_error(errors.BATCH_KEY)
                planned.append(pl)
            except ServiceError as e:
                planned.append(e)
        kinds = {each.op == "GetItem" for each in planned if isinstance(each, Plan)}
        if len(kinds) > 1:
            raise validation_error(errors.MIXED_BATCH)
        responses, consumed = [], _Capacity()
        for entry in planned:
            if isinstance(entry, ServiceError):  # refused before it ran: no TableName
                responses.append({"Error": _batch_error(entry)})
                continue
            pl = entry
            one: dict[str, Any] = {"TableName": pl.table.name}
            try:
                if pl.op == "GetItem":
                    got = self._run_read(pl, dict(pl.p))
                    if got.get("Items"):
                        one["Item"] = got["Items"][0]
                else:
                    got = self._write(account, region, pl)
                    if got["Items"]:
                        one["Item"] = got["Items"][0]
                consumed.add(got.get("ConsumedCapacity"))
            except ServiceError as e:
                one = {"Error": _batch_error(e), **one}
            responses.append(one)
        return consumed.report({"Responses": responses}, p)

    # -------------------------------------------------------------- ExecuteTransaction
    def transaction(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        plans = []
        for i, s in enumerate(p["TransactStatements"]):
            extra = {k: s[k] for k in ("ReturnValuesOnConditionCheckFailure",) if s.get(k) is not None}
            try:
                pl = self.plan(account, region, s["Statement"], s.get("Parameters"), extra)
                if pl.st.returning is not None:
                    raise validation_error(errors.RETURNING_IN_TRANSACTION)
                if pl.op in ("GetItem", "Query", "Scan") and pl.st.index is not None:
                    raise validation_error(errors.INDEX_READ_IN_TRANSACTION)
                if pl.op in ("Query", "Scan"):
                    raise validation_error(errors.TRANSACTION_KEY)
            except ServiceError as e:
                if e.code != "ValidationException":
                    raise
                raise errors.transaction_statement(i, e.message) from None
            plans.append(pl)
        reads = [pl.op == "GetItem" for pl in plans]
        if any(reads) and not all(reads):
            raise validation_error(errors.MIXED_TRANSACTION)
        cc = {"ReturnConsumedCapacity": p["ReturnConsumedCapacity"]} if p.get("ReturnConsumedCapacity") else {}
        if all(reads):
            got = self.batches.transact_get(account, region, {"TransactItems": [{"Get": _get_action(pl)}
                                                                                for pl in plans], **cc})
            for pl, r in zip(plans, got["Responses"], strict=True):
                if "Item" in r and pl.st.projection is not None and "ProjectionExpression" not in pl.p:
                    r["Item"] = flatten([r["Item"]], pl.st.projection)[0]
            return {"Responses": got["Responses"], **_capacity(got)}
        actions = [_write_action(pl) for pl in plans]
        q: dict[str, Any] = {"TransactItems": actions, **cc}
        if p.get("ClientRequestToken"):
            q["ClientRequestToken"] = p["ClientRequestToken"]
        try:
            got = self.batches.transact_write(account, region, q)
        except ServiceError as e:
            if e.code != "TransactionCanceledException":
                raise _as_statement_error(e) from None
            raise transaction_canceled([_inserted(r, pl) for r, pl in
                                        zip(e.extra["CancellationReasons"], plans, strict=True)]) from None
        return _capacity(got)


def _capacity(got: dict[str, Any]) -> dict[str, Any]:
    """ExecuteTransaction answers only the transaction's ConsumedCapacity (split as every transaction's is)."""
    return {"ConsumedCapacity": got["ConsumedCapacity"]} if "ConsumedCapacity" in got else {}


def _get_action(pl: Plan) -> dict[str, Any]:
    """A keyed SELECT as a TransactGetItems Get: its key from the KeyConditionExpression's values."""
    names = pl.p.get("ExpressionAttributeNames", {})
    g: dict[str, Any] = {"TableName": pl.table.name, "Key": pl.key}
    if "ProjectionExpression" in pl.p:
        g["ProjectionExpression"] = pl.p["ProjectionExpression"]
        used = set(re.findall(r"#n\d+", pl.p["ProjectionExpression"]))
        g["ExpressionAttributeNames"] = {k: v for k, v in names.items() if k in used}
    return g


def _write_action(pl: Plan) -> dict[str, Any]:
    keep = ("TableName", "Key", "Item", "UpdateExpression", "ConditionExpression", "ExpressionAttributeNames",
            "ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure")
    a = {k: v for k, v in pl.p.items() if k in keep}
    kind = {"PutItem": "Put", "UpdateItem": "Update", "DeleteItem": "Delete"}.get(pl.op, "ConditionCheck")
    return {kind: a}


def _inserted(reason: dict[str, Any], pl: Plan) -> dict[str, Any]:
    """An INSERT whose key exists is cancelled as a duplicate, not as a failed condition."""
    if pl.op == "PutItem" and reason.get("Code") == "ConditionalCheckFailed":
        return {"Code": "DuplicateItem", "Message": errors.DUPLICATE_ITEM}
    return reason


def _batch_error(e: ServiceError) -> dict[str, Any]:
    err: dict[str, Any] = {"Code": BATCH_CODES.get(e.code, e.code), "Message": e.message}
    if e.extra and e.extra.get("Item"):
        err["Item"] = e.extra["Item"]
    return err


class _Capacity:
    """ConsumedCapacity of a batch's statements, summed per table."""

    def __init__(self) -> None:
        self.by_table: dict[str, float] = {}

    def add(self, cc: dict[str, Any] | None) -> None:
        if cc:
            self.by_table[cc["TableName"]] = self.by_table.get(cc["TableName"], 0.0) + cc["CapacityUnits"]

    def report(self, out: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        mode = p.get("ReturnConsumedCapacity") or "NONE"
        if mode != "NONE":
            out["ConsumedCapacity"] = [{"TableName": n, "CapacityUnits": u, **({"Table": {"CapacityUnits": u}}
                                        if mode == "INDEXES" else {})} for n, u in self.by_table.items()]
        return out


def _pack_token(key: dict[str, Any], digest: str) -> str:
    return base64.b64encode(json.dumps({"s": digest, "k": dumps(key)}).encode()).decode()


def _unpack_token(token: str, digest: str) -> dict[str, Any]:
    try:
        body = json.loads(base64.b64decode(token, validate=True))
        key = loads(body["k"])
        sent = body["s"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        raise validation_error(errors.INVALID_NEXT_TOKEN) from None
    if sent != digest:
        raise validation_error(errors.NEXT_TOKEN_MISMATCH)
    return key
