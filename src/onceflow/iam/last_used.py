"""When, where and with which service each access key and role was last used
(GetAccessKeyLastUsed, GetRole's RoleLastUsed, the credential report's last-used columns).

AWS updates this within hours, not on every call, so neither does onceflow: the authorizer marks
each authenticated call in memory (one dict assignment on the signed path), and the marks are
written to the database at most once an hour, at shutdown and when a reset drops them. Reads see
the stored value with the unwritten marks over it; a crash loses at most the last hour, as a lag
AWS has too.

A call is marked once it is authenticated, whether or not it is then authorized (UNCONFIRMED:
whether AWS records a denied call's use of a key)."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import Any

from onceflow.iam.store import IamStore

KEY, ROLE = "key-last-used", "role-last-used"
# A user's or a role's last attempt at each service (the service last accessed reports), keyed
# "<entity arn>|<service namespace>" (service_key).
SERVICE = "service-last-used"
FLUSH_EVERY_S = 3600.0


def service_key(entity_arn: str, namespace: str) -> str:
    return f"{entity_arn}|{namespace}"


class LastUsed:
    def __init__(self, store: IamStore) -> None:
        self.store = store
        # (kind, id) -> (account, epoch seconds, service namespace, region)
        self._marks: dict[tuple[str, str], tuple[str, float, str, str]] = {}
        self._next_flush = time.monotonic() + FLUSH_EVERY_S
        self._lock = threading.Lock()

    def mark(self, kind: str, ident: str, account: str, service: str, region: str,
             *more: tuple[str, str]) -> None:
        """Mark (kind, ident) and each further (kind, ident) of `more` with one use: one clock read
        and one flush check per call, however many records the call updates."""
        use = (account, time.time(), service, region)
        self._marks[(kind, ident)] = use
        for key in more:
            self._marks[key] = use
        if time.monotonic() >= self._next_flush:
            self.flush()

    def get(self, kind: str, ident: str, account: str) -> dict[str, Any] | None:
        """{"date": datetime, "service": ..., "region": ...} or None when never used."""
        mark = self._marks.get((kind, ident))
        if mark is not None and mark[0] == account:
            return {"date": datetime.fromtimestamp(int(mark[1]), UTC), "service": mark[2], "region": mark[3]}
        stored = self.store.obj(account, kind, ident)
        if stored is None:
            return None
        return {"date": datetime.fromtimestamp(stored["at"], UTC), "service": stored["service"],
                "region": stored["region"]}

    def since(self, kind: str, ident: str, account: str, created: str) -> dict[str, Any] | None:
        """get()'s use, when it is not older than `created` (ISO): a use by an earlier entity of the
        same ARN, deleted and made again, is not this one's."""
        used = self.get(kind, ident, account)
        return used if used is not None and used["date"] >= datetime.fromisoformat(created) else None

    def flush(self) -> None:
        with self._lock:
            self._next_flush = time.monotonic() + FLUSH_EVERY_S
            marks, self._marks = self._marks, {}
            if not marks:
                return
            # Not store.writing(): a last use changes no policy, so compiled caches stay valid.
            with self.store.db.transaction() as conn:
                # A call may still mark the dict just swapped out: list() copies it under the GIL.
                for (kind, ident), (account, at, service, region) in list(marks.items()):
                    self.store.put_obj(conn, account, kind, ident,
                                       {"at": int(at), "service": service, "region": region})

    def drop(self, kind: str, ident: str, account: str) -> None:
        self._marks.pop((kind, ident), None)
        if self.store.obj(account, kind, ident) is not None:
            with self.store.db.transaction() as conn:
                self.store.delete_obj(conn, account, kind, ident)

    def forget(self) -> None:
        self._marks = {}
