"""EventBridge's event buses: the default bus (stored the first time it is looked at), custom buses,
and the bus policy (PutPermission / RemovePermission) that lets other accounts put events on a bus."""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import UTC, datetime
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.events import bus_policy, errors, partner, store
from onceflow.events.paging import paginate, tag_map
from onceflow.store import Database

DEFAULT_BUS = "default"
Key = tuple[str, str]


def bus_arn(region: str, account: str, name: str) -> str:
    return f"arn:{partition(region)}:events:{region}:{account}:event-bus/{name}"


def bus_name(value: str | None) -> str:
    """EventBusName takes a name or an ARN."""
    if not value:
        return DEFAULT_BUS
    if value.startswith("arn:"):
        return value.split(":event-bus/", 1)[-1]
    return value


def bus_account(value: str | None, default: str) -> str:
    """The account of an EventBusName given as an ARN (another account's bus), else `default`."""
    if value and value.startswith("arn:") and value.count(":") >= 5:
        return value.split(":")[4] or default
    return default


class Buses:
    def __init__(self, db: Database) -> None:
        self.db = db

    def bus_row(self, conn: sqlite3.Connection, key: Key, name: str) -> sqlite3.Row | dict[str, Any]:
        row = store.get_bus(conn, key, name)
        if row is None:
            if name == DEFAULT_BUS:
                return {"name": DEFAULT_BUS, "description": None, "policy": None, "created": None, "modified": None,
                        "tags": "{}", "extra": "{}"}
            raise errors.bus_not_found(name)
        return row

    def ensure_default(self, conn: sqlite3.Connection, key: Key) -> None:
        if store.get_bus(conn, key, DEFAULT_BUS) is None:
            store.insert_bus(conn, key, DEFAULT_BUS, time.time(), None, {}, {})

    def create_bus(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name, source = p["Name"], p.get("EventSourceName")
        if "/" in name and not source:  # a partner event bus is named after its source (aws.partner/...)
            raise errors.validation("Event bus name must not contain '/'.")
        if name == DEFAULT_BUS:
            raise errors.bus_exists(name)
        extra = {k: p[k] for k in ("KmsKeyIdentifier", "DeadLetterConfig", "LogConfig", "EventSourceName") if k in p}
        with self.db.transaction() as conn:
            if store.get_bus(conn, key, name) is not None:
                raise errors.bus_exists(name)
            if source:
                partner.claim(conn, key, source, name)
            store.insert_bus(conn, key, name, time.time(), p.get("Description"), tag_map(p.get("Tags")), extra)
        out = {"EventBusArn": bus_arn(key[1], key[0], name)}
        for k in ("Description", "KmsKeyIdentifier", "DeadLetterConfig", "LogConfig"):
            if k in p:
                out[k] = p[k]
        return out

    def describe_bus(self, key: Key, name: str | None) -> dict[str, Any]:
        name = bus_name(name)
        if name == DEFAULT_BUS:
            self._materialize_default(key)
        row = self.db.read(lambda c: self.bus_row(c, key, name))
        return self._bus_view(key, row)

    def _materialize_default(self, key: Key) -> None:
        """The default bus is stored the first time it is looked at, so it has a CreationTime as on AWS."""
        if self.db.read(lambda c: store.get_bus(c, key, DEFAULT_BUS)) is None:
            with self.db.transaction() as conn:
                self.ensure_default(conn, key)

    def _bus_view(self, key: Key, row: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"Name": row["name"], "Arn": bus_arn(key[1], key[0], row["name"])}
        if row["description"]:
            out["Description"] = row["description"]
        extra = json.loads(row["extra"] or "{}")
        for k in ("KmsKeyIdentifier", "DeadLetterConfig", "LogConfig"):
            if k in extra:
                out[k] = extra[k]
        if row["policy"]:
            out["Policy"] = row["policy"]
        if row["created"] is not None:
            out["CreationTime"] = datetime.fromtimestamp(row["created"], UTC)
            out["LastModifiedTime"] = datetime.fromtimestamp(row["modified"], UTC)
        return out

    def list_buses(self, key: Key, prefix: str | None, limit: int | None, token: str | None) -> dict[str, Any]:
        self._materialize_default(key)
        rows = self.db.read(lambda c: store.list_buses(c, key))
        views = [self._bus_view(key, r) for r in rows]
        views = [v for v in views if v["Name"].startswith(prefix or "")]
        views.sort(key=lambda v: v["Name"])
        page, nxt = paginate(views, limit, token)
        return {"EventBuses": page, **({"NextToken": nxt} if nxt else {})}

    def delete_bus(self, key: Key, name: str) -> None:
        if name == DEFAULT_BUS:
            raise errors.cannot_delete_default()
        with self.db.transaction() as conn:
            if "/" in name and store.get_bus(conn, key, name) is not None:
                partner.release(conn, key, name)
            store.delete_bus(conn, key, name)  # a bus that is not there: nothing to do, as AWS

    def update_bus(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name = bus_name(p.get("Name"))
        with self.db.transaction() as conn:
            if name == DEFAULT_BUS:
                self.ensure_default(conn, key)
            row = self.bus_row(conn, key, name)
            extra = json.loads(row["extra"] or "{}")
            extra.update({k: p[k] for k in ("KmsKeyIdentifier", "DeadLetterConfig", "LogConfig") if k in p})
            store.set_bus(conn, key, name, description=p.get("Description", row["description"]),
                          extra=json.dumps(extra), modified=time.time())
        view = self.describe_bus(key, name)
        return {k: view[k] for k in ("Arn", "Name", "Description", "KmsKeyIdentifier", "DeadLetterConfig",
                                     "LogConfig") if k in view}

    def put_permission(self, key: Key, p: dict[str, Any]) -> None:
        name = bus_name(p.get("EventBusName"))
        with self.db.transaction() as conn:
            if name == DEFAULT_BUS:
                self.ensure_default(conn, key)
            row = self.bus_row(conn, key, name)
            if p.get("Policy") is not None:
                try:
                    policy = json.loads(p["Policy"])
                except ValueError:
                    raise errors.bad_policy_json() from None
                if not isinstance(policy, dict):
                    raise errors.bad_policy_json()
            else:
                policy = self._with_statement(key, name, row["policy"], p)
            store.set_bus(conn, key, name, policy=json.dumps(policy, separators=(",", ":")), modified=time.time())

    def _with_statement(self, key: Key, name: str, current: str | None, p: dict[str, Any]) -> dict[str, Any]:
        principal, action, sid = p.get("Principal"), p.get("Action"), p.get("StatementId")
        if principal is None:
            raise errors.validation("Parameter Principal must be specified.")
        if action != "events:PutEvents":
            raise errors.validation("Provided value in parameter 'action' is not supported.")
        if not sid:
            raise errors.validation("Parameter StatementId must be specified.")  # UNCONFIRMED wording
        condition = p.get("Condition")
        statement: dict[str, Any] = {
            "Sid": sid, "Effect": "Allow",
            "Principal": "*" if principal == "*" else {"AWS": f"arn:aws:iam::{principal}:root"},
            "Action": action, "Resource": bus_arn(key[1], key[0], name),
        }
        if condition:
            statement["Condition"] = {condition["Type"]: {condition["Key"]: condition["Value"]}}
        policy: dict[str, Any] = json.loads(current) if current else {"Version": "2012-10-17", "Statement": []}
        policy["Statement"] = [s for s in policy.get("Statement", []) if s.get("Sid") != sid] + [statement]
        return policy

    def remove_permission(self, key: Key, p: dict[str, Any]) -> None:
        name = bus_name(p.get("EventBusName"))
        with self.db.transaction() as conn:
            row = self.bus_row(conn, key, name)
            if not row["policy"]:
                raise errors.policy_not_found()
            if p.get("RemoveAllPermissions"):
                store.set_bus(conn, key, name, policy=None, modified=time.time())
                return
            policy = json.loads(row["policy"])
            kept = [s for s in policy.get("Statement", []) if s.get("Sid") != p.get("StatementId")]
            if len(kept) == len(policy.get("Statement", [])):
                raise errors.statement_not_found()
            policy["Statement"] = kept
            store.set_bus(conn, key, name, policy=json.dumps(policy, separators=(",", ":")) if kept else None,
                          modified=time.time())

    def bus_allows(self, conn: sqlite3.Connection, key: Key, bus: str, source_account: str) -> bool:
        """Whether the bus's policy lets `source_account` put events on it."""
        row = store.get_bus(conn, key, bus)
        return bus_policy.allows(row["policy"] if row else None, source_account, bus_arn(key[1], key[0], bus))
