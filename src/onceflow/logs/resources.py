"""The Logs resources other than log groups, kept as rows of one table by the type their ARN names:
`delivery-source`, `delivery-destination`, `delivery` (vended logs, deliveries.py), `destination`
(cross-account subscription destinations, destinations.py) and `export-task` (exports.py).

Each row of logs_resources (its migration, logs-0005, is in store.py with the other tables) is
(account, region, kind, name) with its creation time and its members as JSON, tags among them;
TagResource and its siblings reach any of them by ARN (`tags_of`, `set_tags`). Data protection and
account policies (policies.py) are rows of it too.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.logs import errors, tokens
from onceflow.store.db import Database

KINDS = ("delivery-source", "delivery-destination", "delivery", "destination", "export-task")  # ARN types
TAGGED = ("delivery-source", "delivery-destination", "delivery", "destination")
Row = dict[str, Any]


def arn(region: str, account: str, kind: str, name: str) -> str:
    return f"arn:{partition(region)}:logs:{region}:{account}:{kind}:{name}"


def parse_arn(value: str) -> tuple[str, str, str, str] | None:
    """(region, account, kind, name) of a Logs ARN of one of these kinds, else None."""
    parts = value.split(":", 6)
    if len(parts) != 7 or parts[0] != "arn" or parts[2] != "logs" or parts[5] not in KINDS or not parts[6]:
        return None
    return parts[3], parts[4], parts[5], parts[6]


def get(conn: sqlite3.Connection, account: str, region: str, kind: str, name: str) -> Row | None:
    row = conn.execute("SELECT name, created, data FROM logs_resources WHERE account=? AND region=? AND kind=?"
                       " AND name=?", (account, region, kind, name)).fetchone()
    return None if row is None else {"name": row[0], "created": row[1], **json.loads(row[2])}


def put(conn: sqlite3.Connection, account: str, region: str, kind: str, name: str, created: int,
        data: dict[str, Any]) -> None:
    conn.execute(
        "INSERT INTO logs_resources (account, region, kind, name, created, data) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (account, region, kind, name) DO UPDATE SET data=excluded.data",
        (account, region, kind, name, created, json.dumps(data, sort_keys=True)),
    )


def delete(conn: sqlite3.Connection, account: str, region: str, kind: str, name: str) -> bool:
    cur = conn.execute("DELETE FROM logs_resources WHERE account=? AND region=? AND kind=? AND name=?",
                       (account, region, kind, name))
    return cur.rowcount > 0


def every(conn: sqlite3.Connection, account: str, region: str, kind: str, *, order: str = "name") -> list[Row]:
    """All rows of one kind, by name (or by creation time, then name)."""
    by = "name" if order == "name" else "created, name"
    rows = conn.execute(f"SELECT name, created, data FROM logs_resources WHERE account=? AND region=? AND kind=?"
                        f" ORDER BY {by}", (account, region, kind)).fetchall()
    return [{"name": r[0], "created": r[1], **json.loads(r[2])} for r in rows]


def page(items: list[Row], token: str | None, limit: int | None, kind: str, shape: Callable[[Row], Row],
         key: str) -> dict[str, Any]:
    """A Describe* page of `items` (already in listing order): `limit` (default 50) after the position
    the token names (its item's index), and a token for the rest."""
    start = 0
    if token:
        (start,) = tokens.decode(kind, token, 1)
        if not isinstance(start, int) or isinstance(start, bool) or start < 0:
            raise errors.invalid_token()
    size = limit or 50
    out: dict[str, Any] = {key: [shape(i) for i in items[start:start + size]]}
    if start + size < len(items):
        out["nextToken"] = tokens.encode(kind, [start + size])
    return out


# ---------------------------------------------------------------------------------------------- tags
def _tagged(db: Database, account: str, region: str, resource_arn: str) -> tuple[str, str]:
    parsed = parse_arn(resource_arn)
    if parsed is None or parsed[2] not in TAGGED:
        raise errors.invalid_arn(resource_arn)
    if parsed[:2] != (region, account):
        raise errors.resource_not_found()
    return parsed[2], parsed[3]


def tags_of(db: Database, account: str, region: str, resource_arn: str) -> dict[str, str]:
    kind, name = _tagged(db, account, region, resource_arn)
    row = db.read(lambda conn: get(conn, account, region, kind, name))
    if row is None:
        raise errors.resource_not_found()
    return dict(row.get("tags") or {})


def set_tags(db: Database, account: str, region: str, resource_arn: str, add: dict[str, str] | None = None,
             remove: list[str] | None = None) -> None:
    kind, name = _tagged(db, account, region, resource_arn)
    with db.transaction() as conn:
        row = get(conn, account, region, kind, name)
        if row is None:
            raise errors.resource_not_found()
        tags = {k: v for k, v in (row.get("tags") or {}).items() if k not in set(remove or ())}
        tags.update(add or {})
        data = {k: v for k, v in row.items() if k not in ("name", "created")}
        data["tags"] = tags
        put(conn, account, region, kind, name, row["created"], data)
