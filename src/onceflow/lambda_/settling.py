"""The moment after UpdateFunctionCode with Publish, as AWS records it (test_lambda_api.snapshot.json,
TestLambdaVersions::test_publish_with_update, 2023-11): a GetFunction of the new version right after
reads State Pending (StateReason "The function is being created.", Creating, no LastUpdateStatus)
with the answer's RevisionId, and $LATEST reads LastUpdateStatus InProgress (Creating) with a
revision of its own; later reads say Active / Successful with the stored revisions. PublishVersion
is not among them: its answer and the read after it are Active / Successful (test_version_lifecycle).

Here the moment lasts SETTLE_S, or until the first read if none came by then (at most FIRST_READ_S):
a client that reads right after always sees it once, as on AWS, and one that reads later does not.
Kept in memory only: a restart settles everything. Invoking a version while it reads Pending is
refused as AWS refuses it (ResourceConflictException, Invoker.invoke; the invocation counts as a read);
$LATEST's InProgress does not stop its invocations. UNCONFIRMED how long AWS keeps a new version Pending.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

SETTLE_S = 1.0
FIRST_READ_S = 10.0

Key = tuple[str, str, str]


@dataclass
class _Moment:
    phase: str  # cfg.render's phase while it lasts: "create" (Pending) or "update" (InProgress)
    revision: str  # the RevisionId shown meanwhile
    since: float
    seen: bool = False


class Settling:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._moments: dict[tuple[Key, str], _Moment] = {}

    def start(self, key: Key, qualifier: str, phase: str, revision: str) -> None:
        now = self._clock()
        with self._lock:
            self._moments = {k: m for k, m in self._moments.items() if now - m.since < FIRST_READ_S}
            self._moments[(key, qualifier)] = _Moment(phase, revision, now)

    def forget(self, key: Key, qualifier: str | None = None) -> None:
        """A later write settles $LATEST (`qualifier`), a deleted function everything."""
        with self._lock:
            for k in [k for k in self._moments if k[0] == key and qualifier in (None, k[1])]:
                del self._moments[k]

    def shown(self, key: Key, qualifier: str) -> tuple[str, str] | None:
        """(phase, revision) while the moment lasts for this version, else None."""
        with self._lock:
            moment = self._moments.get((key, qualifier))
            if moment is None:
                return None
            age = self._clock() - moment.since
            if age < SETTLE_S or (not moment.seen and age < FIRST_READ_S):
                moment.seen = True
                return moment.phase, moment.revision
            del self._moments[(key, qualifier)]
            return None

    def pending(self, key: Key, qualifier: str) -> bool:
        """Whether this version reads State Pending now (a read like `shown`'s)."""
        moment = self.shown(key, qualifier)
        return moment is not None and moment[0] == "create"
