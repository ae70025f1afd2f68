"""EventBridge: the events themselves. PutEvents, the events other services emit (Step Functions'
"Execution Status Change", S3's notifications), their routing to the matching rules' targets, and
an event a bus target forwards to another bus. Buses, rules and tags have their own modules.

An event that matches a rule becomes one outbox row per target in the transaction that accepts
it (events/store.py), so an acknowledged PutEvents is delivered even across a crash.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
import uuid
from datetime import datetime
from typing import Any

from onceflow.events import errors, sfn_events, store
from onceflow.events.archives import Archives, ReplayRuns, archive_of
from onceflow.events.buses import DEFAULT_BUS, Buses, bus_account, bus_arn, bus_name
from onceflow.events.delivery import Clock, Dispatcher
from onceflow.events.destinations import Destinations
from onceflow.events.endpoints import Endpoints
from onceflow.events.partner import PartnerSources
from onceflow.events.rules import Rules, RuleSchedules, compile_or_raise, iso, rule_arn
from onceflow.events.tagging import Tags
from onceflow.events.targets import DeliveryFailure
from onceflow.events.transform import ingestion_time, target_input
from onceflow.patterns.event_pattern import PatternError, compile_pattern
from onceflow.stack import Stack

log = logging.getLogger("onceflow.events")

MAX_HOPS = 5  # buses an event may be forwarded through (a loop guard; UNCONFIRMED what AWS does)
MAX_ENTRIES_BYTES = 256 * 1024
REQUIRED_EVENT_FIELDS = ("id", "account", "source", "time", "region", "detail-type")
Key = tuple[str, str]


class EventsService:
    def __init__(self, stack: Stack, clock: Clock) -> None:
        self.stack = stack
        self.db = stack.db
        self.clock = clock
        self.dispatcher = Dispatcher(stack, clock)
        self.dispatcher.after_delivery.append(self._record_result)
        self.buses = Buses(stack.db)
        self.rules = Rules(self)
        self.tags = Tags(stack.db, self.buses)
        self.archives = Archives(self)
        self.destinations = Destinations(self)
        self.endpoints = Endpoints(self)
        self.partner = PartnerSources(self)
        clock.add(self.dispatcher)
        clock.add(RuleSchedules(self))
        clock.add(ReplayRuns(self))

    @property
    def scale(self) -> float:
        return self.stack.settings.time_scale or 1.0

    def put_events(self, key: Key, entries: list[dict[str, Any]]) -> dict[str, Any]:
        if sum(_entry_size(e) for e in entries) > MAX_ENTRIES_BYTES:
            raise errors.entries_too_large()
        now = time.time()
        results: list[dict[str, Any]] = []
        accepted: list[tuple[int, str, str, dict[str, Any]]] = []
        for entry in entries:
            problem = _entry_problem(entry)
            if problem is not None:
                results.append({"ErrorCode": problem[0], "ErrorMessage": problem[1]})
                continue
            event = self.make_event(key, entry["Source"], entry["DetailType"], json.loads(entry["Detail"]),
                                    entry.get("Resources") or [], entry.get("Time"), now)
            accepted.append((len(results), bus_account(entry.get("EventBusName"), key[0]),
                             bus_name(entry.get("EventBusName")), event))
            results.append({"EventId": event["id"]})
        with self.db.transaction() as conn:
            for index, account, bus, event in accepted:
                home = (account, key[1])
                if bus != DEFAULT_BUS and store.get_bus(conn, home, bus) is None:
                    results[index] = {"ErrorCode": "ResourceNotFoundException",  # UNCONFIRMED entry code
                                      "ErrorMessage": f"Event bus {bus} does not exist."}
                    continue
                if account != key[0] and not self.buses.bus_allows(conn, home, bus, key[0]):
                    results[index] = {"ErrorCode": "AccessDeniedException",  # UNCONFIRMED entry code and text
                                      "ErrorMessage": f"Account {key[0]} is not authorized to put events on "
                                                      f"{bus_arn(home[1], home[0], bus)}: no bus policy allows it."}
                    continue
                self.route(conn, home, bus, event, now)
        self.clock.poke()
        failed = sum(1 for r in results if "ErrorCode" in r)
        return {"FailedEntryCount": failed, "Entries": results}

    @staticmethod
    def make_event(key: Key, source: str, detail_type: str, detail: Any, resources: list[str],
                   when: datetime | None, now: float) -> dict[str, Any]:
        return {
            "version": "0", "id": str(uuid.uuid4()), "detail-type": detail_type, "source": source,
            "account": key[0], "time": iso(when.timestamp() if when is not None else now), "region": key[1],
            "resources": resources, "detail": detail,
        }

    def route(self, conn: sqlite3.Connection, key: Key, bus: str, event: dict[str, Any], now: float,
              only: set[str] | None = None, hops: int = 0, rules: list[sqlite3.Row] | None = None) -> int:
        """Enqueue `event` for every target of every enabled rule on `bus` that matches it (of the
        rules named in `only`, for a replay); an archive's rule keeps it in the archive. `rules`: the
        bus's pattern rules, when the caller has just read them."""
        routed = 0
        for rule in store.pattern_rules(conn, key, bus) if rules is None else rules:
            if only is not None and rule["name"] not in only:
                continue
            try:
                if not compile_pattern(rule["pattern"]).matches(event):
                    continue
            except PatternError:
                continue
            archive = archive_of(rule)
            if archive is not None:
                self.archives.keep(conn, key, archive, event, now)
                continue
            arn = rule_arn(key[1], key[0], bus, rule["name"])
            for target in store.targets(conn, key, bus, rule["name"]):
                self.enqueue(conn, key, bus, rule["name"], arn, target, event, now, hops)
                routed += 1
        return routed

    def enqueue(self, conn: sqlite3.Connection, key: Key, bus: str, rule: str, arn: str, target: dict[str, Any],
                 event: dict[str, Any], now: float, hops: int = 0) -> None:
        context = {"aws.events.rule-arn": arn, "aws.events.rule-name": rule,
                   "aws.events.event.ingestion-time": ingestion_time(now)}
        store.enqueue(conn, now, {
            "origin": "rule", "account": key[0], "region": key[1], "bus": bus, "rule": rule, "rule_arn": arn,
            "target": target, "event": event, "input": target_input(target, event, context), "first": now,
            "attempt": 0, "hops": hops,
        })

    def forward(self, account: str, region: str, bus: str, event: dict[str, Any], hops: int = 0,
                source_account: str | None = None) -> dict[str, Any]:
        """An event delivered to a bus target: routed by that bus's rules. Rules that send events
        from bus to bus in a circle would go round for ever: past MAX_HOPS buses the event stops."""
        key = (account, region)
        now = time.time()
        if hops >= MAX_HOPS:
            raise DeliveryFailure("TooManyHops", f"the event went through {hops} event buses; onceflow stops it there "
                                  "(rules sending events from bus to bus in a circle)", False)
        with self.db.transaction() as conn:
            if bus != DEFAULT_BUS and store.get_bus(conn, key, bus) is None:
                raise DeliveryFailure("ResourceNotFoundException", f"Event bus {bus} does not exist.", False)
            if (source_account is not None and source_account != account
                    and not self.buses.bus_allows(conn, key, bus, source_account)):
                raise DeliveryFailure("AccessDeniedException", f"the policy of {bus_arn(region, account, bus)} does "
                                      f"not let account {source_account} put events on it", False)
            self.route(conn, key, bus, event, now, hops=hops + 1)
        self.clock.poke()
        return {"EventId": event.get("id")}

    def emit(self, conn: sqlite3.Connection, key: Key, source: str, detail_type: str, detail: dict[str, Any],
             resources: list[str], now: float | None = None) -> None:
        """An event a service emits to the default bus, inside that service's own transaction (so it
        is delivered exactly when the change it reports is committed)."""
        rules = store.pattern_rules(conn, key, DEFAULT_BUS)
        if rules:  # none: nothing could match, and no event is built (it would go nowhere)
            self._emit(conn, key, source, detail_type, detail, resources, now, rules)

    def _emit(self, conn: sqlite3.Connection, key: Key, source: str, detail_type: str, detail: dict[str, Any],
              resources: list[str], now: float | None, rules: list[sqlite3.Row]) -> None:
        now = time.time() if now is None else now
        event = self.make_event(key, source, detail_type, detail, resources, None, now)
        if self.route(conn, key, DEFAULT_BUS, event, now, rules=rules):
            self.clock.poke()  # the clock claims in a write transaction: it sees the rows once this commits

    def execution_changed(self, conn: sqlite3.Connection, row: Any) -> None:
        """Step Functions' hook where an execution's status changes (inside its transaction): an
        execution's start and end each, so with no rule on the default bus no event is built."""
        if row is None or row["type"] != "STANDARD":
            return
        key = (row["account"], row["region"])
        rules = store.pattern_rules(conn, key, DEFAULT_BUS)
        if rules:
            self._emit(conn, key, sfn_events.SOURCE, sfn_events.DETAIL_TYPE, sfn_events.status_change(row),
                       [row["arn"]], None, rules)

    def test_event_pattern(self, pattern: str, event_text: str) -> dict[str, Any]:
        compiled = compile_or_raise(pattern)
        try:
            event = json.loads(event_text)
        except (ValueError, RecursionError):  # nested past the parser: as malformed (AWS's words UNCONFIRMED)
            raise errors.invalid_event() from None
        if not isinstance(event, dict) or any(f not in event for f in REQUIRED_EVENT_FIELDS):
            raise errors.invalid_event()
        return {"Result": compiled.matches(event)}

    def _record_result(self, conn: sqlite3.Connection, job: dict[str, Any], result: dict[str, Any]) -> None:
        if job.get("origin") == "rule":
            store.set_last_result(conn, (job["account"], job["region"]), job["bus"], job["rule"], job["target"]["Id"],
                                  result)

    def pending(self) -> int:
        return self.db.read(store.pending_count)

    @staticmethod
    def entry_problem(entry: dict[str, Any]) -> tuple[str, str] | None:
        """Why a PutEvents or PutPartnerEvents entry is refused, as its entry's ErrorCode and text."""
        return _entry_problem(entry)


# ---------------------------------------------------------------------- checks
def _entry_problem(entry: dict[str, Any]) -> tuple[str, str] | None:
    for field in ("Source", "DetailType", "Detail"):
        if not entry.get(field):
            return "InvalidArgument", f"Parameter {field} is not valid. Reason: {field} is a required argument."
    try:
        detail = json.loads(entry["Detail"])
    except (ValueError, RecursionError):  # nested past the parser too (Jackson stops at 1000 levels)
        return "MalformedDetail", "Detail is malformed."
    if not isinstance(detail, dict):
        return "MalformedDetail", "Detail is malformed."
    return None


def _entry_size(entry: dict[str, Any]) -> int:
    """AWS's reckoning of a PutEvents entry's size (its "calculating entry size" page)."""
    size = 14 if entry.get("Time") is not None else 0
    for field in ("Source", "DetailType", "Detail"):
        size += len(str(entry.get(field) or "").encode())
    size += sum(len(r.encode()) for r in entry.get("Resources") or [])
    return size
