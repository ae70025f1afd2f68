"""EventBridge's rules: buses, rules and their targets, PutEvents, schedules, and the events other
services emit (Step Functions' "Execution Status Change").

An event that matches a rule becomes one outbox row per target in the transaction that accepts
it (events/store.py), so an acknowledged PutEvents is delivered even across a crash. A schedule
rule keeps its next firing in its row: `nominal_next` on the schedule's own clock, `next_fire`
in real time, the gap between firings divided by the server's time scale.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from onceflow.events import bus_policy, errors, sfn_events, store
from onceflow.events.archives import Archives, archive_of
from onceflow.events.delivery import Clock, Dispatcher
from onceflow.events.destinations import Destinations
from onceflow.events.schedule import ScheduleError, next_firing
from onceflow.events.schedule import parse as parse_schedule
from onceflow.events.targets import ROLE_KINDS, DeliveryFailure, parse_target_arn
from onceflow.events.transform import PREDEFINED, PathError, ingestion_time, parse_path, target_input
from onceflow.patterns.event_pattern import PatternError, compile_pattern
from onceflow.stack import Stack

log = logging.getLogger("onceflow.events")

DEFAULT_BUS = "default"
MAX_TARGETS = 5
MAX_HOPS = 5  # buses an event may be forwarded through (a loop guard; UNCONFIRMED what AWS does)
MAX_ENTRIES_BYTES = 256 * 1024
_BUS_NAME = re.compile(r"^[/\.\-_A-Za-z0-9]{1,256}$")
REQUIRED_EVENT_FIELDS = ("id", "account", "source", "time", "region", "detail-type")
Key = tuple[str, str]


def bus_arn(region: str, account: str, name: str) -> str:
    return f"arn:aws:events:{region}:{account}:event-bus/{name}"


def rule_arn(region: str, account: str, bus: str, name: str) -> str:
    path = name if bus == DEFAULT_BUS else f"{bus}/{name}"
    return f"arn:aws:events:{region}:{account}:rule/{path}"


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


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def compile_or_raise(text: str) -> Any:
    try:
        return compile_pattern(text)
    except PatternError as e:
        raise errors.invalid_pattern(e.reason) from None


class EventsService:
    def __init__(self, stack: Stack, clock: Clock) -> None:
        self.stack = stack
        self.db = stack.db
        self.clock = clock
        self.dispatcher = Dispatcher(stack, clock)
        self.dispatcher.after_delivery.append(self._record_result)
        self.archives = Archives(self)
        self.destinations = Destinations(self)
        clock.add(self.dispatcher)
        clock.add(_RuleSchedules(self))

    @property
    def scale(self) -> float:
        return self.stack.settings.time_scale or 1.0

    # ------------------------------------------------------------------ buses
    def bus_row(self, conn: sqlite3.Connection, key: Key, name: str) -> sqlite3.Row | dict[str, Any]:
        row = store.get_bus(conn, key, name)
        if row is None:
            if name == DEFAULT_BUS:
                return {"name": DEFAULT_BUS, "description": None, "policy": None, "created": None, "modified": None,
                        "tags": "{}", "extra": "{}"}
            raise errors.bus_not_found(name)
        return row

    def _ensure_default(self, conn: sqlite3.Connection, key: Key) -> None:
        if store.get_bus(conn, key, DEFAULT_BUS) is None:
            store.insert_bus(conn, key, DEFAULT_BUS, time.time(), None, {}, {})

    def create_bus(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name = p["Name"]
        if p.get("EventSourceName"):  # partner event sources: onceflow has none
            raise errors.event_source_not_found(p["EventSourceName"])
        if "/" in name:
            raise errors.validation("Event bus name must not contain '/'.")
        if name == DEFAULT_BUS:
            raise errors.bus_exists(name)
        extra = {k: p[k] for k in ("KmsKeyIdentifier", "DeadLetterConfig", "LogConfig", "EventSourceName") if k in p}
        with self.db.transaction() as conn:
            if store.get_bus(conn, key, name) is not None:
                raise errors.bus_exists(name)
            store.insert_bus(conn, key, name, time.time(), p.get("Description"), _tags(p.get("Tags")), extra)
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
                self._ensure_default(conn, key)

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
        page, nxt = _page(views, limit, token)
        return {"EventBuses": page, **({"NextToken": nxt} if nxt else {})}

    def delete_bus(self, key: Key, name: str) -> None:
        if name == DEFAULT_BUS:
            raise errors.cannot_delete_default()
        with self.db.transaction() as conn:
            store.delete_bus(conn, key, name)  # a bus that is not there: nothing to do, as AWS

    def update_bus(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name = bus_name(p.get("Name"))
        with self.db.transaction() as conn:
            if name == DEFAULT_BUS:
                self._ensure_default(conn, key)
            row = self.bus_row(conn, key, name)
            extra = json.loads(row["extra"] or "{}")
            extra.update({k: p[k] for k in ("KmsKeyIdentifier", "DeadLetterConfig", "LogConfig") if k in p})
            store.set_bus(conn, key, name, description=p.get("Description", row["description"]),
                          extra=json.dumps(extra), modified=time.time())
        view = self.describe_bus(key, name)
        return {k: view[k] for k in ("Arn", "Name", "Description", "KmsKeyIdentifier", "DeadLetterConfig",
                                     "LogConfig") if k in view}

    # ------------------------------------------------------------------ bus policies
    def put_permission(self, key: Key, p: dict[str, Any]) -> None:
        name = bus_name(p.get("EventBusName"))
        with self.db.transaction() as conn:
            if name == DEFAULT_BUS:
                self._ensure_default(conn, key)
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

    # ------------------------------------------------------------------ rules
    def put_rule(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        name, bus = p["Name"], bus_name(p.get("EventBusName"))
        pattern, schedule = p.get("EventPattern"), p.get("ScheduleExpression")
        if not pattern and not schedule:
            raise errors.no_pattern_or_schedule()
        if pattern:
            compile_or_raise(pattern)
        parsed = None
        if schedule:
            if bus != DEFAULT_BUS:
                raise errors.schedule_not_on_default()
            try:
                parsed = parse_schedule(schedule)
            except ScheduleError:
                raise errors.bad_schedule() from None
        state = p.get("State") or "ENABLED"
        now = time.time()
        with self.db.transaction() as conn:
            existing = store.get_rule(conn, key, bus, name)
            _not_managed(existing)
            if bus != DEFAULT_BUS:
                self.bus_row(conn, key, bus)
            cols: dict[str, Any] = {
                "pattern": pattern or None, "schedule": schedule or None, "state": state,
                "description": p.get("Description"), "role_arn": p.get("RoleArn"),
                "created": existing["created"] if existing else now,
            }
            if existing is None or "Tags" in p:
                merged = json.loads(existing["tags"]) if existing else {}
                merged.update(_tags(p.get("Tags")))
                cols["tags"] = json.dumps(merged)
            # A new or changed schedule starts from now; re-putting the same one keeps its rhythm.
            keep = existing is not None and existing["schedule"] == schedule and existing["next_fire"] is not None
            if parsed is not None and state != "DISABLED" and not keep:
                cols.update(self._first_fire(parsed, now))
            elif parsed is None or state == "DISABLED":
                cols.update({"nominal_next": None, "next_fire": None})
            store.put_rule(conn, key, bus, name, cols)
        if parsed is not None:
            self.clock.poke()
        return {"RuleArn": rule_arn(key[1], key[0], bus, name)}

    def _first_fire(self, parsed: Any, now: float) -> dict[str, Any]:
        nominal = parsed.next_after(now)
        if nominal is None:
            return {"nominal_next": None, "next_fire": None}
        return {"nominal_next": nominal, "next_fire": now + (nominal - now) / self.scale}

    def _rule(self, conn: sqlite3.Connection, key: Key, bus: str, name: str) -> sqlite3.Row:
        row = store.get_rule(conn, key, bus, name)
        if row is None:
            raise errors.rule_not_found(name, bus)
        return row

    def describe_rule(self, key: Key, name: str, bus: str | None) -> dict[str, Any]:
        bus = bus_name(bus)
        row = self.db.read(lambda c: self._rule(c, key, bus, name))
        out = self._rule_view(key, row)
        out["CreatedBy"] = key[0]
        return out

    def _rule_view(self, key: Key, row: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"Name": row["name"], "Arn": rule_arn(key[1], key[0], row["bus"], row["name"])}
        if row["pattern"]:
            out["EventPattern"] = row["pattern"]
        if row["schedule"]:
            out["ScheduleExpression"] = row["schedule"]
        out["State"] = row["state"]
        if row["description"]:
            out["Description"] = row["description"]
        if row["role_arn"]:
            out["RoleArn"] = row["role_arn"]
        if row["managed_by"]:
            out["ManagedBy"] = row["managed_by"]
        out["EventBusName"] = row["bus"]
        return out

    def set_rule_state(self, key: Key, name: str, bus: str | None, enabled: bool) -> None:
        bus = bus_name(bus)
        with self.db.transaction() as conn:
            row = self._rule(conn, key, bus, name)
            _not_managed(row)
            cols: dict[str, Any] = {"state": "ENABLED" if enabled else "DISABLED"}
            if row["schedule"]:
                if not enabled:
                    cols.update({"nominal_next": None, "next_fire": None})
                elif row["next_fire"] is None:
                    cols.update(self._first_fire(parse_schedule(row["schedule"]), time.time()))
            store.update_rule(conn, key, bus, name, **cols)
        self.clock.poke()

    def delete_rule(self, key: Key, name: str, bus: str | None, force: bool = False) -> None:
        bus = bus_name(bus)
        with self.db.transaction() as conn:
            row = store.get_rule(conn, key, bus, name)
            if row is None:
                return  # AWS: deleting a rule that is not there succeeds
            if not force:
                _not_managed(row)
            if store.targets(conn, key, bus, name):
                raise errors.rule_has_targets()
            store.delete_rule(conn, key, bus, name)

    def list_rules(self, key: Key, prefix: str | None, bus: str | None, limit: int | None,
                   token: str | None) -> dict[str, Any]:
        bus = bus_name(bus)

        def read(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            self.bus_row(conn, key, bus)
            return store.list_rules(conn, key, bus, prefix or "")
        views = [self._rule_view(key, r) for r in self.db.read(read)]
        page, nxt = _page(views, limit, token)
        return {"Rules": page, **({"NextToken": nxt} if nxt else {})}

    def rule_names_by_target(self, key: Key, arn: str, bus: str | None, limit: int | None,
                             token: str | None) -> dict[str, Any]:
        bus = bus_name(bus)
        names = self.db.read(lambda c: store.rules_by_target(c, key, bus, arn))
        page, nxt = _page(names, limit, token)
        return {"RuleNames": page, **({"NextToken": nxt} if nxt else {})}

    # ------------------------------------------------------------------ targets
    def put_targets(self, key: Key, rule: str, bus: str | None, targets: list[dict[str, Any]]) -> dict[str, Any]:
        bus = bus_name(bus)
        for target in targets:
            _check_target(target)
        with self.db.transaction() as conn:
            _not_managed(self._rule(conn, key, bus, rule))
            existing = {t["Id"] for t in store.targets(conn, key, bus, rule)}
            if len(existing | {t["Id"] for t in targets}) > MAX_TARGETS:
                raise errors.too_many_targets()
            for target in targets:
                store.put_target(conn, key, bus, rule, target)
        return {"FailedEntryCount": 0, "FailedEntries": []}

    def remove_targets(self, key: Key, rule: str, bus: str | None, ids: list[str],
                       force: bool = False) -> dict[str, Any]:
        bus = bus_name(bus)
        with self.db.transaction() as conn:
            row = self._rule(conn, key, bus, rule)
            if not force:
                _not_managed(row)
            for target_id in ids:
                store.remove_target(conn, key, bus, rule, target_id)
        return {"FailedEntryCount": 0, "FailedEntries": []}

    def list_targets(self, key: Key, rule: str, bus: str | None, limit: int | None,
                     token: str | None) -> dict[str, Any]:
        bus = bus_name(bus)

        def read(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            self._rule(conn, key, bus, rule)
            return store.targets(conn, key, bus, rule)
        page, nxt = _page(self.db.read(read), limit, token)
        return {"Targets": page, **({"NextToken": nxt} if nxt else {})}

    # ------------------------------------------------------------------ events
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
                if account != key[0] and not self.bus_allows(conn, home, bus, key[0]):
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
              only: set[str] | None = None, hops: int = 0) -> int:
        """Enqueue `event` for every target of every enabled rule on `bus` that matches it (of the
        rules named in `only`, for a replay); an archive's rule keeps it in the archive."""
        routed = 0
        for rule in store.pattern_rules(conn, key, bus):
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
                self._enqueue(conn, key, bus, rule["name"], arn, target, event, now, hops)
                routed += 1
        return routed

    def _enqueue(self, conn: sqlite3.Connection, key: Key, bus: str, rule: str, arn: str, target: dict[str, Any],
                 event: dict[str, Any], now: float, hops: int = 0) -> None:
        context = {"aws.events.rule-arn": arn, "aws.events.rule-name": rule,
                   "aws.events.event.ingestion-time": ingestion_time(now)}
        store.enqueue(conn, now, {
            "origin": "rule", "account": key[0], "region": key[1], "bus": bus, "rule": rule, "rule_arn": arn,
            "target": target, "event": event, "input": target_input(target, event, context), "first": now,
            "attempt": 0, "hops": hops,
        })

    def bus_allows(self, conn: sqlite3.Connection, key: Key, bus: str, source_account: str) -> bool:
        """Whether the bus's policy lets `source_account` put events on it."""
        row = store.get_bus(conn, key, bus)
        return bus_policy.allows(row["policy"] if row else None, source_account, bus_arn(key[1], key[0], bus))

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
                    and not self.bus_allows(conn, key, bus, source_account)):
                raise DeliveryFailure("AccessDeniedException", f"the policy of {bus_arn(region, account, bus)} does "
                                      f"not let account {source_account} put events on it", False)
            self.route(conn, key, bus, event, now, hops=hops + 1)
        self.clock.poke()
        return {"EventId": event.get("id")}

    def emit(self, conn: sqlite3.Connection, key: Key, source: str, detail_type: str, detail: dict[str, Any],
             resources: list[str], now: float | None = None) -> None:
        """An event a service emits to the default bus, inside that service's own transaction (so it
        is delivered exactly when the change it reports is committed)."""
        now = time.time() if now is None else now
        event = self.make_event(key, source, detail_type, detail, resources, None, now)
        if self.route(conn, key, DEFAULT_BUS, event, now):
            self.clock.poke()  # the clock claims in a write transaction: it sees the rows once this commits

    def execution_changed(self, conn: sqlite3.Connection, row: Any) -> None:
        """Step Functions' hook where an execution's status changes (inside its transaction)."""
        if row is None or row["type"] != "STANDARD":
            return
        detail = sfn_events.status_change(row)
        self.emit(conn, (row["account"], row["region"]), sfn_events.SOURCE, sfn_events.DETAIL_TYPE, detail,
                  [row["arn"]])

    def test_event_pattern(self, pattern: str, event_text: str) -> dict[str, Any]:
        compiled = compile_or_raise(pattern)
        try:
            event = json.loads(event_text)
        except ValueError:
            raise errors.invalid_event() from None
        if not isinstance(event, dict) or any(f not in event for f in REQUIRED_EVENT_FIELDS):
            raise errors.invalid_event()
        return {"Result": compiled.matches(event)}

    # ------------------------------------------------------------------ schedules
    def fire_due_rules(self, now: float) -> None:
        due = self.next_rule_fire()  # a read first: a poke for a delivery must not take the write lock here
        if due is None or due > now:
            return
        with self.db.transaction() as conn:
            for row in store.due_rules(conn, now):
                key = (row["account"], row["region"])
                try:
                    parsed = parse_schedule(row["schedule"])
                except ScheduleError:
                    store.update_rule(conn, key, row["bus"], row["name"], nominal_next=None, next_fire=None)
                    continue
                arn = rule_arn(key[1], key[0], row["bus"], row["name"])
                event = self.make_event(key, "aws.events", "Scheduled Event", {}, [arn], None, now)
                event["time"] = iso(row["nominal_next"])
                for target in store.targets(conn, key, row["bus"], row["name"]):
                    self._enqueue(conn, key, row["bus"], row["name"], arn, target, event, now)
                nominal, nxt = next_firing(parsed, row["nominal_next"], row["next_fire"], now, self.scale)
                store.update_rule(conn, key, row["bus"], row["name"], nominal_next=nominal, next_fire=nxt)

    def next_rule_fire(self) -> float | None:
        return self.db.read(store.next_rule_fire)

    # ------------------------------------------------------------------ tags
    def _tagged(self, conn: sqlite3.Connection, key: Key, arn: str) -> tuple[str, tuple[str, ...]]:
        prefix = f"arn:aws:events:{key[1]}:{key[0]}:"
        if arn.startswith(prefix + "event-bus/"):
            name = arn[len(prefix + "event-bus/"):]
            if name == DEFAULT_BUS:
                self._ensure_default(conn, key)
            if store.get_bus(conn, key, name) is None:
                raise errors.resource_not_found_arn(arn)
            return "bus", (name,)
        if arn.startswith(prefix + "rule/"):
            path = arn[len(prefix + "rule/"):]
            bus, _, name = path.rpartition("/")
            bus = bus or DEFAULT_BUS
            if store.get_rule(conn, key, bus, name) is None:
                raise errors.rule_not_found(name, bus)
            return "rule", (bus, name)
        raise errors.resource_not_found_arn(arn)

    def tags(self, key: Key, arn: str) -> dict[str, str]:
        with self.db.transaction() as conn:
            kind, ident = self._tagged(conn, key, arn)
            row = store.get_bus(conn, key, ident[0]) if kind == "bus" else store.get_rule(conn, key, *ident)
            assert row is not None  # _tagged found it in this transaction
            return json.loads(row["tags"])

    def set_tags(self, key: Key, arn: str, add: dict[str, str], remove: list[str]) -> None:
        with self.db.transaction() as conn:
            kind, ident = self._tagged(conn, key, arn)
            row = store.get_bus(conn, key, ident[0]) if kind == "bus" else store.get_rule(conn, key, *ident)
            assert row is not None  # _tagged found it in this transaction
            tags = {k: v for k, v in json.loads(row["tags"]).items() if k not in remove}
            tags.update(add)
            if kind == "bus":
                store.set_bus(conn, key, ident[0], tags=json.dumps(tags))
            else:
                store.update_rule(conn, key, *ident, tags=json.dumps(tags))

    # ------------------------------------------------------------------ console
    def _record_result(self, conn: sqlite3.Connection, job: dict[str, Any], result: dict[str, Any]) -> None:
        if job.get("origin") == "rule":
            store.set_last_result(conn, (job["account"], job["region"]), job["bus"], job["rule"], job["target"]["Id"],
                                  result)

    def overview(self, key: Key) -> list[dict[str, Any]]:
        """Every rule of the account and region with its targets and their last delivery (console)."""
        def read(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            out = []
            buses = [DEFAULT_BUS] + [r["name"] for r in store.list_buses(conn, key) if r["name"] != DEFAULT_BUS]
            for bus in buses:
                for row in store.list_rules(conn, key, bus):
                    targets = [{**json.loads(t["body"]), "LastResult": json.loads(t["last_result"])
                                if t["last_result"] else None} for t in store.target_rows(conn, key, bus, row["name"])]
                    out.append({**self._rule_view(key, row), "NextFire": row["next_fire"], "Targets": targets})
            return out
        return self.db.read(read)

    def pending(self) -> int:
        return self.db.read(store.pending_count)


class _RuleSchedules:
    def __init__(self, service: EventsService) -> None:
        self.service = service

    def next_due(self) -> float | None:
        return self.service.next_rule_fire()

    def run_due(self, now: float) -> None:
        self.service.fire_due_rules(now)

    def rescale(self, factor: float, now: float) -> None:
        with self.service.db.transaction() as conn:
            store.rescale(conn, "events_rules", "next_fire", factor, now)


# ---------------------------------------------------------------------- checks and helpers
def _not_managed(rule: sqlite3.Row | None) -> None:
    """A rule a service made for itself (an archive's) is changed only by that service, or with Force."""
    if rule is not None and rule["managed_by"]:
        raise errors.managed_rule(rule["name"])


def _check_target(target: dict[str, Any]) -> None:
    arn = target["Arn"]
    parsed = parse_target_arn(arn)
    if parsed is None:
        raise errors.bad_target_arn(arn)
    given = [k for k in ("Input", "InputPath", "InputTransformer") if k in target]
    if len(given) > 1:
        raise errors.input_exclusive(target["Id"])
    if "Input" in target:
        try:
            json.loads(target["Input"])
        except ValueError:
            raise errors.bad_input_json(target["Id"]) from None
    if "InputPath" in target:
        try:
            parse_path(target["InputPath"])
        except PathError:
            raise errors.bad_input_path(target["InputPath"]) from None
    for name, path in ((target.get("InputTransformer") or {}).get("InputPathsMap") or {}).items():
        try:
            parse_path(path)
        except PathError:
            raise errors.bad_input_paths_map(name) from None
        if name in PREDEFINED:
            raise errors.bad_input_paths_map(name)
    if parsed.kind in ROLE_KINDS - {"events"} and not target.get("RoleArn"):
        raise errors.role_required(target["Id"])
    if parsed.kind == "sqs" and arn.endswith(".fifo") and not (target.get("SqsParameters") or {}).get("MessageGroupId"):
        raise errors.sqs_parameters_required(target["Id"])


def _entry_problem(entry: dict[str, Any]) -> tuple[str, str] | None:
    for field in ("Source", "DetailType", "Detail"):
        if not entry.get(field):
            return "InvalidArgument", f"Parameter {field} is not valid. Reason: {field} is a required argument."
    try:
        detail = json.loads(entry["Detail"])
    except ValueError:
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


def _tags(tags: list[dict[str, str]] | None) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in tags or []}


def _page(items: list[Any], limit: int | None, token: str | None) -> tuple[list[Any], str | None]:
    start = 0
    if token:
        try:
            start = int(token)
        except ValueError:
            raise errors.validation("The provided pagination token is invalid.") from None  # UNCONFIRMED
    end = start + limit if limit else len(items)
    return items[start:end], (str(end) if end < len(items) else None)
