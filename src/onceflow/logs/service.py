"""CloudWatch Logs rules: log groups, streams, retention and tags (events live in events.py).

Each public method is one API call's worth of work in one transaction. Other services write
through `append`, which creates the group and stream when missing.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.errors import ServiceError
from onceflow.logs import errors, store, tokens
from onceflow.logs.events import EventsMixin
from onceflow.store.db import Database

Clock = Callable[[], int]


def now_ms() -> int:
    return int(time.time() * 1000)


def group_arn(region: str, account: str, name: str) -> str:
    return f"arn:{partition(region)}:logs:{region}:{account}:log-group:{name}"


def check_name(name: str) -> None:
    """The rule the model's max length cannot express with AWS's own message (snapshot-recorded)."""
    if len(name) > errors.MAX_NAME:
        raise errors.name_too_long()


class LogsService(EventsMixin):
    def __init__(self, db: Database, clock: Clock = now_ms) -> None:
        self.db = db
        self.clock = clock
        # Called with (account, region, group, stream, events) once events are committed
        # (subscription delivery, filters.py); None until setup installs it.
        self.on_events: Callable[[str, str, str, str, Sequence[tuple[int, str]]], None] | None = None
        # The field index names a group has (conn, account, region, group): index_policies.index_names.
        self.index_names: Callable[[sqlite3.Connection, str, str, str], set[str]] | None = None

    # ------------------------------------------------------------------------------ lookups
    def _group(self, conn: sqlite3.Connection, account: str, region: str, name: str) -> sqlite3.Row:
        row = store.get_group(conn, account, region, name)
        if row is None:
            raise errors.group_not_found()
        return row

    def identified_group(self, conn: sqlite3.Connection, account: str, region: str, identifier: str) -> sqlite3.Row:
        """The group a logGroupIdentifier (a name or an ARN) names, or ResourceNotFoundException."""
        return self._group(conn, account, region, self.resolve_group_name(account, region, None, identifier))

    def _stream(self, conn: sqlite3.Connection, group_id: int, name: str) -> sqlite3.Row:
        row = store.get_stream(conn, group_id, name)
        if row is None:
            raise errors.stream_not_found()
        return row

    def resolve_group_name(
        self, account: str, region: str, name: str | None, identifier: str | None
    ) -> str:
        """logGroupName or logGroupIdentifier (a name or an ARN), exactly one of them."""
        if name is not None and identifier is not None:
            raise errors.name_and_arn_exclusive()
        if name is not None:
            return name
        if identifier is None:
            raise errors.name_or_arn_required()
        if not identifier.startswith("arn:"):
            return identifier
        parsed = parse_group_arn(identifier)
        if parsed is None or parsed[:2] != (region, account):
            raise errors.group_not_found()  # cross-account observability is not modelled
        return parsed[2]

    def query_group_names(self, account: str, region: str, p: dict[str, Any]) -> list[str]:
        """The log groups a StartQuery names (logGroupName, logGroupNames or logGroupIdentifiers)."""
        if p.get("logGroupName"):
            return [p["logGroupName"]]
        if p.get("logGroupNames"):
            return list(p["logGroupNames"])
        return [self.resolve_group_name(account, region, None, i) for i in p.get("logGroupIdentifiers") or []]

    # ------------------------------------------------------------------------------ groups
    def create_group(
        self,
        account: str,
        region: str,
        name: str,
        *,
        tags: dict[str, str] | None = None,
        kms_key_id: str | None = None,
        log_class: str | None = None,
        deletion_protection: bool = False,
    ) -> None:
        check_name(name)
        with self.db.transaction() as conn:
            if store.get_group(conn, account, region, name) is not None:
                raise errors.group_exists()
            store.insert_group(
                conn, account, region, name, self.clock(), kms_key_id=kms_key_id,
                log_class=log_class or "STANDARD", deletion_protection=deletion_protection, tags=tags,
            )

    def delete_group(self, account: str, region: str, name: str) -> None:
        check_name(name)
        with self.db.transaction() as conn:
            row = self._group(conn, account, region, name)
            if row["deletion_protection"]:  # it blocks every deletion until it is disabled (model documentation)
                raise errors.deletion_protected()
            store.delete_group(conn, row["id"])

    def set_deletion_protection(self, account: str, region: str, identifier: str, enabled: bool) -> None:
        name = self.resolve_group_name(account, region, None, identifier)
        with self.db.transaction() as conn:
            store.set_deletion_protection(conn, self._group(conn, account, region, name)["id"], enabled)

    def set_kms_key(self, account: str, region: str, name: str | None, resource: str | None,
                    key: str | None) -> None:
        """AssociateKmsKey / DisassociateKmsKey on a log group (by name, or as resourceIdentifier its ARN).
        A query-results resourceIdentifier (`arn:...:query-result:*`) is not modelled: UNCONFIRMED wording."""
        if resource is not None and name is not None:
            raise errors.invalid_parameter("Specify either logGroupName or resourceIdentifier, not both")
        if resource is not None:
            if parse_group_arn(resource) is None:
                raise errors.invalid_parameter(f"Invalid resourceIdentifier: {resource}")
            name = self.resolve_group_name(account, region, None, resource)
        if name is None:
            raise errors.invalid_parameter("Specify either logGroupName or resourceIdentifier")
        with self.db.transaction() as conn:
            store.set_kms_key(conn, self._group(conn, account, region, name)["id"], key)

    def describe_groups(
        self,
        account: str,
        region: str,
        *,
        prefix: str | None = None,
        pattern: str | None = None,
        log_class: str | None = None,
        limit: int | None = None,
        token: str | None = None,
        identifiers: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        if prefix and pattern:
            raise errors.prefix_and_pattern_exclusive()
        after = _name_after(token, "g") if token else None
        size = limit or 50
        # logGroupIdentifiers: names or ARNs of this account and region (others cannot match).
        names = None if identifiers is None else [
            n for n in (_identifier_name(i, account, region) for i in identifiers) if n is not None
        ]
        rows = self.db.read(
            lambda conn: store.list_groups(
                conn, account, region, prefix=prefix, pattern=pattern, log_class=log_class,
                after=after, limit=size + 1, names=names,
            )
        )
        shaped = [_group_shape(row, region, account, brief=bool(pattern)) for row in rows[:size]]
        result: dict[str, Any] = {"logGroups": shaped}
        if len(rows) > size:
            result["nextToken"] = tokens.encode("g", [rows[size - 1]["name"]])
        return result

    def list_groups(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        """ListLogGroups: names matching any of the pattern's `|` alternatives (`^x` a prefix, else a
        case-sensitive substring), of a class, with the tags asked for and every field index asked for
        (index_policies.index_names, installed by setup). Groups have no data sources in onceflow, so a
        filter by them lists nothing."""
        alternatives = [a for a in (p.get("logGroupNamePattern") or "").split("|") if a]
        wanted_tags = p.get("logGroupTags") or []
        after = _name_after(p["nextToken"], "lg") if p.get("nextToken") else None
        size = p.get("limit") or 50

        def matches(name: str, tags: dict[str, str]) -> bool:
            if alternatives and not any(name.startswith(a[1:]) if a.startswith("^") else a in name
                                        for a in alternatives):
                return False
            return all(t["key"] in tags and (not t.get("values") or tags[t["key"]] in t["values"])
                       for t in wanted_tags)

        wanted_indexes = set(p.get("fieldIndexNames") or ())

        def indexed(conn: sqlite3.Connection, row: sqlite3.Row) -> bool:
            return not wanted_indexes or (self.index_names is not None and row["class"] == "STANDARD"
                                          and wanted_indexes <= self.index_names(conn, account, region, row["name"]))

        def read(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            sql = "SELECT name, class, tags FROM logs_groups WHERE account=? AND region=?"
            args: list[Any] = [account, region]
            if p.get("logGroupClass"):
                sql += " AND class=?"
                args.append(p["logGroupClass"])
            if after is not None:
                sql += " AND name > ?"
                args.append(after)
            return [r for r in conn.execute(sql + " ORDER BY name", args).fetchall() if indexed(conn, r)]

        rows = [] if p.get("dataSources") else self.db.read(read)
        found = [r for r in rows if matches(r["name"], json.loads(r["tags"]))]
        out: dict[str, Any] = {"logGroups": [{"logGroupName": r["name"], "logGroupArn": group_arn(
            region, account, r["name"]), "logGroupClass": r["class"]} for r in found[:size]]}
        if len(found) > size:
            out["nextToken"] = tokens.encode("lg", [found[size - 1]["name"]])
        return out

    def put_retention(self, account: str, region: str, name: str, days: int) -> None:
        if days not in errors.RETENTION_DAYS:
            raise errors.invalid_retention(days)
        with self.db.transaction() as conn:
            store.set_retention(conn, self._group(conn, account, region, name)["id"], days)

    def delete_retention(self, account: str, region: str, name: str) -> None:
        with self.db.transaction() as conn:
            store.set_retention(conn, self._group(conn, account, region, name)["id"], None)

    # ------------------------------------------------------------------------------ tags
    def tag_group(self, account: str, region: str, name: str, tags: dict[str, str]) -> None:
        with self.db.transaction() as conn:
            row = self._group(conn, account, region, name)
            store.set_tags(conn, row["id"], {**json.loads(row["tags"]), **tags})

    def untag_group(self, account: str, region: str, name: str, keys: Sequence[str]) -> None:
        with self.db.transaction() as conn:
            row = self._group(conn, account, region, name)
            current = json.loads(row["tags"])
            store.set_tags(conn, row["id"], {k: v for k, v in current.items() if k not in set(keys)})

    def list_tags(self, account: str, region: str, name: str) -> dict[str, str]:
        row = self.db.read(lambda conn: self._group(conn, account, region, name))
        return dict(json.loads(row["tags"]))

    def group_name_from_arn(self, account: str, region: str, arn: str) -> str:
        parsed = parse_group_arn(arn)
        if parsed is None:
            raise errors.invalid_arn(arn)
        if parsed[:2] != (region, account):
            raise errors.group_not_found()
        return parsed[2]

    # ------------------------------------------------------------------------------ streams
    def create_stream(self, account: str, region: str, group: str, stream: str) -> None:
        check_name(group)
        check_name(stream)
        with self.db.transaction() as conn:
            row = self._group(conn, account, region, group)
            if store.get_stream(conn, row["id"], stream) is not None:
                raise errors.stream_exists()
            store.insert_stream(conn, row["id"], stream, self.clock())

    def delete_stream(self, account: str, region: str, group: str, stream: str) -> None:
        with self.db.transaction() as conn:
            row = self._group(conn, account, region, group)
            store.delete_stream(conn, row["id"], self._stream(conn, row["id"], stream)["id"])

    def describe_streams(
        self,
        account: str,
        region: str,
        group: str,
        *,
        prefix: str | None = None,
        order_by: str | None = None,
        descending: bool = False,
        limit: int | None = None,
        token: str | None = None,
    ) -> dict[str, Any]:
        by_time = order_by == "LastEventTime"
        if by_time and prefix:
            raise errors.order_by_with_prefix()
        after = _stream_after(token) if token else None
        size = limit or 50

        def read(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            return store.list_streams(
                conn, self._group(conn, account, region, group)["id"], prefix=prefix, by_time=by_time,
                descending=descending, after=after, limit=size + 1,
            )

        rows = self.db.read(read)
        arn = group_arn(region, account, group)
        result: dict[str, Any] = {"logStreams": [_stream_shape(row, arn) for row in rows[:size]]}
        if len(rows) > size:
            last = rows[size - 1]
            result["nextToken"] = tokens.encode("s", [last["order_ts"], last["name"]])
        return result

    # ------------------------------------------------------------------------------ other services
    def append(
        self, account: str, region: str, group: str, stream: str, events: Sequence[tuple[int, str]]
    ) -> None:
        """Write events for another service (Lambda, Step Functions): one transaction, group and
        stream created when missing, events sorted by timestamp, empty messages dropped."""
        batch = sorted(((int(ts), msg) for ts, msg in events if msg), key=lambda e: e[0])
        with self.db.transaction() as conn:
            now = self.clock()
            grow = store.get_group(conn, account, region, group)
            group_id = grow["id"] if grow else store.insert_group(conn, account, region, group, now)
            srow = store.get_stream(conn, group_id, stream)
            stream_id = srow["id"] if srow else store.insert_stream(conn, group_id, stream, now)
            store.insert_events(conn, group_id, stream_id, batch, now)
        if self.on_events is not None:
            self.on_events(account, region, group, stream, batch)


# ---------------------------------------------------------------------------------- shapes
def parse_group_arn(arn: str) -> tuple[str, str, str] | None:
    """(region, account, name) of `arn:<partition>:logs:<region>:<account>:log-group:<name>[:*]`."""
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn" or parts[2] != "logs" or not parts[5].startswith("log-group:"):
        return None
    name = parts[5][len("log-group:") :]
    if name.endswith(":*"):
        name = name[:-2]
    if not name or ":" in name:
        return None
    return parts[3], parts[4], name


def _identifier_name(identifier: str, account: str, region: str) -> str | None:
    if not identifier.startswith("arn:"):
        return identifier
    parsed = parse_group_arn(identifier)
    return parsed[2] if parsed is not None and parsed[:2] == (region, account) else None


def _group_shape(row: sqlite3.Row, region: str, account: str, *, brief: bool) -> dict[str, Any]:
    arn = group_arn(region, account, row["name"])
    if brief:  # logGroupNamePattern: AWS returns only these members (snapshot 2026-02)
        return {
            "logGroupName": row["name"], "creationTime": row["created"], "metricFilterCount": row["metric_filters"],
            "arn": arn + ":*", "logGroupClass": row["class"], "logGroupArn": arn,
        }
    name, created, retention, kms_key_id, log_class, protection, stored, metric_filters, data_protected, \
        account_protected = row
    out: dict[str, Any] = {"logGroupName": name, "creationTime": created}
    if retention is not None:
        out["retentionInDays"] = retention
    out["metricFilterCount"] = metric_filters
    out["arn"] = arn + ":*"
    out["storedBytes"] = stored
    if kms_key_id:
        out["kmsKeyId"] = kms_key_id
    if data_protected:  # its own data protection policy (policies.py)
        out["dataProtectionStatus"] = "ACTIVATED"
    if account_protected:  # an account-level one applies to every group
        out["inheritedProperties"] = ["ACCOUNT_DATA_PROTECTION"]
    out["logGroupClass"] = log_class
    out["logGroupArn"] = arn
    out["deletionProtectionEnabled"] = bool(protection)
    return out


def _stream_shape(row: sqlite3.Row, group_arn_: str) -> dict[str, Any]:
    out: dict[str, Any] = {"logStreamName": row["name"], "creationTime": row["created"]}
    if row["first_ts"] is not None:
        out["firstEventTimestamp"] = row["first_ts"]
        out["lastEventTimestamp"] = row["last_ts"]
        out["lastIngestionTime"] = row["last_ingestion"]
        out["uploadSequenceToken"] = tokens.sequence_token(row["upload_seq"])
    out["arn"] = f"{group_arn_}:log-stream:{row['name']}"
    out["storedBytes"] = 0  # "always reported as zero" for streams since 2019 (model documentation)
    return out


def _name_after(token: str, kind: str) -> str:
    (name,) = tokens.decode(kind, token, 1)
    if not isinstance(name, str):
        raise errors.invalid_token()
    return name


def _stream_after(token: str) -> tuple[int, str]:
    ts, name = tokens.decode("s", token, 2)
    if not isinstance(ts, int) or not isinstance(name, str):
        raise errors.invalid_token()
    return ts, name


__all__ = ["LogsService", "ServiceError", "group_arn", "now_ms", "parse_group_arn"]
