"""BatchGetItem, BatchWriteItem, TransactWriteItems and TransactGetItems. Every request is
validated whole before anything is written, then written in one transaction: all or nothing."""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from onceflow.ddb import errors
from onceflow.ddb import items as it
from onceflow.ddb.capacity import Costs, collection_metrics, wants_metrics
from onceflow.ddb.errors import CONDITIONAL_FAILED, INVALID, KEY_MISMATCH, idempotent_mismatch, transaction_canceled
from onceflow.ddb.expr.evaluate import condition, project
from onceflow.ddb.expr.update import apply_update, creates_item
from onceflow.ddb.prepare import prepare
from onceflow.ddb.schema import TABLE_NAME_PATTERN, Table, table_name_ok
from onceflow.ddb.service import DynamoDB, projection_paths
from onceflow.ddb.values import check_nesting, dumps, item_size, loads, normalize_item, normalize_value
from onceflow.errors import ServiceError, validation_error

TOKEN_TTL = 600.0
BATCH_GET_BYTES = 16 * 1024 * 1024  # a BatchGetItem answer holds at most 16 MB of items; the rest is unprocessed
TRANSACTION_BYTES = 4 * 1024 * 1024  # the aggregate size of the items a transaction writes


@dataclass
class Action:
    """One TransactWriteItems action as its request says it (checked before any table is looked up)."""

    kind: str  # ConditionCheck, Put, Delete or Update
    request: dict[str, Any]
    prep: Any  # its expressions, prepared once (ddb/prepare.py)
    item: Any = None  # a Put's item, normalized


@dataclass
class WritePlan:
    """An action against its table: the item's key, and what it writes once the conditions hold."""

    kind: str
    table: Table
    prep: Any
    on_fail: str | None  # ReturnValuesOnConditionCheckFailure
    hk: Any = None
    rk: Any = None
    key: Any = None  # the Key of a ConditionCheck, Delete or Update
    item: Any = None  # a Put's item
    new: Any = None  # an Update's item, computed when its conditions are checked
    refused: str | None = None  # a key problem reported as this action's cancellation reason


