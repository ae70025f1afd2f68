"""Logs Insights queries: StartQuery parses the query at once (MalformedQueryException) and runs it
on a worker thread over the stored events; GetQueryResults, StopQuery and DescribeQueries read
its state. Query definitions are rows.

A query is a row from StartQuery on, its results stored when it ends (kept 7 days, as AWS keeps
them, and at most store.MAX_KEPT queries); while it runs its state is in memory. A restart runs the
queries it interrupted again from the start.
"""

from __future__ import annotations

import functools
import heapq
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from onceflow.errors import ServiceError
from onceflow.logs import errors, tokens
from onceflow.logs import store as logs_store
from onceflow.logs.index_policies import indexed_fields
from onceflow.logs.insights import ppl, store
from onceflow.logs.insights.evaluate import QueryError
from onceflow.logs.insights.query import Query, QuerySyntaxError, Source, parse
from onceflow.logs.insights.run import (
    Event,
    calls_unmask,
    discover,
    index_fields,
    needs_message,
    run,
    source_of,
)
from onceflow.logs.service import LogsService
from onceflow.store.db import Database

log = logging.getLogger("onceflow.logs")
MAX_GROUPS = 50
MAX_SOURCED = 10_000  # log groups a SOURCE command may select (CWL_QuerySyntax-Source)
PAGE = 5000
WORKERS = 2
RUNNING = ("Scheduled", "Running")
PARSERS: dict[str, Callable[[str], Query]] = {"CWLI": parse, "PPL": ppl.parse}


@dataclass
class QueryRun:
    id: str
    account: str
    region: str
    text: str
    groups: list[str]
    created: int
    start: int  # ms, inclusive
    end: int
    limit: int | None
    language: str = "CWLI"
    status: str = "Scheduled"
    results: list[Any] = field(default_factory=list)
    statistics: dict[str, float] = field(default_factory=lambda: QueryRun.empty_statistics())
    cancel: threading.Event = field(default_factory=threading.Event)
    duration: int = 0

    @staticmethod
    def empty_statistics() -> dict[str, float]:
        return {"recordsMatched": 0.0, "recordsScanned": 0.0, "estimatedRecordsSkipped": 0.0, "bytesScanned": 0.0,
                "estimatedBytesSkipped": 0.0, "logGroupsScanned": 0.0}


def malformed(e: QuerySyntaxError | QueryError, text: str) -> ServiceError:
    start, end = (e.start, e.end) if isinstance(e, QuerySyntaxError) else (0, max(len(text) - 1, 0))
    return ServiceError("MalformedQueryException", str(e), 400, extra={"queryCompileError": {
        "location": {"startCharOffset": start, "endCharOffset": end}, "message": str(e)}})


class _Cancelled(Exception):
    pass


