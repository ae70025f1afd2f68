"""Map Runs: the child workflow executions a Distributed Map state starts, as AWS shows them.

A child runs as a hidden fiber of its parent's runtime (engine/states/fanout.py): its events are
the parent's rows of that fiber (negative ids, see runner.emit), and its summary row here
(sfn_map_children) is written in the parent's own commits, so a map run and its children are
never out of step with the parent's history. A child's history is read back from those rows,
framed by the ExecutionStarted / ExecutionSucceeded|Failed|Aborted events a child execution has.

UpdateMapRun changes the run's row and an in-memory override the running Map reads at its next
step (the next child that ends), as AWS applies a new concurrency to children not started yet.

StopExecution on a child closes its row ABORTED and pokes the running Map (`MapRuns.waiting`),
which cancels the child's fiber and counts it as an unsuccessful item (`MapRuns.stopped_in`: a
Map replayed after a restart reads the stopped children back from their rows).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from onceflow import pages
from onceflow.sfn import errors as E
from onceflow.sfn.described import describe_row
from onceflow.sfn.engine import events as ev
from onceflow.sfn.engine.state import event_from_row
from onceflow.sfn.names import ts

if TYPE_CHECKING:
    from onceflow.sfn.service import SfnService

RUN_COLUMNS = ("arn, exec_arn, sm_arn, label, child_type, status, start, stop, max_concurrency, tolerated_count, "
               "tolerated_percentage, total_items, total_execs, written, error, cause, seq, redrive_count, "
               "redrive_date, definition, root_arn")
CHILD_COLUMNS = ("arn, run_arn, idx, name, fiber, items, status, input, output, error, cause, start, stop, "
                 "redrive_count, redrive_date, attempts")
FINISHED = ("SUCCEEDED", "FAILED", "TIMED_OUT", "ABORTED")


@dataclass(frozen=True, slots=True)
class RunIds:
    """The names of one map run and of its children (stable across replays: uuid5 of the parent)."""

    arn: str  # arn:aws:states:<region>:<account>:mapRun:<machine>/<label>:<uuid>
    sm_arn: str  # the children's labelled state machine, stateMachine:<machine>/<label>
    prefix: str  # a child's ARN is prefix + its name
    run_id: uuid.UUID

    @classmethod
    def of(cls, row: Any, label: str, seed: str, express: bool) -> RunIds:
        region, account = row["region"], row["account"]
        part = row["sm_arn"].split(":")[1]  # the parent machine's partition
        machine = row["sm_arn"].rsplit(":", 1)[1]
        run_id = uuid.uuid5(uuid.NAMESPACE_URL, seed)
        # An EXPRESS child's ARN form is UNCONFIRMED: AWS documents only the STANDARD one and the
        # labelled machine's; a plain EXPRESS execution's is express:<machine>:<name>:<uuid>.
        kind = "express" if express else "execution"
        return cls(f"arn:{part}:states:{region}:{account}:mapRun:{machine}/{label}:{run_id}",
                   f"arn:{part}:states:{region}:{account}:stateMachine:{machine}/{label}",
                   f"arn:{part}:states:{region}:{account}:{kind}:{machine}/{label}:", run_id)

    def child_name(self, index: int) -> str:
        """As the ResultWriter's records name it (engine/states/result_writer.py)."""
        return _child_name(self.arn, index)