class Batches:
    def __init__(self, svc: DynamoDB) -> None:
        self.svc = svc
        self.store = svc.store

    # ---------------------------------------------------------------- batches
    def batch_get(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        req = p["RequestItems"]
        if not all(table_name_ok(name) for name in req):
            # A member constraint on the map's keys: coral shows the whole map, as JSON.
            shown = json.dumps(req, separators=(",", ":"), ensure_ascii=False, default=_json_bytes)
            raise errors.request_items_names(shown, TABLE_NAME_PATTERN)
        if sum(len(r["Keys"]) for r in req.values()) > 100:
            raise errors.too_many_items("BatchGetItem")
        if any("AttributesToGet" in r for r in req.values()) and any("ProjectionExpression" in r for r in req.values()):
            # One table's block projecting by expression and another's by AttributesToGet: the request mixes.
            raise errors.mixed_parameters("AttributesToGet", "ProjectionExpression")
        plans = []
        for name, r in req.items():
            prep = prepare(r, ("ProjectionExpression",))
            t = self.svc.table(account, region, name)
            keys = [it.key_bytes(t, k)[:2] for k in r["Keys"]]
            if len(set(keys)) != len(keys):
                raise validation_error(errors.DUPLICATE_KEYS)
            plans.append((name, t, keys, projection_paths(prep, r)))
        responses: dict[str, list[Any]] = {}
        unprocessed: dict[str, Any] = {}
        costs = Costs(p)  # each key read is charged on its item's whole size, as GetItem's is
        size, full = 0, False
        for name, t, keys, paths in plans:
            got = responses.setdefault(name, [])
            consistent = bool(req[name].get("ConsistentRead"))
            for i, (hk, rk) in enumerate(keys):
                text = None if full else self.store.read(t.id, hk, rk)
                item = stored = None
                if text is not None:
                    stored = loads(text)
                    item = project(stored, paths) if paths is not None else stored
                    full = size + item_size(item) > BATCH_GET_BYTES
                if full:  # this key and the rest are the caller's to ask for again
                    unprocessed[name] = {**req[name], "Keys": req[name]["Keys"][i:]}
                    break
                costs.read(t, stored, consistent)
                if item is not None:
                    size += item_size(item)
                    got.append(item)
        return costs.report({"Responses": responses, "UnprocessedKeys": unprocessed})

    def batch_write(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        req = p["RequestItems"]
        if sum(len(v) for v in req.values()) > 25:
            raise errors.too_many_items("BatchWriteItem")
        ops = []
        for name, writes in req.items():
            t = self.svc.table(account, region, name)
            seen = set()
            for w in writes:
                if ("PutRequest" in w) == ("DeleteRequest" in w):
                    raise validation_error(errors.MORE_THAN_ONE_TYPE)
                if "PutRequest" in w:
                    item = normalize_item(w["PutRequest"]["Item"])
                    hk, rk = it.item_key_bytes(t, item, batch=True)
                    it.check_size(item_size(item))
                    it.index_rows(t, item)
                    key = item
                else:
                    hk, rk, key = it.key_bytes(t, w["DeleteRequest"]["Key"])
                    item = None
                if (hk, rk) in seen:
                    raise validation_error(errors.DUPLICATE_KEYS)
                seen.add((hk, rk))
                ops.append((t, hk, rk, item, key))
        costs = Costs(p)
        metrics: dict[str, list[Any]] = {}
        with self.svc.db.transaction() as conn:
            for t, hk, rk, item, _ in ops:
                text = self.store.get(conn, t.id, hk, rk)
                old = loads(text) if text is not None else None
                if item is not None or old is not None:
                    self.svc.write(conn, t, hk, rk, old, item)
                costs.write(t, old, item)
            for t, hk, _, _, key in ops:
                if wants_metrics(t, p):
                    metrics.setdefault(t.name, []).append(collection_metrics(conn, self.store, t, hk, key))
        out = costs.report({"UnprocessedItems": {}})
        if metrics:
            out["ItemCollectionMetrics"] = metrics
        return out

    # ---------------------------------------------------------------- transactions
    def transact_get(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        plans = []
        refused: dict[int, str] = {}  # action -> why its key is refused (the transaction is cancelled)
        for i, ti in enumerate(p["TransactItems"]):
            g = ti["Get"]
            prep = prepare(g, ("ProjectionExpression",))
            t = self.svc.table(account, region, g["TableName"])
            try:
                hk, rk, _ = it.key_bytes(t, g["Key"])
            except ServiceError as e:
                if not _action_level(e):
                    raise
                refused[i], hk, rk = e.message, b"", str(i).encode()
            plans.append((t, hk, rk, projection_paths(prep, g)))
        if refused:
            raise transaction_canceled([_refused(refused[i]) if i in refused else {"Code": "None"}
                                        for i in range(len(plans))])
        targets = [(pl[0].id, pl[1], pl[2]) for pl in plans]
        if len(set(targets)) != len(targets):
            raise validation_error(errors.MULTIPLE_OPERATIONS)
        out = []
        costs = Costs(p, transactional=True)
        for t, hk, rk, paths in plans:
            text = self.store.read(t.id, hk, rk)
            item = loads(text) if text is not None else None
            costs.read(t, item)
            out.append({} if item is None else {"Item": project(item, paths) if paths is not None else item})
        return costs.report({"Responses": out})

    def _parse(self, ti: dict[str, Any]) -> Action:
        """What an action says on its own (its expressions, its Put item), checked for every action in
        request order before any table is looked up."""
        kinds = [k for k in ("ConditionCheck", "Put", "Delete", "Update") if k in ti]
        if not kinds:
            raise validation_error(errors.NO_WRITE_REQUEST)
        if len(kinds) > 1:
            raise validation_error(errors.ONE_ACTION)
        kind = kinds[0]
        a = ti[kind]
        exprs = ("UpdateExpression", "ConditionExpression") if kind == "Update" else ("ConditionExpression",)
        prep = prepare(a, exprs)
        if kind == "ConditionCheck" and prep.get("ConditionExpression") is None:
            raise validation_error(errors.CHECK_WITHOUT_CONDITION)
        if kind == "Put":
            return Action(kind, a, prep, normalize_item(a["Item"]))
        # A key value is read like an item's: one nested too deep is refused before any table is seen.
        check_nesting(normalize_value(v) for v in a["Key"].values())
        return Action(kind, a, prep)

    def _plan(self, account: str, region: str, action: Action) -> WritePlan:
        kind, a, prep = action.kind, action.request, action.prep
        t = self.svc.table(account, region, a["TableName"])
        plan = WritePlan(kind, t, prep, a.get("ReturnValuesOnConditionCheckFailure"))
        try:
            if kind == "Put":
                item = action.item
                plan.hk, plan.rk = it.item_key_bytes(t, item)
                it.check_size(item_size(item))
                it.index_rows(t, item)
                plan.item = item
            else:
                plan.hk, plan.rk, plan.key = it.key_bytes(t, a["Key"])
        except ServiceError as e:
            # A key of the wrong type is this action's failure (the transaction is cancelled with a
            # ValidationError reason); an empty or oversized value is refused before the transaction.
            if not _action_level(e):
                raise
            plan.refused = e.message
            return plan
        upd = prep.get("UpdateExpression")
        if kind == "Update" and upd is not None:
            for path in upd.paths():
                if path.elements[0] in t.key_names:
                    raise errors.key_attribute_updated(path.elements[0])
        return plan

    def transact_write(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        parsed = [self._parse(ti) for ti in p["TransactItems"]]
        plans = [self._plan(account, region, one) for one in parsed]
        if sum(item_size(pl.item) for pl in plans if pl.item is not None) > TRANSACTION_BYTES:
            raise validation_error(errors.TOO_LARGE)
        targets = [(pl.table.id, pl.hk, pl.rk) for pl in plans if pl.refused is None]
        if len(set(targets)) != len(targets):
            raise validation_error(errors.MULTIPLE_OPERATIONS)
        token = p.get("ClientRequestToken")
        digest = _digest(p) if token else ""
        with self.svc.db.transaction() as conn:
            if token:
                seen = self.store.token(conn, account, region, token)
                if seen is not None and seen[1] > self.svc.clock() - TOKEN_TTL:
                    if seen[0] != digest:
                        raise idempotent_mismatch()
                    # A replay is answered from the stored result: DynamoDB charges it as a transactional read.
                    replay = Costs(p, transactional=True)
                    for pl in plans:
                        if pl.refused is None:
                            text = self.store.get(conn, pl.table.id, pl.hk, pl.rk)
                            replay.read(pl.table, loads(text) if text is not None else None)
                    return replay.report({})
            olds: list[Any] = []
            reasons: list[Any] = []
            failed = False
            for pl in plans:
                if pl.refused is not None:
                    olds.append(None)
                    reasons.append(_refused(pl.refused))
                    failed = True
                    continue
                text = self.store.get(conn, pl.table.id, pl.hk, pl.rk)
                old = loads(text) if text is not None else None
                olds.append(old)
                reasons.append(self._reason(pl, old))
                failed = failed or reasons[-1]["Code"] != "None"
            if failed:
                raise transaction_canceled(reasons)
            costs = Costs(p, transactional=True)
            for pl, old in zip(plans, olds, strict=True):
                self._apply(conn, pl, old)
                if pl.kind == "ConditionCheck":
                    costs.check(pl.table, old)
                else:
                    costs.write(pl.table, old, {"Put": pl.item, "Update": pl.new}.get(pl.kind))
            if token:
                self.store.save_token(conn, account, region, token, digest, self.svc.clock())
        return costs.report({})

    def _reason(self, pl: WritePlan, old: Any) -> dict[str, Any]:
        prep = pl.prep
        cond = prep.get("ConditionExpression")
        if cond is not None and not condition(cond, old or {}, prep.values):
            r: dict[str, Any] = {"Code": "ConditionalCheckFailed", "Message": CONDITIONAL_FAILED}
            if pl.on_fail == "ALL_OLD" and old:
                r["Item"] = old
            return r
        if pl.kind == "Update":
            try:
                upd = prep.get("UpdateExpression")
                new = apply_update(upd, old or pl.key, prep.values) if upd is not None else dict(old or pl.key)
                it.check_size(item_size(new), update=True)
                check_nesting(new.values())
                it.index_rows(pl.table, new)
                pl.new = new if old is not None or creates_item(upd) else None  # None: nothing to write
            except errors.EmptyIndexKey as e:
                raise e.as_update() from None
            except ServiceError as e:
                return _refused(e.message)
        return {"Code": "None"}

    def _apply(self, conn: Any, pl: WritePlan, old: Any) -> None:
        t, hk, rk = pl.table, pl.hk, pl.rk
        if pl.kind == "Put":
            self.svc.write(conn, t, hk, rk, old, pl.item)
        elif pl.kind == "Delete":
            if old is not None:
                self.svc.write(conn, t, hk, rk, old, None)
        elif pl.kind == "Update" and pl.new is not None:
            self.svc.write(conn, t, hk, rk, old, pl.new)


def _json_bytes(b: Any) -> str:
    return base64.b64encode(b).decode() if isinstance(b, bytes | bytearray) else str(b)


def _action_level(e: ServiceError) -> bool:
    """Whether a transaction reports this key problem as the action's cancellation reason: a key of the
    wrong type (table or index), where an empty or oversized key is refused outright."""
    return e.message == KEY_MISMATCH or e.message.startswith(INVALID + "Type mismatch for ")


def _refused(message: str) -> dict[str, Any]:
    return {"Code": "ValidationError", "Message": message}


def _digest(p: dict[str, Any]) -> str:
    body = {k: v for k, v in p.items() if k != "ClientRequestToken"}
    text = json.dumps(body, sort_keys=True, default=lambda o: dumps({"B": o}))
    return hashlib.sha256(text.encode()).hexdigest()
