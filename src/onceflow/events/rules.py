"""EventBridge's rules and their targets: event patterns and schedules, the rule an archive makes
(managed, changed only with Force), and a schedule rule's firings.

A schedule rule keeps its next firing in its row: `nominal_next` on the schedule's own clock,
`next_fire` in real time, the gap between firings divided by the server's time scale.
"""

from __future__ import annotations

import json
import sqlite3
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.events import errors, store
from onceflow.events.buses import DEFAULT_BUS, bus_name
from onceflow.events.paging import paginate, tag_map
from onceflow.events.schedule import ScheduleError, next_firing
from onceflow.events.schedule import parse as parse_schedule
from onceflow.events.targets import ROLE_KINDS, parse_target_arn
from onceflow.events.transform import PREDEFINED, PathError, parse_path
from onceflow.patterns.event_pattern import PatternError, compile_pattern

if TYPE_CHECKING:
    from onceflow.events.service import EventsService

MAX_TARGETS = 5
Key = tuple[str, str]


def rule_arn(region: str, account: str, bus: str, name: str) -> str:
    path = name if bus == DEFAULT_BUS else f"{bus}/{name}"
    return f"arn:{partition(region)}:events:{region}:{account}:rule/{path}"


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def compile_or_raise(text: str) -> Any:
    try:
        return compile_pattern(text)
    except PatternError as e:
        raise errors.invalid_pattern(e.reason) from None


class Rules:
    def __init__(self, events: EventsService) -> None:
        self.events = events

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
        with self.events.db.transaction() as conn:
            existing = store.get_rule(conn, key, bus, name)
            _not_managed(existing)
            if bus != DEFAULT_BUS:
                self.events.buses.bus_row(conn, key, bus)
            cols: dict[str, Any] = {
                "pattern": pattern or None, "schedule": schedule or None, "state": state,
                "description": p.get("Description"), "role_arn": p.get("RoleArn"),
                "created": existing["created"] if existing else now,
            }
            if existing is None or "Tags" in p:
                merged = json.loads(existing["tags"]) if existing else {}
                merged.update(tag_map(p.get("Tags")))
                cols["tags"] = json.dumps(merged)
            # A new or changed schedule starts from now; re-putting the same one keeps its rhythm.
            keep = existing is not None and existing["schedule"] == schedule and existing["next_fire"] is not None
            if parsed is not None and state != "DISABLED" and not keep:
                cols.update(self._first_fire(parsed, now))
            elif parsed is None or state == "DISABLED":
                cols.update({"nominal_next": None, "next_fire": None})
            store.put_rule(conn, key, bus, name, cols)
        if parsed is not None:
            self.events.clock.poke()
        return {"RuleArn": rule_arn(key[1], key[0], bus, name)}

    def _first_fire(self, parsed: Any, now: float) -> dict[str, Any]:
        nominal = parsed.next_after(now)
        if nominal is None:
            return {"nominal_next": None, "next_fire": None}
        return {"nominal_next": nominal, "next_fire": now + (nominal - now) / self.events.scale}

    def _rule(self, conn: sqlite3.Connection, key: Key, bus: str, name: str) -> sqlite3.Row:
        row = store.get_rule(conn, key, bus, name)
        if row is None:
            raise errors.rule_not_found(name, bus)
        return row

    def describe_rule(self, key: Key, name: str, bus: str | None) -> dict[str, Any]:
        bus = bus_name(bus)
        row = self.events.db.read(lambda c: self._rule(c, key, bus, name))
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
        with self.events.db.transaction() as conn:
            row = self._rule(conn, key, bus, name)
            _not_managed(row)
            cols: dict[str, Any] = {"state": "ENABLED" if enabled else "DISABLED"}
            if row["schedule"]:
                if not enabled:
                    cols.update({"nominal_next": None, "next_fire": None})
                elif row["next_fire"] is None:
                    cols.update(self._first_fire(parse_schedule(row["schedule"]), time.time()))
            store.update_rule(conn, key, bus, name, **cols)
        self.events.clock.poke()

    def delete_rule(self, key: Key, name: str, bus: str | None, force: bool = False) -> None:
        bus = bus_name(bus)
        with self.events.db.transaction() as conn:
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
            self.events.buses.bus_row(conn, key, bus)
            return store.list_rules(conn, key, bus, prefix or "")
        views = [self._rule_view(key, r) for r in self.events.db.read(read)]
        page, nxt = paginate(views, limit, token)
        return {"Rules": page, **({"NextToken": nxt} if nxt else {})}

    def rule_names_by_target(self, key: Key, arn: str, bus: str | None, limit: int | None,
                             token: str | None) -> dict[str, Any]:
        bus = bus_name(bus)
        names = self.events.db.read(lambda c: store.rules_by_target(c, key, bus, arn))
        page, nxt = paginate(names, limit, token)
        return {"RuleNames": page, **({"NextToken": nxt} if nxt else {})}

    def put_targets(self, key: Key, rule: str, bus: str | None, targets: list[dict[str, Any]]) -> dict[str, Any]:
        bus = bus_name(bus)
        for target in targets:
            _check_target(target)
        with self.events.db.transaction() as conn:
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
        with self.events.db.transaction() as conn:
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
        page, nxt = paginate(self.events.db.read(read), limit, token)
        return {"Targets": page, **({"NextToken": nxt} if nxt else {})}

    def fire_due_rules(self, now: float) -> None:
        due = self.next_rule_fire()  # a read first: a poke for a delivery must not take the write lock here
        if due is None or due > now:
            return
        with self.events.db.transaction() as conn:
            for row in store.due_rules(conn, now):
                key = (row["account"], row["region"])
                try:
                    parsed = parse_schedule(row["schedule"])
                except ScheduleError:
                    store.update_rule(conn, key, row["bus"], row["name"], nominal_next=None, next_fire=None)
                    continue
                arn = rule_arn(key[1], key[0], row["bus"], row["name"])
                event = self.events.make_event(key, "aws.events", "Scheduled Event", {}, [arn], None, now)
                event["time"] = iso(row["nominal_next"])
                for target in store.targets(conn, key, row["bus"], row["name"]):
                    self.events.enqueue(conn, key, row["bus"], row["name"], arn, target, event, now)
                nominal, nxt = next_firing(parsed, row["nominal_next"], row["next_fire"], now, self.events.scale)
                store.update_rule(conn, key, row["bus"], row["name"], nominal_next=nominal, next_fire=nxt)

    def next_rule_fire(self) -> float | None:
        return self.events.db.read(store.next_rule_fire)

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
        return self.events.db.read(read)


class RuleSchedules:
    def __init__(self, service: EventsService) -> None:
        self.service = service

    def next_due(self) -> float | None:
        return self.service.rules.next_rule_fire()

    def run_due(self, now: float) -> None:
        self.service.rules.fire_due_rules(now)

    def rescale(self, factor: float, now: float) -> None:
        with self.service.db.transaction() as conn:
            store.rescale(conn, "events_rules", "next_fire", factor, now)


# ---------------------------------------------------------------------- checks
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