@lru_cache(maxsize=1 << 16)
def _child_name(run_arn: str, index: int) -> str:
    """Cached: a child's start, end and context object each need it."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{run_arn}#{index}"))


# ---------------------------------------------------------------------- writes (in the parent's commit)
def insert_run(conn: sqlite3.Connection, ids: RunIds, exec_arn: str, label: str, child_type: str, now: float,
               max_concurrency: int, count: int | None, percentage: float | None, total_items: int,
               total_execs: int, definition: str, root_arn: str) -> None:
    """A replayed Map writes its run again: the first row (its start, its updates) stays."""
    conn.execute(
        f"INSERT OR IGNORE INTO sfn_map_runs ({RUN_COLUMNS}) VALUES (?,?,?,?,?,'RUNNING',?,NULL,?,?,?,?,?,0,NULL,NULL,"
        "(SELECT COALESCE(MAX(seq), 0) + 1 FROM sfn_map_runs), 0, NULL, ?, ?)",
        (ids.arn, exec_arn, ids.sm_arn, label, child_type, now, max_concurrency, count, percentage, total_items,
         total_execs, definition, root_arn))


def close_run(conn: sqlite3.Connection, run_arn: str, status: str, now: float, error: str | None,
              cause: str | None) -> None:
    conn.execute("UPDATE sfn_map_runs SET status=?, stop=?, error=?, cause=? WHERE arn=? AND status='RUNNING'",
                 (status, now, error, cause, run_arn))
    conn.execute("UPDATE sfn_map_children SET status='ABORTED', stop=? WHERE run_arn=? AND status='RUNNING'",
                 (now, run_arn))


def results_written(conn: sqlite3.Connection, run_arn: str) -> None:
    conn.execute("UPDATE sfn_map_runs SET written=1 WHERE arn=?", (run_arn,))


def insert_child(conn: sqlite3.Connection, ids: RunIds, index: int, fiber: str, items: int, input_text: str,
                 now: float) -> None:
    """A child starts (again, after its run was redriven); a replayed start changes nothing."""
    name = ids.child_name(index)
    conn.execute(f"INSERT INTO sfn_map_children ({CHILD_COLUMNS}) "
                 "VALUES (?,?,?,?,?,?,'RUNNING',?,NULL,NULL,NULL,?,NULL,0,NULL,'[]') "
                 "ON CONFLICT (arn) DO UPDATE SET status='RUNNING', output=NULL, error=NULL, cause=NULL, stop=NULL "
                 "WHERE status='PENDING_REDRIVE'",
                 (ids.prefix + name, ids.arn, index, name, fiber, items, input_text, now))


def redrive_run(conn: sqlite3.Connection, run_arn: str, now: float) -> None:
    """The parent was redriven: the run goes on, and its unsuccessful children wait to run again."""
    conn.execute("UPDATE sfn_map_runs SET status='RUNNING', stop=NULL, error=NULL, cause=NULL, "
                 "redrive_count=redrive_count+1, redrive_date=? WHERE arn=?", (now, run_arn))
    # Each redriven child keeps how its earlier attempts ended, for its history.
    conn.execute("UPDATE sfn_map_children SET status='PENDING_REDRIVE', redrive_count=redrive_count+1, "
                 "redrive_date=?, attempts=json_insert(attempts, '$[#]', json_object('status', status, "
                 "'error', error, 'cause', cause, 'stop', COALESCE(stop, ?))) "
                 "WHERE run_arn=? AND status<>'SUCCEEDED'", (now, now, run_arn))


def close_child(conn: sqlite3.Connection, ids: RunIds, index: int, status: str, output: str | None,
                error: str | None, cause: str | None, now: float) -> None:
    conn.execute("UPDATE sfn_map_children SET status=?, output=?, error=?, cause=?, stop=? "
                 "WHERE arn=? AND status='RUNNING'",
                 (status, output, error, cause, now, ids.prefix + ids.child_name(index)))


# ---------------------------------------------------------------------- the API
class MapRuns:
    def __init__(self, service: SfnService) -> None:
        self.svc = service
        self.db = service.stack.db
        # UpdateMapRun's values for runs in progress: {run arn: (maxConcurrency, count, percentage)}
        self.overrides: dict[str, tuple[int, int | None, float | None]] = {}
        # Children stopped by StopExecution, per run in progress: {run arn: {index: (error, cause)}}
        self.stopped: dict[str, dict[int, tuple[str | None, str | None]]] = {}
        # How to wake each running Map waiting on its children: {run arn: poke}
        self.waiting: dict[str, Callable[[], None]] = {}
        self._mu = threading.Lock()
        for table in (self.overrides, self.stopped, self.waiting):
            service.stack.on_reset.append(table.clear)

    # ------------------------------------------------------------------ engine side
    def run_status(self, run_arn: str) -> str | None:
        row = self.db.query_one("SELECT status FROM sfn_map_runs WHERE arn=?", (run_arn,))
        return None if row is None else row[0]

    def stored_settings(self, run_arn: str) -> tuple[int, int | None, float | None] | None:
        """A run's settings as stored (a Map replayed after a restart keeps UpdateMapRun's values)."""
        if run_arn in self.overrides:
            return self.overrides[run_arn]
        row = self.db.query_one("SELECT max_concurrency, tolerated_count, tolerated_percentage FROM sfn_map_runs "
                                "WHERE arn=?", (run_arn,))
        return None if row is None else (row[0], row[1], row[2])

    def stopped_in(self, run_arn: str) -> dict[int, tuple[str | None, str | None]]:
        """The children of a running run that StopExecution stopped (read back once after a
        restart; a run not RUNNING in its row is new, or is being redriven: none)."""
        out = self.stopped.get(run_arn)
        if out is None:
            out = {}
            if self.run_status(run_arn) == "RUNNING":
                out = {idx: (error, cause) for idx, error, cause in self.db.query(
                    "SELECT idx, error, cause FROM sfn_map_children WHERE run_arn=? AND status='ABORTED'",
                    (run_arn,))}
            self.stopped[run_arn] = out
        return out

    def run_ended(self, run_arn: str) -> None:
        self.stopped.pop(run_arn, None)
        self.waiting.pop(run_arn, None)

    def stop_child(self, row: sqlite3.Row, error: str | None, cause: str | None) -> dict[str, Any]:
        """StopExecution on a child: it ends ABORTED now; the Map notices at its next step."""
        root = row["parent_arn"]
        with self.svc.engine.lock_for(root), self.db.transaction() as conn:
            status, stop = conn.execute("SELECT status, stop FROM sfn_map_children WHERE arn=?",
                                        (row["arn"],)).fetchone()
            if status != "RUNNING":  # ended already: as a finished execution answers
                return {"stopDate": ts(stop if stop is not None else time.time())}
            stop = time.time()
            # Before the commit: the Map must not count this child a success once its row says ABORTED.
            self.stopped_in(row["run_arn"])[row["idx"]] = (error, cause)
            conn.execute("UPDATE sfn_map_children SET status='ABORTED', error=?, cause=?, stop=? WHERE arn=?",
                         (error, cause, stop, row["arn"]))
        poke = self.waiting.get(row["run_arn"])
        if poke is not None:
            poke()
        self.svc.engine.wake(root)
        return {"stopDate": ts(stop)}

    def parent_closed(self, exec_arn: str) -> None:
        """The parent ended (stopped, timed out, failed elsewhere): its runs still going are aborted
        (called by SfnService._closed where its one read found such a run)."""
        now = time.time()
        with self.db.transaction() as conn:
            for (arn,) in conn.execute("SELECT arn FROM sfn_map_runs WHERE root_arn=? AND status='RUNNING'",
                                       (exec_arn,)).fetchall():
                close_run(conn, arn, "ABORTED", now, None, None)
                self.overrides.pop(arn, None)
                self.run_ended(arn)

    # ------------------------------------------------------------------ rows
    def run(self, arn: str) -> sqlite3.Row:
        parts = arn.split(":")
        if not arn.startswith("arn:") or len(parts) < 8 or parts[2] != "states" or parts[5] != "mapRun":
            raise E.invalid_arn(arn)
        row = self.db.query_one(f"SELECT {RUN_COLUMNS} FROM sfn_map_runs WHERE arn=?", (arn,))
        if row is None:
            raise E.resource_not_found(arn)
        return row

    def child(self, arn: str) -> sqlite3.Row | None:
        return self.db.query_one(
            f"SELECT c.{CHILD_COLUMNS.replace(', ', ', c.')}, r.sm_arn AS sm_arn, r.root_arn AS parent_arn, "
            "r.child_type AS child_type, r.label AS label, r.definition AS definition "
            "FROM sfn_map_children c JOIN sfn_map_runs r ON r.arn=c.run_arn "
            "WHERE c.arn=?", (arn,))

    # ------------------------------------------------------------------ DescribeMapRun
    def describe(self, arn: str) -> dict[str, Any]:
        row = self.run(arn)
        items: dict[str, int] = {k: 0 for k in ("running", "succeeded", "failed", "timedOut", "aborted")}
        execs = dict(items)
        key = {"RUNNING": "running", "SUCCEEDED": "succeeded", "FAILED": "failed", "TIMED_OUT": "timedOut",
               "ABORTED": "aborted"}
        redrive = {"items": 0, "execs": 0}  # children of a redriven run not started again yet
        for status, n, n_items in self.db.query(
                "SELECT status, COUNT(*), SUM(items) FROM sfn_map_children WHERE run_arn=? GROUP BY status", (arn,)):
            if status == "PENDING_REDRIVE":
                redrive["execs"], redrive["items"] = n, n_items or 0
                continue
            execs[key[status]] += n
            items[key[status]] += n_items or 0

        def counts(values: dict[str, int], total: int, pending_redrive: int) -> dict[str, int]:
            started = sum(values.values())
            done = started - values["running"]
            out = {"pending": max(0, total - started - pending_redrive), **values, "total": total,
                   "resultsWritten": done if row["written"] else 0}
            if row["redrive_count"]:
                out.update({"failuresNotRedrivable": 0, "pendingRedrive": pending_redrive})
            return out

        out: dict[str, Any] = {
            "mapRunArn": row["arn"], "executionArn": row["exec_arn"], "status": row["status"],
            "startDate": ts(row["start"]),
        }
        if row["stop"] is not None:
            out["stopDate"] = ts(row["stop"])
        out.update({
            "maxConcurrency": row["max_concurrency"],
            "toleratedFailurePercentage": float(row["tolerated_percentage"] or 0),
            "toleratedFailureCount": int(row["tolerated_count"] or 0),
            "itemCounts": counts(items, row["total_items"], redrive["items"]),
            "executionCounts": counts(execs, row["total_execs"], redrive["execs"]),
            "redriveCount": row["redrive_count"],
        })
        if row["redrive_date"] is not None:
            out["redriveDate"] = ts(row["redrive_date"])
        return out

    # ------------------------------------------------------------------ ListMapRuns
    def list(self, p: dict[str, Any]) -> dict[str, Any]:
        exec_arn = p["executionArn"]
        self.svc.map_child(exec_arn) or self.svc.execution(exec_arn)  # a child's own map runs too
        rows = self.db.query(f"SELECT {RUN_COLUMNS} FROM sfn_map_runs WHERE exec_arn=? ORDER BY seq DESC",
                             (exec_arn,))
        items = []
        for r in rows:
            # [AWS] the run's labelled machine, stateMachine:<machine>/<label>, as its children's
            # (test_sfn_api_map_run.snapshot.json, test_list_map_runs_and_describe_map_run)
            item = {"executionArn": r["exec_arn"], "mapRunArn": r["arn"], "stateMachineArn": r["sm_arn"],
                    "startDate": ts(r["start"])}
            if r["stop"] is not None:
                item["stopDate"] = ts(r["stop"])
            items.append(item)
        return self.svc.page(items, "mapRuns", p)

    # ------------------------------------------------------------------ UpdateMapRun
    def update(self, p: dict[str, Any]) -> None:
        arn = p["mapRunArn"]
        # Both refusals' wording is UNCONFIRMED: no AWS recording of either was found (API reference:
        # ValidationException; searched AWS docs and public issue threads).
        keys = ("maxConcurrency", "toleratedFailureCount", "toleratedFailurePercentage")
        if not any(p.get(k) is not None for k in keys):
            raise E.validation("Must provide at least one of maxConcurrency, toleratedFailurePercentage or "
                               "toleratedFailureCount")
        with self._mu, self.db.transaction() as conn:
            row = self.run(arn)
            if row["status"] != "RUNNING":
                raise E.validation(f"Map Run is not RUNNING: {arn}")
            concurrency = p["maxConcurrency"] if p.get("maxConcurrency") is not None else row["max_concurrency"]
            count = p["toleratedFailureCount"] if p.get("toleratedFailureCount") is not None \
                else row["tolerated_count"]
            pct = p["toleratedFailurePercentage"] if p.get("toleratedFailurePercentage") is not None \
                else row["tolerated_percentage"]
            conn.execute("UPDATE sfn_map_runs SET max_concurrency=?, tolerated_count=?, tolerated_percentage=? "
                         "WHERE arn=?", (concurrency, count, pct, arn))
            self.overrides[arn] = (concurrency, count, pct)
        self.svc.engine.wake(row["root_arn"])

    # ------------------------------------------------------------------ child executions
    def describe_child(self, row: sqlite3.Row) -> dict[str, Any]:
        out = describe_row(row, "REDRIVABLE_BY_MAP_RUN")
        out["mapRunArn"] = row["run_arn"]
        return out

    def machine_for_child(self, row: sqlite3.Row) -> dict[str, Any]:
        """DescribeStateMachineForExecution of a child: the Map's ItemProcessor, as its own machine."""
        parent = self.svc.store.get_execution(row["parent_arn"])
        machine = self.svc.store.get_machine(parent["sm_arn"]) if parent is not None else None
        updated = (machine["updated"] or machine["created"]) if machine is not None else row["start"]
        return {"stateMachineArn": row["sm_arn"], "name": row["sm_arn"].rsplit(":", 1)[1],
                "definition": row["definition"], "roleArn": parent["role_arn"] if parent is not None else "",
                "updateDate": ts(updated), "mapRunArn": row["run_arn"], "label": row["label"]}

    def list_children(self, p: dict[str, Any]) -> dict[str, Any]:
        run = self.run(p["mapRunArn"])
        sql = f"SELECT {CHILD_COLUMNS} FROM sfn_map_children WHERE run_arn=?"
        args: list[Any] = [run["arn"]]
        if p.get("statusFilter"):
            sql += " AND status=?"
            args.append(p["statusFilter"])
        if p.get("redriveFilter"):
            sql += " AND redrive_count>0" if p["redriveFilter"] == "REDRIVEN" else " AND redrive_count=0"
        rows = self.db.query(sql + " ORDER BY start DESC, idx DESC", args)
        items = []
        for r in rows:
            item = {"executionArn": r["arn"], "stateMachineArn": run["sm_arn"], "name": r["name"],
                    "status": r["status"], "startDate": ts(r["start"])}
            if r["stop"] is not None:
                item["stopDate"] = ts(r["stop"])
            item["mapRunArn"] = run["arn"]
            item["itemCount"] = r["items"]
            # ListExecutions names redriveCount on every item, 0 too (AWS's recordings of it by
            # stateMachineArn; by mapRunArn the same item shape, UNCONFIRMED)
            item["redriveCount"] = r["redrive_count"]
            if r["redrive_count"]:
                item["redriveDate"] = ts(r["redrive_date"])
            items.append(item)
        return self.svc.page(items, "executions", p)

    def child_history(self, row: sqlite3.Row, p: dict[str, Any]) -> dict[str, Any]:
        """The child's own history: its fiber's rows in the parent, numbered from 1 and chained in
        order, between ExecutionStarted and the event that closed it (a map run of its own keeps
        its children's events to them)."""
        fiber = row["fiber"]
        rows = self.db.query(
            "SELECT id, prev, type, ts, details, fiber FROM sfn_events WHERE exec_arn=? AND id<0 "
            "AND (fiber=? OR (fiber LIKE ? AND instr(substr(fiber, ?), '~')=0)) ORDER BY id DESC",
            (row["parent_arn"], fiber, fiber + ".%", len(fiber) + 1))
        parent = self.svc.store.get_execution(row["parent_arn"])
        started = {"input": row["input"], "inputDetails": {"truncated": False},
                   "roleArn": parent["role_arn"] if parent is not None else ""}
        events = [ev.Event(1, 0, "ExecutionStarted", row["start"], started, "r")]

        def add(kind: str, ts_: float, details: dict[str, Any] | None) -> None:
            events.append(ev.Event(len(events) + 1, len(events), kind, ts_, details, "r"))

        # Earlier attempts (a redriven run): their events, how each ended, ExecutionRedriven.
        attempts = json.loads(row["attempts"] or "[]")
        done = 0

        def close_attempts(before: float | None) -> None:
            nonlocal done
            while done < len(attempts) and (before is None or before > attempts[done]["stop"]):
                a = attempts[done]
                kind, details = _closing(a["status"], None, a["error"], a["cause"])
                add(kind, a["stop"], details)
                done += 1
                add("ExecutionRedriven", a["stop"], {"redriveCount": done})

        for r in rows:
            e = event_from_row(r)
            close_attempts(e.ts)
            add(e.type, e.ts, e.details)
        close_attempts(None)
        if row["status"] in FINISHED:
            kind, details = _closing(row["status"], row["output"], row["error"], row["cause"])
            add(kind, row["stop"] or row["start"], details)
        if p.get("reverseOrder"):
            events.reverse()
        given = p.get("nextToken")
        start = pages.offset_of(given, lambda: E.invalid_page_token(str(given)))
        size = p.get("maxResults") or 100
        include = p.get("includeExecutionData", True)
        out: dict[str, Any] = {"events": [e.to_api(include) for e in events[start:start + size]]}
        if start + size < len(events):
            out["nextToken"] = pages.offset_token(start + size)
        return out


def _closing(status: str, output: str | None, error: str | None, cause: str | None) -> tuple[str, dict[str, Any]]:
    """The event that ended a child (or one of its attempts) and its details."""
    if status == "SUCCEEDED":
        return "ExecutionSucceeded", {"output": output, "outputDetails": {"truncated": False}}
    if status == "FAILED":
        return "ExecutionFailed", ev.error_cause(error, cause)
    if status == "TIMED_OUT":
        return "ExecutionTimedOut", {}
    return "ExecutionAborted", ev.error_cause(error, cause)  # StopExecution's error and cause, if given
