"""Log events: PutLogEvents' batch rules, GetLogEvents' two-way tokens, FilterLogEvents' search.

PutLogEvents rules (model documentation): events in chronological order, at most 1,048,576 bytes
counting 26 bytes per event; events more than 2 hours ahead, more than 14 days old or older than the
retention period are rejected (reported by index) while the others are stored; the stored ones may
span at most 24 hours. Sequence tokens are accepted and ignored.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from onceflow.logs import errors, store, tokens
from onceflow.logs.filter_pattern import FilterPatternError, compile_pattern
from onceflow.store.db import Database

HOUR, DAY = 3_600_000, 86_400_000
MAX_BATCH_BYTES = 1_048_576
EVENT_OVERHEAD = 26
MAX_PAGE_BYTES = 1_048_576
MAX_EVENTS = 10_000
SCAN_CHUNK = 2_000
# FilterLogEvents stops scanning after this many events and hands back a nextToken, as AWS may
# return a partial (even empty) page with a token.
MAX_SCAN = 200_000


def classify(
    timestamps: Sequence[int], now: int, retention_days: int | None
) -> tuple[int, int, int, dict[str, int]]:
    """Split a chronological batch into [0, lo) rejected as old, [lo, hi) accepted, [hi, n) too new."""
    too_old = sum(1 for ts in timestamps if ts < now - 14 * DAY)
    expired = 0
    if retention_days is not None and retention_days < 14:
        expired = sum(1 for ts in timestamps if ts < now - retention_days * DAY)
    too_new_at = next((i for i, ts in enumerate(timestamps) if ts > now + 2 * HOUR), len(timestamps))
    info: dict[str, int] = {}
    if too_new_at < len(timestamps):
        info["tooNewLogEventStartIndex"] = too_new_at
    if too_old:
        info["tooOldLogEventEndIndex"] = too_old
    if expired > too_old:
        info["expiredLogEventEndIndex"] = expired
    lo = min(max(too_old, expired), too_new_at)
    return lo, too_new_at, len(timestamps), info


def check_batch(events: Sequence[dict[str, Any]]) -> None:
    size = 0
    previous = None
    for event in events:
        ts = event["timestamp"]
        if previous is not None and ts < previous:
            raise errors.out_of_order()
        previous = ts
        size += len(event["message"].encode("utf-8")) + EVENT_OVERHEAD
    if size > MAX_BATCH_BYTES:
        raise errors.upload_too_large(size, MAX_BATCH_BYTES)


class EventsMixin:
    db: Database
    clock: Callable[[], int]
    on_events: Callable[[str, str, str, str, Sequence[tuple[int, str]]], None] | None

    def _group(self, conn: sqlite3.Connection, account: str, region: str, name: str) -> sqlite3.Row:
        raise NotImplementedError

    def _stream(self, conn: sqlite3.Connection, group_id: int, name: str) -> sqlite3.Row:
        raise NotImplementedError

    # ------------------------------------------------------------------------------ PutLogEvents
    def put_events(
        self, account: str, region: str, group: str, stream: str, events: Sequence[dict[str, Any]]
    ) -> dict[str, Any]:
        check_batch(events)
        with self.db.transaction() as conn:
            grow = self._group(conn, account, region, group)
            srow = self._stream(conn, grow["id"], stream)
            now = self.clock()
            lo, hi, _, rejected = classify([e["timestamp"] for e in events], now, grow["retention"])
            accepted = [(e["timestamp"], e["message"]) for e in events[lo:hi]]
            if accepted and accepted[-1][0] - accepted[0][0] > DAY:
                raise errors.span_too_long()
            store.insert_events(conn, grow["id"], srow["id"], accepted, now)
            seq = srow["upload_seq"] + (1 if accepted else 0)
        if accepted and self.on_events is not None:
            self.on_events(account, region, group, stream, accepted)
        result: dict[str, Any] = {"nextSequenceToken": tokens.sequence_token(seq)}
        if rejected:
            result["rejectedLogEventsInfo"] = rejected
        return result

    # ------------------------------------------------------------------------------ GetLogEvents
    def get_events(
        self,
        account: str,
        region: str,
        group: str,
        stream: str,
        *,
        start: int | None = None,
        end: int | None = None,
        token: str | None = None,
        limit: int | None = None,
        start_from_head: bool = False,
    ) -> dict[str, Any]:
        direction, key = tokens.parse_stream_token(token) if token else (None, None)
        size = min(limit or MAX_EVENTS, MAX_EVENTS)

        def read(conn: sqlite3.Connection) -> list[sqlite3.Row]:
            stream_id = self._stream(conn, self._group(conn, account, region, group)["id"], stream)["id"]
            forward = direction == "f" or (direction is None and start_from_head)
            rows = store.stream_events(
                conn, stream_id, start=start, end=end, limit=size, newest_first=not forward,
                after=key if direction == "f" else None, before=key if direction == "b" else None,
            )
            return _fit(rows if forward else rows[::-1], from_end=not forward)

        rows = self.db.read(read)
        events = [{"timestamp": r["ts"], "message": r["message"], "ingestionTime": r["ingested"]} for r in rows]
        if rows:
            first, last = (rows[0]["ts"], rows[0]["id"]), (rows[-1]["ts"], rows[-1]["id"])
        else:  # nothing in that direction: hand back the token that was passed in (or the origin)
            first = last = key or (0, 0)
        return {
            "events": events,
            "nextForwardToken": tokens.stream_token("f", last),
            "nextBackwardToken": tokens.stream_token("b", first),
        }

    # ------------------------------------------------------------------------------ FilterLogEvents
    def filter_events(
        self,
        account: str,
        region: str,
        group: str,
        *,
        stream_names: Sequence[str] | None = None,
        stream_prefix: str | None = None,
        start: int | None = None,
        end: int | None = None,
        pattern: str | None = None,
        token: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any]:
        if stream_names and stream_prefix:
            raise errors.stream_names_and_prefix()
        try:
            matches = compile_pattern(pattern)
        except FilterPatternError as exc:
            raise errors.invalid_parameter(str(exc)) from None
        after = _filter_after(token) if token else None
        size = min(limit or MAX_EVENTS, MAX_EVENTS)

        def read(conn: sqlite3.Connection) -> tuple[list[dict[str, Any]], tuple[int, int] | None]:
            group_id = self._group(conn, account, region, group)["id"]
            names = store.stream_names(conn, group_id)
            ids = _selected_streams(conn, group_id, stream_names, stream_prefix)
            return _scan(conn, group_id, ids, names, start, end, after, size, matches)

        events, resume = self.db.read(read)
        result: dict[str, Any] = {"events": events, "searchedLogStreams": []}
        if resume is not None:
            result["nextToken"] = tokens.encode("e", list(resume))
        return result


def _fit(rows: list[sqlite3.Row], *, from_end: bool) -> list[sqlite3.Row]:
    """Trim a page to 1 MB, keeping the events nearest the reading position."""
    total = 0
    kept: list[sqlite3.Row] = []
    for row in reversed(rows) if from_end else rows:
        total += len(row["message"].encode("utf-8")) + EVENT_OVERHEAD
        if total > MAX_PAGE_BYTES and kept:
            break
        kept.append(row)
    return kept[::-1] if from_end else kept


def _selected_streams(
    conn: sqlite3.Connection, group_id: int, names: Sequence[str] | None, prefix: str | None
) -> list[int] | None:
    if names:
        return [row["id"] for row in store.streams_named(conn, group_id, names)]
    if prefix:
        return [row["id"] for row in store.streams_with_prefix(conn, group_id, prefix)]
    return None


def _scan(
    conn: sqlite3.Connection,
    group_id: int,
    stream_ids: list[int] | None,
    names: dict[int, str],
    start: int | None,
    end: int | None,
    after: tuple[int, int] | None,
    size: int,
    matches: Callable[[str], bool],
) -> tuple[list[dict[str, Any]], tuple[int, int] | None]:
    """Matching events in (ts, id) order, and where to resume if the page stopped early."""
    if stream_ids == []:
        return [], None
    out: list[dict[str, Any]] = []
    scanned = page_bytes = 0
    position = after
    chunk = min(max(size + 1, 64), SCAN_CHUNK)  # small pages read few rows; selective patterns grow it
    while True:
        rows = store.group_events(conn, group_id, stream_ids, start=start, end=end, after=position, limit=chunk)
        for row in rows:
            message = row["message"]
            if matches(message):
                page_bytes += len(message.encode("utf-8")) + EVENT_OVERHEAD
                if len(out) == size or (page_bytes > MAX_PAGE_BYTES and out):
                    return out, position
                out.append(_filtered(row, names))
            position = (row["ts"], row["id"])
            scanned += 1
        if len(rows) < chunk:
            return out, None
        if scanned >= MAX_SCAN:
            return out, position
        chunk = min(chunk * 2, SCAN_CHUNK)


def _filtered(row: sqlite3.Row, names: dict[int, str]) -> dict[str, Any]:
    return {
        "logStreamName": names.get(row["stream_id"], ""),
        "timestamp": row["ts"],
        "message": row["message"],
        "ingestionTime": row["ingested"],
        "eventId": tokens.position(row["ts"], row["id"]),
    }


def _filter_after(token: str) -> tuple[int, int]:
    ts, event_id = tokens.decode("e", token, 2)
    if not isinstance(ts, int) or not isinstance(event_id, int):
        raise errors.invalid_token()
    return ts, event_id
