"""Partner event sources: a SaaS partner's source offered to one customer account, the partner event
bus of the same name the customer creates for it, and PutPartnerEvents onto that bus.

The partner's side (Create/Delete/DescribePartnerEventSource, ListPartnerEventSources,
ListPartnerEventSourceAccounts, PutPartnerEvents) is open to any account here: onceflow has no
registry of SaaS partners, and a local stack is where a customer's handling of partner events is
tried. The customer's side (Describe/List/Activate/DeactivateEventSource, CreateEventBus with
EventSourceName) is as the EventBridge reference has it: a source is PENDING until its account makes
the matching bus, then ACTIVE; a deactivated one is PENDING again; a PENDING one goes after two weeks
("If it remains in PENDING state for more than two weeks, it is deleted"). A source the partner deletes
while its customer has the matching bus stays in the customer's view as DELETED (DeletePartnerEventSource:
"the status of the corresponding partner event bus in the Amazon Web Services customer account becomes
DELETED"; EventSource.State: "you have created a matching event bus, but the event source has since been
deleted") until the customer deletes that bus; the partner no longer sees it. Texts UNCONFIRMED."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.errors import ServiceError
from onceflow.events import errors, store
from onceflow.events.paging import paginate

if TYPE_CHECKING:
    import sqlite3

    from onceflow.events.service import EventsService

Key = tuple[str, str]
PENDING_FOR_S = 14 * 24 * 3600
DELETED = "DELETED"  # the customer's view of a source its partner deleted (EventSourceState)


def source_arn(region: str, name: str) -> str:
    # A partner event source's ARN names no account (arn:aws:events:<region>::event-source/aws.partner/...).
    return f"arn:{partition(region)}:events:{region}::event-source/{name}"


def _when(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC)


def _invalid_state(name: str, state: str) -> ServiceError:
    return ServiceError("InvalidStateException", f"Event source {name} is {state}.", 400)


def _customer_view(row: sqlite3.Row) -> dict[str, Any]:
    out: dict[str, Any] = {"Arn": source_arn(row["region"], row["name"]), "CreatedBy": row["name"].split("/")[1],
                           "CreationTime": _when(row["created"]), "Name": row["name"], "State": row["state"]}
    if row["expires"] is not None:
        out["ExpirationTime"] = _when(row["expires"])
    return out


def claim(conn: sqlite3.Connection, key: Key, source: str, bus: str) -> None:
    """CreateEventBus(EventSourceName): the source must be this account's and pending, and the bus named
    after it ("this name must match the name of the partner event source"); it is then ACTIVE."""
    row = store.partner_source(conn, key[1], source, time.time())
    if row is None or row["account"] != key[0]:
        raise errors.event_source_not_found(source)
    if bus != source:
        raise errors.validation("Event bus name must match the name of the partner event source.")
    if row["state"] != "PENDING":
        raise _invalid_state(source, row["state"])
    store.set_partner_state(conn, key[1], source, "ACTIVE", None)


def release(conn: sqlite3.Connection, key: Key, bus: str) -> None:
    """DeleteEventBus of a partner bus: its source is PENDING again (UNCONFIRMED), for two weeks; one
    its partner has deleted (DELETED) is gone with the bus."""
    row = store.partner_source(conn, key[1], bus, time.time())
    if row is not None and row["account"] == key[0]:
        if row["state"] == DELETED:
            store.delete_partner_source(conn, key[1], bus, key[0])
        else:
            store.set_partner_state(conn, key[1], bus, "PENDING", time.time() + PENDING_FOR_S)


class PartnerSources:
    def __init__(self, events: EventsService) -> None:
        self.events = events
        self.db = events.db

    def _mine(self, conn: sqlite3.Connection, key: Key, name: str, column: str) -> sqlite3.Row:
        row = store.partner_source(conn, key[1], name, time.time())
        if row is None or row[column] != key[0] or (column == "partner" and row["state"] == DELETED):
            raise errors.event_source_not_found(name)
        return row

    # ------------------------------------------------------------------ the partner's side
    def create(self, key: Key, name: str, account: str) -> dict[str, Any]:
        now = time.time()
        with self.db.transaction() as conn:
            existing = store.partner_source(conn, key[1], name, now)
            if existing is not None and existing["state"] != DELETED:  # a deleted one may be offered anew
                raise ServiceError("ResourceAlreadyExistsException", f"Event source {name} already exists.", 400)
            store.put_partner_source(conn, key[1], name, key[0], account, "PENDING", now, now + PENDING_FOR_S)
        return {"EventSourceArn": source_arn(key[1], name)}

    def delete(self, key: Key, name: str, account: str) -> None:
        with self.db.transaction() as conn:  # one that is not there: nothing to do (the model has no NotFound)
            row = store.partner_source(conn, key[1], name, time.time())
            if row is None or row["partner"] != key[0] or row["account"] != account or row["state"] == DELETED:
                return
            if store.get_bus(conn, (account, key[1]), name) is not None:  # the customer's bus outlives it
                store.set_partner_state(conn, key[1], name, DELETED, None)
            else:
                store.delete_partner_source(conn, key[1], name, account)

    def describe_partner(self, key: Key, name: str) -> dict[str, Any]:
        row = self.db.read(lambda c: self._mine(c, key, name, "partner"))
        return {"Arn": source_arn(key[1], row["name"]), "Name": row["name"]}

    def list_partner(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        rows = self.db.read(lambda c: store.partner_sources(c, key[1], "partner", key[0], time.time()))
        found = [{"Arn": source_arn(key[1], r["name"]), "Name": r["name"]} for r in rows
                 if r["name"].startswith(p["NamePrefix"]) and r["state"] != DELETED]
        page, token = paginate(found, p.get("Limit"), p.get("NextToken"))
        return {"PartnerEventSources": page, **({"NextToken": token} if token else {})}

    def accounts(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        row = self.db.read(lambda c: self._mine(c, key, p["EventSourceName"], "partner"))
        entry: dict[str, Any] = {"Account": row["account"], "CreationTime": _when(row["created"]),
                                 "State": row["state"]}
        if row["expires"] is not None:
            entry["ExpirationTime"] = _when(row["expires"])
        page, token = paginate([entry], p.get("Limit"), p.get("NextToken"))
        return {"PartnerEventSourceAccounts": page, **({"NextToken": token} if token else {})}

    def put_events(self, key: Key, entries: list[dict[str, Any]]) -> dict[str, Any]:
        now = time.time()
        results: list[dict[str, Any]] = []
        with self.db.transaction() as conn:
            for entry in entries:
                results.append(self._put_one(conn, key, entry, now))
        self.events.clock.poke()
        return {"FailedEntryCount": sum(1 for r in results if "ErrorCode" in r), "Entries": results}

    def _put_one(self, conn: sqlite3.Connection, key: Key, entry: dict[str, Any], now: float) -> dict[str, Any]:
        problem = self.events.entry_problem(entry)  # the same entry checks as PutEvents
        if problem is not None:
            return {"ErrorCode": problem[0], "ErrorMessage": problem[1]}
        row = store.partner_source(conn, key[1], entry["Source"], now)
        if row is None or row["partner"] != key[0] or row["state"] == DELETED:
            return {"ErrorCode": "ResourceNotFoundException",  # UNCONFIRMED entry code and text
                    "ErrorMessage": f"Event source {entry['Source']} does not exist."}
        customer = (row["account"], key[1])
        if row["state"] != "ACTIVE" or store.get_bus(conn, customer, row["name"]) is None:
            return {"ErrorCode": "ResourceNotFoundException",  # UNCONFIRMED: no active partner event bus
                    "ErrorMessage": f"Event bus {row['name']} does not exist."}
        event = self.events.make_event(customer, entry["Source"], entry["DetailType"], json.loads(entry["Detail"]),
                                       entry.get("Resources") or [], entry.get("Time"), now)
        self.events.route(conn, customer, row["name"], event, now)
        return {"EventId": event["id"]}

    # ------------------------------------------------------------------ the customer's side
    def describe(self, key: Key, name: str) -> dict[str, Any]:
        return _customer_view(self.db.read(lambda c: self._mine(c, key, name, "account")))

    def list(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        rows = self.db.read(lambda c: store.partner_sources(c, key[1], "account", key[0], time.time()))
        found = [_customer_view(r) for r in rows if r["name"].startswith(p.get("NamePrefix") or "")]
        page, token = paginate(found, p.get("Limit"), p.get("NextToken"))
        return {"EventSources": page, **({"NextToken": token} if token else {})}

    def activate(self, key: Key, name: str) -> None:
        with self.db.transaction() as conn:
            row = self._mine(conn, key, name, "account")
            if row["state"] != "PENDING" or store.get_bus(conn, key, name) is None:
                raise _invalid_state(name, row["state"] if row["state"] != "PENDING" else "without a matching bus")
            store.set_partner_state(conn, key[1], name, "ACTIVE", None)

    def deactivate(self, key: Key, name: str) -> None:
        with self.db.transaction() as conn:
            row = self._mine(conn, key, name, "account")
            if row["state"] != "ACTIVE":
                raise _invalid_state(name, row["state"])
            store.set_partner_state(conn, key[1], name, "PENDING", time.time() + PENDING_FOR_S)
