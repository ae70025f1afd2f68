"""EventBridge Scheduler: schedule groups and schedules (at(), rate(), cron() in a timezone, a
flexible time window, start and end dates), fired by EventBridge's clock and delivered through
its outbox, so a firing is as durable and retried as a rule's.

Unlike a rule, a schedule calls every target as its RoleArn (which must trust
scheduler.amazonaws.com); its Input may hold the context attributes <aws.scheduler.schedule-arn>,
<aws.scheduler.scheduled-time>, <aws.scheduler.execution-id> and <aws.scheduler.attempt-number>.
A flexible window delays each firing by a random time within it (scaled like every wait).
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
import uuid
from datetime import UTC, datetime
from typing import Any

from onceflow import pages
from onceflow.awsmodels.partitions import partition
from onceflow.errors import ServiceError
from onceflow.events import store as events_store
from onceflow.events.schedule import ScheduleError, next_firing, parse, timezone
from onceflow.events.targets import parse_target_arn
from onceflow.events.transform import render_template
from onceflow.scheduler import errors, store
from onceflow.stack import Stack

DEFAULT_GROUP = "default"
Key = tuple[str, str]
_DATES = ("StartDate", "EndDate")


def schedule_arn(key: Key, group: str, name: str) -> str:
    return f"arn:{partition(key[1])}:scheduler:{key[1]}:{key[0]}:schedule/{group}/{name}"


def group_arn(key: Key, name: str) -> str:
    return f"arn:{partition(key[1])}:scheduler:{key[1]}:{key[0]}:schedule-group/{name}"


def _epoch(value: Any) -> float | None:
    if value is None:
        return None
    return value.timestamp() if isinstance(value, datetime) else float(value)


def _when(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


class SchedulerService:
    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.db = stack.db
        self.clock = stack.ports.clock()
        self.clock.add(self)

    @property
    def scale(self) -> float:
        return self.stack.settings.time_scale or 1.0

    # ------------------------------------------------------------------ groups
    def _group(self, conn: sqlite3.Connection, key: Key, name: str) -> dict[str, Any]:
        row = store.get_group(conn, key, name)
        if row is None:
            if name == DEFAULT_GROUP:
                return {"name": name, "created": None, "modified": None, "tags": "{}"}
            raise errors.group_not_found(name)
        return dict(row)

    def create_group(self, key: Key, name: str, tags: list[dict[str, str]] | None) -> dict[str, Any]:
        with self.db.transaction() as conn:
            if name == DEFAULT_GROUP or store.get_group(conn, key, name) is not None:
                raise errors.group_exists(name)
            store.insert_group(conn, key, name, time.time(), {t["Key"]: t["Value"] for t in tags or []})
        return {"ScheduleGroupArn": group_arn(key, name)}

    def get_group(self, key: Key, name: str) -> dict[str, Any]:
        row = self.db.read(lambda c: self._group(c, key, name))
        return self._group_view(key, row)

    def _group_view(self, key: Key, row: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"Arn": group_arn(key, row["name"]), "Name": row["name"], "State": "ACTIVE"}
        if row["created"] is not None:
            out["CreationDate"] = _when(row["created"])
            out["LastModificationDate"] = _when(row["modified"])
        return out

    def list_groups(self, key: Key, prefix: str | None, limit: int | None, token: str | None) -> dict[str, Any]:
        rows = [dict(r) for r in self.db.read(lambda c: store.list_groups(c, key))]
        if not any(r["name"] == DEFAULT_GROUP for r in rows):
            rows.insert(0, {"name": DEFAULT_GROUP, "created": None, "modified": None, "tags": "{}"})
        views = [self._group_view(key, r) for r in sorted(rows, key=lambda r: r["name"])
                 if r["name"].startswith(prefix or "")]
        page, nxt = _page(views, limit, token)
        return {"ScheduleGroups": page, **({"NextToken": nxt} if nxt else {})}

    def delete_group(self, key: Key, name: str) -> None:
        if name == DEFAULT_GROUP:
            raise errors.default_group()
        with self.db.transaction() as conn:
            self._group(conn, key, name)
            store.delete_group(conn, key, name)

    # ------------------------------------------------------------------ schedules
    def _check(self, p: dict[str, Any]) -> Any:
        tz = p.get("ScheduleExpressionTimezone")
        if tz:
            try:
                timezone(tz)
            except ScheduleError:
                raise errors.bad_timezone(tz) from None
        try:
            parsed = parse(p["ScheduleExpression"], tz, allow_at=True)
        except ScheduleError:
            raise errors.bad_expression(p["ScheduleExpression"]) from None
        window = p["FlexibleTimeWindow"]
        if window["Mode"] == "FLEXIBLE" and not window.get("MaximumWindowInMinutes"):
            raise errors.window_needs_maximum()
        if window["Mode"] == "OFF" and window.get("MaximumWindowInMinutes"):
            raise errors.window_off_with_maximum()
        start, end = _epoch(p.get("StartDate")), _epoch(p.get("EndDate"))
        if start is not None and end is not None and end <= start:
            raise errors.end_before_start()
        if parse_target_arn(p["Target"]["Arn"]) is None:
            raise errors.bad_target_arn(p["Target"]["Arn"])
        return parsed

    def _first(self, parsed: Any, body: dict[str, Any], now: float) -> tuple[float | None, float | None]:
        if body.get("State", "ENABLED") == "DISABLED":
            return None, None
        start, end = body.get("StartDate"), body.get("EndDate")
        if parsed.rate_s and start is not None and start > now:
            nominal: float | None = start  # a rate starts at its StartDate
        else:
            nominal = parsed.next_after(max(now, start) if start is not None else now)
        if nominal is None or (end is not None and nominal > end):
            return None, None
        return nominal, now + (nominal - now) / self.scale

    def put_schedule(self, key: Key, p: dict[str, Any], *, create: bool) -> dict[str, Any]:
        name, group = p["Name"], p.get("GroupName") or DEFAULT_GROUP
        parsed = self._check(p)
        body = {k: v for k, v in p.items() if k not in ("Name", "GroupName", "ClientToken")}
        for k in _DATES:
            if k in body:
                body[k] = _epoch(body[k])
        now = time.time()
        with self.db.transaction() as conn:
            self._group(conn, key, group)
            existing = store.get(conn, key, group, name)
            if create and existing is not None:
                raise errors.schedule_exists(name)
            if not create and existing is None:
                raise errors.schedule_not_found(name)
            nominal, nxt = self._first(parsed, body, now)
            store.put(conn, key, group, name, body, body.get("State", "ENABLED"),
                      existing["created"] if existing else now, now, nominal, nxt)
        self.clock.poke()
        return {"ScheduleArn": schedule_arn(key, group, name)}

    def _row(self, conn: sqlite3.Connection, key: Key, group: str, name: str) -> sqlite3.Row:
        self._group(conn, key, group)
        row = store.get(conn, key, group, name)
        if row is None:
            raise errors.schedule_not_found(name)
        return row

    def get_schedule(self, key: Key, name: str, group: str | None) -> dict[str, Any]:
        group = group or DEFAULT_GROUP
        row = self.db.read(lambda c: self._row(c, key, group, name))
        body = json.loads(row["body"])
        out: dict[str, Any] = {"Arn": schedule_arn(key, group, name), "GroupName": group, "Name": name}
        for k in ("ScheduleExpression", "StartDate", "EndDate", "Description", "ScheduleExpressionTimezone"):
            if k in body:
                out[k] = _when(body[k]) if k in _DATES else body[k]
        out["State"] = row["state"]
        out["CreationDate"], out["LastModificationDate"] = _when(row["created"]), _when(row["modified"])
        for k in ("KmsKeyArn", "Target", "FlexibleTimeWindow", "ActionAfterCompletion"):
            if k in body:
                out[k] = body[k]
        return out

    def delete_schedule(self, key: Key, name: str, group: str | None) -> None:
        group = group or DEFAULT_GROUP
        with self.db.transaction() as conn:
            self._row(conn, key, group, name)
            store.delete(conn, key, group, name)

    def list_schedules(self, key: Key, p: dict[str, Any]) -> dict[str, Any]:
        group = p.get("GroupName")

        def read(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            if group is not None:
                self._group(conn, key, group)
            return store.list_schedules(conn, key, group)
        out = []
        for row in self.db.read(read):
            if not row["name"].startswith(p.get("NamePrefix") or "") or p.get("State", row["state"]) != row["state"]:
                continue
            body = json.loads(row["body"])
            out.append({"Arn": schedule_arn(key, row["grp"], row["name"]), "Name": row["name"],
                        "GroupName": row["grp"], "State": row["state"], "CreationDate": _when(row["created"]),
                        "LastModificationDate": _when(row["modified"]), "Target": {"Arn": body["Target"]["Arn"]}})
        page, nxt = _page(out, p.get("MaxResults"), p.get("NextToken"))
        return {"Schedules": page, **({"NextToken": nxt} if nxt else {})}

    # ------------------------------------------------------------------ tags (schedule groups)
    def _tagged_group(self, conn: sqlite3.Connection, key: Key, arn: str) -> str:
        prefix = group_arn(key, "")
        name = arn[len(prefix):] if arn.startswith(prefix) else ""
        if not name or store.get_group(conn, key, name) is None:
            raise errors.resource_not_found(arn)
        return name

    def tags(self, key: Key, arn: str) -> list[dict[str, str]]:
        def read(conn: sqlite3.Connection) -> dict[str, str]:
            group = store.get_group(conn, key, self._tagged_group(conn, key, arn))
            assert group is not None  # _tagged_group found it in this read
            return dict(json.loads(group["tags"]))
        return [{"Key": k, "Value": v} for k, v in self.db.read(read).items()]

    def set_tags(self, key: Key, arn: str, add: dict[str, str], remove: list[str]) -> None:
        with self.db.transaction() as conn:
            name = self._tagged_group(conn, key, arn)
            group = store.get_group(conn, key, name)
            assert group is not None  # _tagged_group found it in this transaction
            tags = {k: v for k, v in json.loads(group["tags"]).items() if k not in remove}
            store.set_group_tags(conn, key, name, {**tags, **add})

    # ------------------------------------------------------------------ firing (a source of the clock)
    def next_due(self) -> float | None:
        return self.db.read(store.next_fire)

    def run_due(self, now: float) -> None:
        due = self.next_due()  # a read first: most wake-ups are for deliveries, not schedules
        if due is None or due > now:
            return
        with self.db.transaction() as conn:
            for row in store.due(conn, now):
                self._fire(conn, row, now)

    def rescale(self, factor: float, now: float) -> None:
        with self.db.transaction() as conn:
            events_store.rescale(conn, "scheduler_schedules", "next_fire", factor, now)

    def _fire(self, conn: sqlite3.Connection, row: sqlite3.Row, now: float) -> None:
        key, group, name = (row["account"], row["region"]), row["grp"], row["name"]
        body = json.loads(row["body"])
        arn = schedule_arn(key, group, name)
        execution = str(uuid.uuid4())
        scheduled = datetime.fromtimestamp(row["nominal_next"], UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        target = body["Target"]
        context = {"aws.scheduler.schedule-arn": arn, "aws.scheduler.scheduled-time": scheduled,
                   "aws.scheduler.execution-id": execution, "aws.scheduler.attempt-number": "1"}
        text = render_template(target.get("Input") or "{}", context)
        event = {"version": "0", "id": execution, "detail-type": "Scheduled Event", "source": "aws.scheduler",
                 "account": key[0], "time": scheduled, "region": key[1], "resources": [arn], "detail": {}}
        window = body.get("FlexibleTimeWindow") or {}
        delay = random.uniform(0, window["MaximumWindowInMinutes"] * 60) / self.scale \
            if window.get("Mode") == "FLEXIBLE" else 0.0
        events_store.enqueue(conn, now + delay, {
            "origin": "schedule", "principal_service": "scheduler.amazonaws.com", "account": key[0],
            "region": key[1], "schedule_arn": arn, "target": target, "event": event, "input": text,
            "first": now, "attempt": 0,
        })
        parsed = parse(body["ScheduleExpression"], body.get("ScheduleExpressionTimezone"), allow_at=True)
        nominal, nxt = (None, None) if parsed.one_time else \
            next_firing(parsed, row["nominal_next"], row["next_fire"], now, self.scale)
        end = body.get("EndDate")
        if nominal is not None and end is not None and nominal > end:
            nominal = nxt = None
        if nominal is None and body.get("ActionAfterCompletion") == "DELETE":
            store.delete(conn, key, group, name)
        else:
            store.set_next(conn, key, group, name, nominal, nxt)
        self.clock.poke()


def _refused_token() -> ServiceError:
    # ValidationException is the model's only 4xx for a bad ListSchedules(/Groups) input; text UNCONFIRMED
    return errors.validation("Invalid NextToken")


def _page(items: list[Any], limit: int | None, token: str | None) -> tuple[list[Any], str | None]:
    start = pages.offset_of(token, _refused_token)  # one Scheduler never issued is refused, not a first page
    end = start + limit if limit else len(items)
    return items[start:end], (pages.offset_token(end) if end < len(items) else None)
