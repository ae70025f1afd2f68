"""Archives and replays: a bus's events kept (all, or those an archive's pattern matches) and sent
again to the same bus's rules.

An archive is kept by the rule AWS creates for it on its bus, `Events-Archive-<name>`, managed by
EventBridge (ManagedBy `prod.vhs.events.aws.internal`, as AWS answers): its pattern is the archive's
with `replay-name` required absent, and its one target is EventBridge itself. So the archive is
listed with the bus's rules, and an event it matches is archived by routing, in the transaction that
accepts the event. The user may not change or delete that rule without Force (ManagedRuleException);
deleting the archive deletes it. A replay routes the archived events whose
time (the event's `time`, as AWS selects) falls in its window to the destination bus's rules (only the rules of
`FilterArns` when given), each with `replay-name` added as AWS does; replayed events are not
archived again. A replay is STARTING for a moment (REPLAY_START_S, time-scaled), while CancelReplay
can stop it (CANCELLING, then CANCELLED with nothing replayed), then the clock runs it at once
(ReplayRuns) and it is COMPLETED. RetentionDays is kept but not enforced (UNCONFIRMED when AWS purges).
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.errors import ServiceError
from onceflow.events import errors, store
from onceflow.events.paging import paginate
from onceflow.patterns.event_pattern import PatternError, compile_pattern

if TYPE_CHECKING:
    from onceflow.events.service import EventsService

Key = tuple[str, str]

REPLAY_START_S = 1.0  # how long a replay stays STARTING (time-scaled); AWS's is longer and not documented
MANAGER = "prod.vhs.events.aws.internal"  # the ManagedBy AWS answers for an archive's rule (AWS-verified by moto)
RULE_PREFIX = "Events-Archive-"


def event_time(event: dict[str, Any], default: float) -> float:
    """The time in the event (PutEvents' Time, else when it was accepted): what a replay's window
    selects by ("A replay processes events to replay based on the time in the event", StartReplay)."""
    try:
        return datetime.strptime(str(event["time"]), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except (KeyError, ValueError):
        return default


def rule_name(archive: str) -> str:
    return RULE_PREFIX + archive


def archive_of(rule: sqlite3.Row) -> str | None:
    """The archive a rule keeps, for an archive's managed rule; else None."""
    if rule["managed_by"] == MANAGER and rule["name"].startswith(RULE_PREFIX):
        return str(rule["name"][len(RULE_PREFIX):])
    return None


def rule_pattern(archive_pattern: str | None) -> str:
    """The archive's own pattern, and never an event a replay sends (AWS's managed rule pattern)."""
    pattern = json.loads(archive_pattern) if archive_pattern else {}
    pattern["replay-name"] = [{"exists": False}]
    return json.dumps(pattern, separators=(",", ":"))


def archive_arn(key: Key, name: str) -> str:
    return f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}:archive/{name}"


def replay_arn(key: Key, name: str) -> str:
    return f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}:replay/{name}"


def _when(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, UTC)


def _archive_exists(name: str) -> ServiceError:
    return ServiceError("ResourceAlreadyExistsException", f"Archive {name} already exists.", 400)