class Insights:
    def __init__(self, db: Database, logs: LogsService) -> None:
        self.db = db
        self.logs = logs
        self.live: dict[str, QueryRun] = {}  # the queries running, by id
        self.lock = threading.Lock()
        self.pool: ThreadPoolExecutor | None = None

    # -------------------------------------------------------------- queries
    def start(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        language = p.get("queryLanguage") or "CWLI"
        if language not in PARSERS:
            # onceflow's own refusal: AWS runs OpenSearch SQL too.
            raise errors.invalid_parameter(f"Query language {language} is not supported by onceflow: use CWLI or PPL")
        text = p["queryString"]
        try:
            q: Query | None = PARSERS[language](text)
        except QuerySyntaxError as e:
            if text.lstrip()[:6].upper() == "SOURCE":  # it was to name the groups: nothing else to check first
                raise malformed(e, text) from None
            q = None  # refused below, once the parameters have been checked
        source = source_of(q) if q is not None else None
        groups = self._groups(account, region, p) if source is None else self._sourced(account, region, p, source)
        if p["endTime"] < p["startTime"]:
            # UNCONFIRMED wording.
            raise errors.invalid_parameter("End time should not be before the start time")
        try:
            q = PARSERS[language](text) if q is None else q
            run(q, iter(()))  # compiles every expression, regex and aggregate: their errors come now
        except (QuerySyntaxError, QueryError) as e:
            raise malformed(e, text) from None
        ids = self._group_ids(account, region, groups)
        qr = QueryRun(str(uuid.uuid4()), account, region, text, groups, int(time.time()), p["startTime"] * 1000,
                      p["endTime"] * 1000 + 999, p.get("limit"), language)
        with self.db.transaction() as conn:
            store.add_query(conn, {"id": qr.id, "account": account, "region": region, "query": text,
                                   "groups": json.dumps(groups), "created": qr.created, "start_ms": qr.start,
                                   "end_ms": qr.end, "lim": qr.limit, "status": qr.status,
                                   "language": language})
        self._submit(qr, ids)
        return {"queryId": qr.id}

    def _submit(self, qr: QueryRun, ids: dict[int, str]) -> None:
        with self.lock:
            self.live[qr.id] = qr
            if self.pool is None:
                self.pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="logs-insights")
            pool = self.pool
        pool.submit(self._run, qr, ids)

    def resume(self) -> None:
        """Run again the queries a restart interrupted (their events are still stored)."""
        for row in self.db.read(store.unfinished):
            qr = QueryRun(row["id"], row["account"], row["region"], row["query"], json.loads(row["groups"]),
                          row["created"], row["start_ms"], row["end_ms"], row["lim"], row["language"])
            try:
                ids = self._group_ids(qr.account, qr.region, qr.groups)
            except ServiceError:  # a log group was deleted meanwhile
                self._finish(qr, "Failed")
                continue
            self._submit(qr, ids)

    def _groups(self, account: str, region: str, p: dict[str, Any]) -> list[str]:
        given = [k for k in ("logGroupName", "logGroupNames", "logGroupIdentifiers") if p.get(k)]
        if len(given) != 1:
            # UNCONFIRMED wording: AWS wants exactly one of the three, or a SOURCE command (_sourced).
            raise errors.invalid_parameter("Exactly one of logGroupName, logGroupNames or logGroupIdentifiers "
                                           "must be specified")
        names = list(dict.fromkeys(self.logs.query_group_names(account, region, p)))
        if len(names) > MAX_GROUPS:
            raise ServiceError("LimitExceededException", f"A query can search at most {MAX_GROUPS} log groups", 400)
        return names

    def _sourced(self, account: str, region: str, p: dict[str, Any], source: Source) -> list[str]:
        """The log groups a SOURCE command selects: by name prefix and class, in the caller's account."""
        if any(p.get(k) for k in ("logGroupName", "logGroupNames", "logGroupIdentifiers")):
            # UNCONFIRMED wording: StartQuery takes the groups either as parameters or from SOURCE.
            raise errors.invalid_parameter("A query with a SOURCE command cannot also specify logGroupName, "
                                           "logGroupNames or logGroupIdentifiers")
        if source.accounts is not None and account not in source.accounts:
            return []  # no linked source accounts: cross-account observability is not modelled

        def read(conn: Any) -> list[str]:
            rows = conn.execute("SELECT name, class FROM logs_groups WHERE account=? AND region=? ORDER BY name",
                                (account, region)).fetchall()
            return [r["name"] for r in rows if r["class"] in source.classes and (
                source.prefixes is None or any(r["name"].startswith(x) for x in source.prefixes))]

        names: list[str] = self.db.read(read)
        if len(names) > MAX_SOURCED:
            # UNCONFIRMED wording; the limit is the SOURCE page's.
            raise ServiceError("LimitExceededException", f"The SOURCE command selected more than {MAX_SOURCED} "
                               "log groups: select fewer, by name prefix or log class", 400)
        return names

    def _group_ids(self, account: str, region: str, names: list[str]) -> dict[int, str]:
        def read(conn: Any) -> dict[int, str]:
            out = {}
            for name in names:
                row = logs_store.get_group(conn, account, region, name)
                if row is None:
                    raise errors.query_group_not_found(name, account)
                out[row["id"]] = name
            return out
        return self.db.read(read)

    def _run(self, qr: QueryRun, groups: dict[int, str]) -> None:
        began = time.monotonic()
        if qr.cancel.is_set():  # stopped before it began
            self._finish(qr, "Cancelled")
            return
        qr.status = "Running"
        try:
            q = PARSERS[qr.language](qr.text)
            groups = self._indexed(qr, groups, index_fields(q))
            outcome = run(q, self._events(qr, groups, qr.start, qr.end, needs_message(q)), qr.limit or 10_000)
        except _Cancelled:
            self._finish(qr, "Cancelled", began)
            return
        except Exception:  # a bug, not the query's fault (it compiled): Failed, and the trace logged
            log.exception("Logs Insights query %s failed", qr.id)
            self._finish(qr, "Failed", began)
            return
        qr.statistics.update(recordsMatched=float(outcome.matched), recordsScanned=float(outcome.scanned),
                             bytesScanned=float(outcome.bytes), logGroupsScanned=float(len(groups)),
                             estimatedRecordsSkipped=float(outcome.skipped),
                             estimatedBytesSkipped=float(outcome.skipped_bytes))
        qr.results = outcome.rows
        self._finish(qr, "Cancelled" if qr.cancel.is_set() else "Complete", began)

    def _finish(self, qr: QueryRun, status: str, began: float | None = None) -> None:
        """Store the outcome, then let the query leave memory (readers find the row from then on)."""
        if began is not None:
            qr.duration = int((time.monotonic() - began) * 1000)
        if qr.cancel.is_set() and self.live.get(qr.id) is not qr:
            return  # forgotten by a reset: its row is gone
        with self.db.transaction() as conn:
            store.finish_query(conn, qr.id, status, qr.results if status == "Complete" else [], qr.statistics,
                               qr.duration)
        qr.status = status
        with self.lock:
            if self.live.get(qr.id) is qr:
                del self.live[qr.id]

    def _indexed(self, qr: QueryRun, groups: dict[int, str], needed: set[str]) -> dict[int, str]:
        """The groups a filterIndex query scans: those with a field index on every field it names."""
        if not needed:
            return groups
        return self.db.read(lambda conn: {
            gid: name for gid, name in groups.items()
            if needed <= indexed_fields(conn, qr.account, qr.region, name)})

    def _events(self, qr: QueryRun, groups: dict[int, str], start: int, end: int,
                with_message: bool) -> Iterator[Event]:
        """Every group's events in the range, merged newest first ((timestamp, id) descending): the
        order a query's rows keep when it does not sort."""
        each = [self._group_events(qr, gid, name, start, end, with_message) for gid, name in groups.items()]
        if not each:
            return iter(())
        return each[0] if len(each) == 1 else heapq.merge(*each, key=lambda e: (e.ts, e.id), reverse=True)

    def _group_events(self, qr: QueryRun, group_id: int, name: str, start: int, end: int,
                      with_message: bool) -> Iterator[Event]:
        log = f"{qr.account}:{name}"
        streams: dict[int, str] = {}
        before = (end + 1, 0)
        while True:
            if qr.cancel.is_set():
                raise _Cancelled
            rows = self.db.read(functools.partial(store.event_page, group_id=group_id, start=start, end=end,
                                                  before=before, limit=PAGE, with_message=with_message))
            if any(r[1] not in streams for r in rows):
                streams = self.db.read(lambda conn: logs_store.stream_names(conn, group_id))
            for event_id, stream_id, ts, ingested, message, size in rows:
                yield Event(event_id, log, streams.get(stream_id, ""), ts, ingested, message, size)
            if len(rows) < PAGE:
                return
            before = (rows[-1][2], rows[-1][0])

    def _row(self, account: str, region: str, query_id: str) -> Any:
        row = self.db.read(lambda conn: store.get_query(conn, account, region, query_id))
        if row is None:
            # UNCONFIRMED wording.
            raise ServiceError("ResourceNotFoundException", "Query does not exist.", 400)
        return row

    def results(self, account: str, region: str, query_id: str) -> dict[str, Any]:
        qr = self.live.get(query_id)
        if qr is not None and (qr.account, qr.region) == (account, region):
            return {"queryLanguage": qr.language, "results": [], "statistics": dict(qr.statistics),
                    "status": qr.status}
        row = self._row(account, region, query_id)
        return {"queryLanguage": row["language"], "results": json.loads(row["results"]),
                "statistics": json.loads(row["statistics"]) or QueryRun.empty_statistics(), "status": row["status"]}

    def stop(self, account: str, region: str, query_id: str) -> dict[str, Any]:
        self._row(account, region, query_id)
        qr = self.live.get(query_id)
        if qr is None or qr.status not in RUNNING:
            # The model documents that StopQuery on a finished query is an error (UNCONFIRMED wording).
            raise errors.invalid_parameter(f"Query {query_id} is not running")
        qr.cancel.set()
        qr.status = "Cancelled"
        with self.db.transaction() as conn:
            store.set_status(conn, query_id, "Cancelled")
        return {"success": True}

    def describe(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        found = []
        for row in self.db.read(lambda conn: store.list_queries(conn, account, region)):
            qr = self.live.get(row["id"])
            status = qr.status if qr is not None else row["status"]
            groups = json.loads(row["groups"])
            if p.get("status") and status != p["status"]:
                continue
            if p.get("logGroupName") and p["logGroupName"] not in groups:
                continue
            stats = qr.statistics if qr is not None else json.loads(row["statistics"])
            entry = {"queryLanguage": row["language"], "queryId": row["id"],
                     "queryString": _described(row["query"], groups, row["start_ms"], row["end_ms"]),
                     "status": status, "createTime": row["created"] * 1000,
                     "queryDuration": qr.duration if qr is not None else row["duration"],
                     "bytesScanned": stats.get("bytesScanned", 0.0)}
            if groups:  # a SOURCE command may have selected none
                entry["logGroupName"] = groups[0]
            found.append(entry)
        offset = _offset(p.get("nextToken"), "queries")
        size = p.get("maxResults") or 1000
        out: dict[str, Any] = {"queries": found[offset:offset + size]}
        if offset + size < len(found):
            out["nextToken"] = tokens.encode("queries", [offset + size])
        return out

    def log_record(self, account: str, region: str, pointer: str) -> dict[str, Any]:
        row = None
        if pointer.isdigit():
            row = self.db.read(lambda conn: store.event_by_id(conn, account, region, int(pointer)))
        if row is None:
            # UNCONFIRMED wording.
            raise errors.invalid_parameter("The specified log record pointer is not valid")
        record = {"@timestamp": str(row["ts"]), "@message": row["message"], "@logStream": row["stream_name"],
                  "@log": f"{account}:{row['group_name']}", "@ingestionTime": str(row["ingested"])}
        record.update({k: v if isinstance(v, str) else json.dumps(v) for k, v in discover(row["message"]).items()})
        return {"logRecord": record}

    def forget(self) -> None:
        with self.lock:
            for qr in self.live.values():
                qr.cancel.set()
            self.live.clear()

    def shutdown(self) -> None:
        self.forget()
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)

    # -------------------------------------------------------------- definitions
    def put_definition(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        def_id = p.get("queryDefinitionId") or str(uuid.uuid4())
        with self.db.transaction() as conn:
            row = conn.execute("SELECT account, region FROM logs_query_definitions WHERE id=?", (def_id,)).fetchone()
            if p.get("queryDefinitionId") and (row is None or (row["account"], row["region"]) != (account, region)):
                # UNCONFIRMED wording.
                raise ServiceError("ResourceNotFoundException", "Query definition does not exist.", 400)
            conn.execute(
                "INSERT INTO logs_query_definitions (id, account, region, name, language, query, groups, modified)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name=excluded.name,"
                " language=excluded.language, query=excluded.query, groups=excluded.groups,"
                " modified=excluded.modified",
                (def_id, account, region, p["name"], p.get("queryLanguage") or "CWLI", p["queryString"],
                 json.dumps(p.get("logGroupNames") or []), int(time.time() * 1000)))
        return {"queryDefinitionId": def_id}

    def describe_definitions(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        prefix = p.get("queryDefinitionNamePrefix") or ""
        rows = self.db.query(
            "SELECT * FROM logs_query_definitions WHERE account=? AND region=? AND substr(name, 1, ?) = ?"
            " ORDER BY name, id", (account, region, len(prefix), prefix))
        rows = [r for r in rows if not p.get("queryLanguage") or r["language"] == p["queryLanguage"]]
        offset = _offset(p.get("nextToken"), "query-definitions")
        size = p.get("maxResults") or 1000
        out: dict[str, Any] = {"queryDefinitions": [store.definition_shape(r) for r in rows[offset:offset + size]]}
        if offset + size < len(rows):
            out["nextToken"] = tokens.encode("query-definitions", [offset + size])
        return out

    def delete_definition(self, account: str, region: str, def_id: str) -> dict[str, Any]:
        with self.db.transaction() as conn:
            gone = conn.execute("DELETE FROM logs_query_definitions WHERE id=? AND account=? AND region=?",
                                (def_id, account, region)).rowcount
        if not gone:
            raise ServiceError("ResourceNotFoundException", "Query definition does not exist.", 400)
        return {"success": True}


def _offset(token: str | None, kind: str) -> int:
    """Where a Describe* page of `kind` starts: the offset its token (tokens.py, the Describe* codec) names."""
    if not token:
        return 0
    (offset,) = tokens.decode(kind, token, 1)
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise errors.invalid_token()
    return offset


def query_unmasks(text: str, language: str | None = None) -> bool:
    """Whether a StartQuery's query calls unmask(), read by its own language's parser (a query that
    does not parse, or in a language onceflow does not run, asks for nothing: StartQuery refuses it)."""
    parser = PARSERS.get(language or "CWLI")
    if parser is None:
        return False
    try:
        return calls_unmask(parser(text))
    except QuerySyntaxError:
        return False


__all__ = ["Insights", "QueryRun", "query_unmasks"]


def _described(text: str, groups: list[str], start_ms: int, end_ms: int) -> str:
    """The queryString DescribeQueries shows: AWS writes the query's groups and time range before it as a
    SOURCE command (snapshot-recorded for one group: `SOURCE "<group>" START=<ms> END=<ms> | fields @message`;
    UNCONFIRMED how several groups are listed, here one quoted name after another)."""
    if text.lstrip()[:6].upper() == "SOURCE":  # the query chose its groups itself: shown as written (UNCONFIRMED)
        return text
    names = " ".join(f'"{g}"' for g in groups)
    return f"SOURCE {names} START={start_ms} END={end_ms} | {text}"
