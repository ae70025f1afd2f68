"""Field index policies (PutIndexPolicy, DescribeIndexPolicies, DeleteIndexPolicy) and the field
indexes they make (DescribeFieldIndexes), as the model and CloudWatchLogs-Field-Indexing-Syntax
document them.

A log group has at most one log-group level policy, a row of logs_resources (resources.py) named by
the group; it overrides the account-level FIELD_INDEX_POLICY policies (policies.py) that select the
group (no selectionCriteria, or a `LogGroupNamePrefix IN [...]` one the name starts with); their
documents are checked by index_documents.py.

The field indexes of a group are the default ones (@logStream, @aws.region, @aws.account,
@source.log, traceId) and its policy's, each listed once some stored event ingested since the
policy was updated holds the field (a default: any stored event), with the first and last such
event's time (AWS's CLI example answers only indexes with events). A field the group's policy stops
naming (a new document without it, or DeleteIndexPolicy) is INACTIVE for 30 days, with the events
ingested while it was indexed. onceflow keeps no separate index:
filterIndex and queries read the events themselves.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.logs import errors, resources
from onceflow.logs.index_documents import DEFAULTS, event_field, index_fields, prefixes_of
from onceflow.logs.insights.evaluate import lookup
from onceflow.logs.insights.run import LAMBDA_LINES, discover, lambda_fields
from onceflow.logs.policies import ACCOUNT_POLICY
from onceflow.logs.resources import Row
from onceflow.logs.service import LogsService, group_arn
from onceflow.registry import operation
from onceflow.store.db import Database

Params = dict[str, Any]
KIND = "index-policy"  # a row per log group, named by the group
INACTIVE_KIND = "index-inactive"  # per group: the fields its policy indexed once and no longer does
INACTIVE_KEPT_MS = 30 * 86_400_000  # "will still be used for as many as 30 days" (DeleteIndexPolicy)
FIELD_INDEX_POLICY = "FIELD_INDEX_POLICY"
CATEGORIES = ("DEFAULT", "CUSTOM", "INACTIVE")  # what DescribeFieldIndexes answers unless asked otherwise
SCAN = 100_000  # at most this many of a group's newest events are read for its field indexes


def account_policy_for(conn: sqlite3.Connection, account: str, region: str, group: str) -> Row | None:
    """The account-level field index policy that applies to the group as a whole, if one does."""
    for row in resources.every(conn, account, region, ACCOUNT_POLICY):
        if row["policyType"] != FIELD_INDEX_POLICY:
            continue
        prefixes = prefixes_of(row.get("selectionCriteria"))
        if prefixes is None or any(group.startswith(p) for p in prefixes):
            return row
    return None


def policy_fields(conn: sqlite3.Connection, account: str, region: str, group: str) -> tuple[dict[str, str], int]:
    """The custom field indexes that apply to a group (its own policy, else the account's) and since when."""
    row = resources.get(conn, account, region, KIND, group) or account_policy_for(conn, account, region, group)
    if row is None:
        return {}, 0
    try:
        return index_fields(row["policyDocument"]), int(row.get("lastUpdatedTime") or row.get("lastUpdateTime") or 0)
    except ServiceError:  # an account policy stored before its document was checked as an index policy
        return {}, 0


def inactive_fields(conn: sqlite3.Connection, account: str, region: str, group: str, now: int) -> dict[str, Any]:
    """The fields a group's policy stopped indexing in the last 30 days: name -> {type, from, until}."""
    row = resources.get(conn, account, region, INACTIVE_KIND, group)
    fields: dict[str, Any] = row.get("fields", {}) if row is not None else {}
    return {n: v for n, v in fields.items() if v["until"] >= now - INACTIVE_KEPT_MS}


def index_names(conn: sqlite3.Connection, account: str, region: str, group: str) -> set[str]:
    """The field index names a group has, as policies write them: the default ones and its policy's."""
    custom, _ = policy_fields(conn, account, region, group)
    return set(DEFAULTS) | set(custom)


def indexed_fields(conn: sqlite3.Connection, account: str, region: str, group: str) -> set[str]:
    """The event fields a group has a field index on: the default ones and its policy's."""
    custom, _ = policy_fields(conn, account, region, group)
    return set(DEFAULTS) | {event_field(n) for n in custom}


def _event_values(message: str, stream: str) -> Callable[[str], Any]:
    row: dict[str, Any] = {"@logStream": stream}
    fields = discover(message)
    row.update(fields)
    if message.startswith(LAMBDA_LINES):
        row.update(lambda_fields(message))
    return lambda name: lookup(row, name)


class IndexPoliciesApi:
    def __init__(self, db: Database, logs: LogsService, clock: Callable[[], int]) -> None:
        self.db = db
        self.logs = logs
        self.clock = clock

    def _group(self, ctx: RequestContext, conn: sqlite3.Connection, identifier: str) -> sqlite3.Row:
        return self.logs.identified_group(conn, ctx.account, ctx.region, identifier)

    def _shape(self, ctx: RequestContext, group: str, row: Row, source: str) -> Params:
        out: Params = {"logGroupIdentifier": group_arn(ctx.region, ctx.account, group),
                       "lastUpdateTime": row["lastUpdatedTime"], "policyDocument": row["policyDocument"],
                       "source": source}
        if source == "ACCOUNT":
            out["policyName"] = row["policyName"]
        return out

    @operation("PutIndexPolicy")
    def put_index_policy(self, ctx: RequestContext, p: Params) -> Params:
        index_fields(p["policyDocument"])
        now = self.clock()
        with self.db.transaction() as conn:
            group = self._group(ctx, conn, p["logGroupIdentifier"])
            if group["class"] != "STANDARD":
                # Only Standard-class groups support field index policies (model); UNCONFIRMED wording.
                raise errors.invalid_parameter("Field index policies are only supported for log groups in the "
                                               "STANDARD log class")
            data = {"policyDocument": p["policyDocument"], "lastUpdatedTime": now}
            self._retire(ctx, conn, group["name"], index_fields(p["policyDocument"]), now)
            resources.put(conn, ctx.account, ctx.region, KIND, group["name"], now, data)
        return {"indexPolicy": self._shape(ctx, group["name"], data, "LOG_GROUP")}

    def _retire(self, ctx: RequestContext, conn: sqlite3.Connection, group: str, keep: dict[str, str],
                now: int) -> None:
        """Mark INACTIVE the fields the group's policy indexed and `keep` no longer names (and active
        again those it names anew): DescribeFieldIndexes lists them, with the events of their time."""
        old = resources.get(conn, ctx.account, ctx.region, KIND, group)
        gone = inactive_fields(conn, ctx.account, ctx.region, group, now)
        if old is not None:
            since = int(old["lastUpdatedTime"])
            for name, kind in index_fields(old["policyDocument"]).items():
                if name not in keep:
                    gone[name] = {"type": kind, "from": since, "until": now}
        gone = {n: v for n, v in gone.items() if n not in keep}
        if gone:
            resources.put(conn, ctx.account, ctx.region, INACTIVE_KIND, group, now, {"fields": gone})
        else:
            resources.delete(conn, ctx.account, ctx.region, INACTIVE_KIND, group)

    @operation("DescribeIndexPolicies")
    def describe_index_policies(self, ctx: RequestContext, p: Params) -> Params:
        def read(conn: sqlite3.Connection) -> list[Params]:
            out = []
            for identifier in p["logGroupIdentifiers"]:
                name = self._group(ctx, conn, identifier)["name"]
                own = resources.get(conn, ctx.account, ctx.region, KIND, name)
                if own is not None:
                    out.append(self._shape(ctx, name, own, "LOG_GROUP"))
                    continue
                shared = account_policy_for(conn, ctx.account, ctx.region, name)
                if shared is not None:
                    out.append(self._shape(ctx, name, shared, "ACCOUNT"))
            return out

        # one page (one group per call), through the Describe* codec so a token Logs never issued is refused
        return resources.page(self.db.read(read), p.get("nextToken"), None, "index-policy", lambda r: r,
                              "indexPolicies")

    @operation("DeleteIndexPolicy")
    def delete_index_policy(self, ctx: RequestContext, p: Params) -> None:
        with self.db.transaction() as conn:
            name = self._group(ctx, conn, p["logGroupIdentifier"])["name"]
            self._retire(ctx, conn, name, {}, self.clock())
            if not resources.delete(conn, ctx.account, ctx.region, KIND, name):
                # UNCONFIRMED wording.
                raise ServiceError("ResourceNotFoundException", "The specified index policy does not exist.", 400)

    @operation("DescribeFieldIndexes")
    def describe_field_indexes(self, ctx: RequestContext, p: Params) -> Params:
        categories = set(p.get("indexCategories") or CATEGORIES)

        def read(conn: sqlite3.Connection) -> list[Params]:
            out: list[Params] = []
            for identifier in p["logGroupIdentifiers"]:
                group = self._group(ctx, conn, identifier)
                out.extend(self._indexes(ctx, conn, group, categories))
            return out

        found = self.db.read(read)
        return resources.page(found, p.get("nextToken"), None, "field-index", lambda r: r, "fieldIndexes")

    def _indexes(self, ctx: RequestContext, conn: sqlite3.Connection, group: sqlite3.Row,
                 categories: set[str]) -> list[Params]:
        custom, since = policy_fields(conn, ctx.account, ctx.region, group["name"])
        now = self.clock()
        # (index name, type, category, events ingested from, until)
        wanted: list[tuple[str, str, str, int, int]] = []
        if "DEFAULT" in categories:
            wanted += [(n, "FIELD_INDEX", "DEFAULT", 0, now) for n in DEFAULTS if n not in custom]
        if "CUSTOM" in categories:
            wanted += [(n, t, "CUSTOM", since, now) for n, t in custom.items()]
        if "INACTIVE" in categories:
            wanted += [(n, v["type"], "INACTIVE", v["from"], v["until"]) for n, v in inactive_fields(
                conn, ctx.account, ctx.region, group["name"], now).items() if n not in custom]
        if not wanted:
            return []
        seen: dict[tuple[str, str], list[int]] = {}
        for ts, ingested, value in self._events(conn, group["id"]):
            for name, _, category, start, until in wanted:
                if start <= ingested <= until and value(event_field(name)) is not None:
                    span = seen.setdefault((name, category), [ts, ts])
                    span[0], span[1] = min(span[0], ts), max(span[1], ts)
        arn = group_arn(ctx.region, ctx.account, group["name"])
        return [{"logGroupIdentifier": arn, "fieldIndexName": name, "lastScanTime": now,
                 "firstEventTime": seen[name, category][0], "lastEventTime": seen[name, category][1], "type": kind,
                 "indexCategory": category} for name, kind, category, _, _ in wanted if (name, category) in seen]

    @staticmethod
    def _events(conn: sqlite3.Connection, group_id: int) -> Iterator[tuple[int, int, Callable[[str], Any]]]:
        cur = conn.execute(
            "SELECT e.ts, e.ingested, e.message, s.name FROM logs_events e JOIN logs_streams s ON s.id = e.stream_id"
            " WHERE e.group_id = ? ORDER BY e.ts DESC, e.id DESC LIMIT ?", (group_id, SCAN))
        for ts, ingested, message, stream in cur:
            yield ts, ingested, _event_values(message, stream)