def _archive_missing(name: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Archive {name} does not exist.", 400)


def _replay_missing(name: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Replay {name} does not exist.", 400)


class Archives:
    def __init__(self, events: EventsService) -> None:
        self.events = events
        self.db = events.db

    # ------------------------------------------------------------------ archives
    def _bus_of(self, conn: sqlite3.Connection, key: Key, arn: str) -> str:
        prefix = f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}:event-bus/"
        if not arn.startswith(prefix):
            raise errors.validation("Parameter EventSourceArn is not valid. Reason: Must contain an event bus ARN.")
        name = arn[len(prefix):]
        self.events.buses.bus_row(conn, key, name)
        return name

    def _pattern(self, text: str | None) -> str | None:
        if text:
            try:
                compile_pattern(text)
            except PatternError as e:
                raise errors.invalid_pattern(e.reason) from None
        return text or None

    def create(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name = p["ArchiveName"]
        pattern = self._pattern(p.get("EventPattern"))
        now = time.time()
        with self.db.transaction() as conn:
            bus = self._bus_of(conn, key, p["EventSourceArn"])
            if store.get_archive(conn, key, name) is not None:
                raise _archive_exists(name)
            store.put_archive(conn, key, name, {"bus": bus, "description": p.get("Description"), "pattern": pattern,
                                                "retention": p.get("RetentionDays", 0), "created": now})
            self._put_rule(conn, key, bus, name, pattern, now)
        return {"ArchiveArn": archive_arn(key, name), "State": "ENABLED", "CreationTime": _when(now)}

    @staticmethod
    def _put_rule(conn: sqlite3.Connection, key: Key, bus: str, name: str, pattern: str | None, now: float) -> None:
        """The archive's managed rule and its one target, EventBridge itself (the target AWS lists)."""
        rule = rule_name(name)
        existing = store.get_rule(conn, key, bus, rule)
        store.put_rule(conn, key, bus, rule, {
            "pattern": rule_pattern(pattern), "schedule": None, "state": "ENABLED", "description": None,
            "role_arn": None, "managed_by": MANAGER, "created": existing["created"] if existing else now,
            "tags": existing["tags"] if existing else "{}", "nominal_next": None, "next_fire": None})
        if existing is None:
            template = (f'{{"archive-arn": "{archive_arn(key, name)}:{uuid.uuid4()}", "event": '
                        '<aws.events.event.json>, "ingestion-time": <aws.events.event.ingestion-time>}')
            store.put_target(conn, key, bus, rule, {
                "Id": rule, "Arn": f"arn:{partition(key[1])}:events:{key[1]}:::",
                "InputTransformer": {"InputPathsMap": {}, "InputTemplate": template}})

    def _row(self, conn: sqlite3.Connection, key: Key, name: str) -> sqlite3.Row:
        row = store.get_archive(conn, key, name)
        if row is None:
            raise _archive_missing(name)
        return row

    def _view(self, conn: sqlite3.Connection, key: Key, row: sqlite3.Row, full: bool) -> dict[str, Any]:
        count, size = store.archive_stats(conn, key, row["name"])
        out: dict[str, Any] = {}
        if full:
            out["ArchiveArn"] = archive_arn(key, row["name"])
        out.update({"ArchiveName": row["name"],
                    "EventSourceArn": f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}:event-bus/{row['bus']}"})
        if full and row["description"]:
            out["Description"] = row["description"]
        if full and row["pattern"]:
            out["EventPattern"] = row["pattern"]
        out.update({"State": "ENABLED", "RetentionDays": row["retention"], "SizeBytes": size, "EventCount": count,
                    "CreationTime": _when(row["created"])})
        return out

    def describe(self, key: Key, name: str) -> dict[str, Any]:
        return self.db.read(lambda c: self._view(c, key, self._row(c, key, name), True))

    def list(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        _one_filter("ListArchives", p)

        def read(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            return [self._view(conn, key, r, False) for r in store.list_archives(conn, key)]
        found = [a for a in self.db.read(read) if a["ArchiveName"].startswith(p.get("NamePrefix") or "")
                 and p.get("EventSourceArn", a["EventSourceArn"]) == a["EventSourceArn"]
                 and p.get("State", "ENABLED") == "ENABLED"]
        page, token = paginate(found, p.get("Limit"), p.get("NextToken"))
        return {"Archives": page, **({"NextToken": token} if token else {})}

    def update(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name = p["ArchiveName"]
        pattern = self._pattern(p.get("EventPattern")) if "EventPattern" in p else None
        with self.db.transaction() as conn:
            row = self._row(conn, key, name)
            store.put_archive(conn, key, name, {
                "bus": row["bus"], "description": p.get("Description", row["description"]),
                "pattern": pattern if "EventPattern" in p else row["pattern"],
                "retention": p.get("RetentionDays", row["retention"]), "created": row["created"]})
            if "EventPattern" in p:
                self._put_rule(conn, key, row["bus"], name, pattern, row["created"])
        return {"ArchiveArn": archive_arn(key, name), "State": "ENABLED", "CreationTime": _when(row["created"])}

    def delete(self, key: Key, name: str) -> None:
        with self.db.transaction() as conn:
            row = self._row(conn, key, name)
            store.delete_rule(conn, key, row["bus"], rule_name(name))
            store.delete_archive(conn, key, name)

    @staticmethod
    def keep(conn: sqlite3.Connection, key: Key, archive: str, event: dict[str, Any], now: float) -> None:
        """An event the archive's rule matched (inside the accepting transaction); the rule may
        outlive its archive when deleted with Force first, then there is nothing to keep it in."""
        if store.get_archive(conn, key, archive) is not None:
            store.archive_event(conn, key, archive, event_time(event, now), event)

    # ------------------------------------------------------------------ replays
    def start_replay(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name, source = p["ReplayName"], p["EventSourceArn"]
        start, end = p["EventStartTime"].timestamp(), p["EventEndTime"].timestamp()
        destination = p["Destination"]
        now = time.time()
        with self.db.transaction() as conn:
            # The destination is checked before the archive (the order moto's tests give for AWS).
            bus_prefix = f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}:event-bus/"
            if not destination["Arn"].startswith(bus_prefix):
                raise errors.validation("Parameter Destination.Arn is not valid. Reason: Must contain an event bus "
                                        "ARN.")
            bus = destination["Arn"][len(bus_prefix):]
            self.events.buses.bus_row(conn, key, bus)
            prefix = f"arn:{partition(key[1])}:events:{key[1]}:{key[0]}:archive/"
            archive_name = source[len(prefix):] if source.startswith(prefix) else source.rsplit("/", 1)[-1]
            archive = store.get_archive(conn, key, archive_name)
            if archive is None:
                raise errors.validation(f"Parameter EventSourceArn is not valid. Reason: Archive {archive_name} "
                                        "does not exist.")
            if bus != archive["bus"]:
                raise errors.validation("Parameter Destination.Arn is not valid. Reason: Cross event bus replay is "
                                        "not permitted.")
            if start > end:
                raise errors.validation("Parameter EventEndTime is not valid. Reason: EventStartTime must be before "
                                        "EventEndTime.")
            if store.get_replay(conn, key, name) is not None:
                raise ServiceError("ResourceAlreadyExistsException", f"Replay {name} already exists.", 400)
            rules = sorted({arn.rsplit("/", 1)[-1] for arn in destination.get("FilterArns") or []}) or None
            body = {"ReplayName": name, "ReplayArn": replay_arn(key, name), "Description": p.get("Description"),
                    "State": "STARTING", "EventSourceArn": source, "Destination": destination,
                    "EventStartTime": start, "EventEndTime": end, "ReplayStartTime": now,
                    # what the clock needs to run it (never shown): when, from which archive, to which rules
                    "_due": now + REPLAY_START_S / self.events.scale, "_archive": archive_name, "_bus": bus,
                    "_rules": rules}
            store.put_replay(conn, key, name, body)
        self.events.clock.poke()
        return {"ReplayArn": replay_arn(key, name), "State": "STARTING", "ReplayStartTime": _when(now)}

    def _replay(self, conn: sqlite3.Connection, key: Key, name: str) -> dict[str, Any]:
        body = store.get_replay(conn, key, name)
        if body is None:
            raise _replay_missing(name)
        return body

    @staticmethod
    def _replay_view(body: dict[str, Any], full: bool) -> dict[str, Any]:
        keys = ("ReplayName", "ReplayArn", "Description", "State", "StateReason", "EventSourceArn", "Destination",
                "EventStartTime", "EventEndTime", "EventLastReplayedTime", "ReplayStartTime", "ReplayEndTime") if full \
            else ("ReplayName", "EventSourceArn", "State", "StateReason", "EventStartTime", "EventEndTime",
                  "EventLastReplayedTime", "ReplayStartTime", "ReplayEndTime")
        times = {"EventStartTime", "EventEndTime", "EventLastReplayedTime", "ReplayStartTime", "ReplayEndTime"}
        return {k: (_when(body[k]) if k in times else body[k]) for k in keys if body.get(k) is not None}

    def describe_replay(self, key: Key, name: str) -> dict[str, Any]:
        return self._replay_view(self.db.read(lambda c: self._replay(c, key, name)), True)

    def list_replays(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        _one_filter("ListReplays", p)
        found = [self._replay_view(b, False) for b in self.db.read(lambda c: store.list_replays(c, key))
                 if b["ReplayName"].startswith(p.get("NamePrefix") or "")
                 and p.get("State", b["State"]) == b["State"]
                 and p.get("EventSourceArn", b["EventSourceArn"]) == b["EventSourceArn"]]
        page, token = paginate(found, p.get("Limit"), p.get("NextToken"))
        return {"Replays": page, **({"NextToken": token} if token else {})}

    def cancel_replay(self, key: Key, name: str) -> dict[str, Any]:
        with self.db.transaction() as conn:
            body = self._replay(conn, key, name)
            if body["State"] not in ("STARTING", "RUNNING"):
                raise ServiceError("IllegalStatusException",
                                   f"Replay {name} is not in a valid state for this operation.", 400)
            body["State"] = "CANCELLING"
            store.put_replay(conn, key, name, body)
        return {"ReplayArn": body["ReplayArn"], "State": "CANCELLING"}


class ReplayRuns:
    """The replays as a clock source: a replay STARTING runs when due (its archived events routed to
    the destination bus's rules in one transaction, then COMPLETED); one cancelled before it ran ends
    CANCELLED with nothing replayed."""

    def __init__(self, events: EventsService) -> None:
        self.events = events
        self.db = events.db

    def next_due(self) -> float | None:
        dues = [body["_due"] for _key, body in self.db.read(store.replays_in_flight)]
        return min(dues) if dues else None

    def run_due(self, now: float) -> None:
        for key, body in self.db.read(store.replays_in_flight):
            if body["_due"] <= now:
                with self.db.transaction() as conn:
                    self._finish(conn, key, body["ReplayName"])

    def _finish(self, conn: sqlite3.Connection, key: Key, name: str) -> None:
        body = store.get_replay(conn, key, name)
        if body is None or "_due" not in body:
            return  # deleted by a reset, or finished meanwhile
        if body["State"] == "STARTING":
            replayed = store.archived_between(conn, key, body["_archive"], body["EventStartTime"],
                                              body["EventEndTime"])
            only = set(body["_rules"]) if body["_rules"] else None
            for _ts, event in replayed:
                self.events.route(conn, key, body["_bus"], {**event, "replay-name": name}, time.time(), only=only)
            body.update(State="COMPLETED", EventLastReplayedTime=replayed[-1][0] if replayed else None)
        else:
            body["State"] = "CANCELLED"
        body["ReplayEndTime"] = time.time()
        for private in ("_due", "_archive", "_bus", "_rules"):
            body.pop(private, None)
        store.put_replay(conn, key, name, body)

    def rescale(self, factor: float, now: float) -> None:
        with self.db.transaction() as conn:
            for key, body in store.replays_in_flight(conn):
                body["_due"] = now + max(0.0, body["_due"] - now) * factor
                store.put_replay(conn, key, body["ReplayName"], body)


def _one_filter(operation: str, p: dict[str, Any]) -> None:
    """ListArchives and ListReplays filter by one of NamePrefix, EventSourceArn or State, not several."""
    if sum(1 for k in ("NamePrefix", "EventSourceArn", "State") if p.get(k)) > 1:
        raise errors.validation(f"At most one filter is allowed for {operation}. Use either : State, "
                                "EventSourceArn, or NamePrefix.")
