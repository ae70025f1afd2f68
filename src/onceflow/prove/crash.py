"""The `crash` kind: the server is killed (kill -9, its Lambda workers with it) after a Task's
call took effect and before its result is recorded, then restarted on the same store: the real
recovery path, which fails a call that may have run with the service's "outcome unknown" error
for the Task's Retry/Catch to decide.

It cannot run in the in-process sandbox (killing it would kill the prover), so each crash run
copies the user's store (the backup API again, into a private temporary folder, deleted after)
and runs `onceflow serve` on it as a child process group. The fault plan holds the call's answer
(`latency_ms` after the effect) while the child is killed. The kill comes once the effect is
made: for a Lambda task, when the faulted invocation's END line is in the function's log group
(the rule has fired and as many invocations of the function as the rule counts have ended); for a
DynamoDB task, DDB_GRACE_S after the rule fired. The child's writes are not in the ledger (it is
another process)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import boto3

from onceflow.prove.model import ProveError
from onceflow.prove.sandbox import CLIENT_CONFIG

READY = re.compile(r"onceflow ready at (http://\S+)")
HOLD_MS = 60_000  # the answer is held this long: the kill comes well before
DDB_GRACE_S = 0.3  # after a DynamoDB task's rule fired, for its write to commit before the kill
END_WAIT_S = 30.0  # at most this long for the faulted invocation's END line


class ChildServer:
    def __init__(self, data: Path, time_scale: float, faults_file: Path) -> None:
        self.data, self.time_scale, self.faults_file = data, time_scale, faults_file
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self, timeout: float = 60.0) -> ChildServer:
        args = [sys.executable, "-m", "onceflow", "serve", "--port", "0", "--data", str(self.data), "--time-scale",
                str(self.time_scale), "--faults", str(self.faults_file), "--log-level", "error"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                     start_new_session=True, stdin=subprocess.DEVNULL)
        found: list[str] = []

        def read() -> None:  # and keep draining, so the child never blocks on a full pipe
            assert self.proc is not None and self.proc.stdout is not None
            try:
                for line in self.proc.stdout:
                    if not found and (m := READY.search(line)):
                        found.append(m.group(1))
            except (ValueError, OSError):  # closed by kill()
                pass

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + timeout
        while not found and time.monotonic() < deadline and self.proc.poll() is None:
            time.sleep(0.01)
        if not found:
            self.kill()
            raise ProveError("the crash run's server did not start")
        self.url = found[0]
        return self

    def kill(self) -> None:
        """kill -9 of the whole process group: the server and its Lambda workers, as a crash."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(10)
        if self.proc is not None and self.proc.stdout is not None:
            try:
                self.proc.stdout.close()
            except (ValueError, OSError):
                pass

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                pass
        self.kill()  # workers left in the group, if any

    def client(self, service: str) -> Any:
        return boto3.session.Session().client(service, endpoint_url=self.url, region_name="us-east-1",
                                              aws_access_key_id="test", aws_secret_access_key="test",
                                              config=CLIENT_CONFIG)

    def fired(self) -> int:
        with urllib.request.urlopen(f"{self.url}/_onceflow/faults", timeout=10) as resp:
            return sum(int(r.get("fired", 0)) for r in json.loads(resp.read())["rules"])


def crash_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """A Task call's lost-response rule turned into a held answer (no error: the kill is the fault)."""
    out = {k: v for k, v in rule.items() if k != "error"}
    out["latency_ms"] = HOLD_MS
    out["description"] = out["description"].replace("lost-response", "crash (kill -9 while the answer is held)")
    return out


class CrashRun:
    """One crash run: returns (execution outcomes, the business tables' items after recovery)."""

    def __init__(self, source: Path, time_scale: float, where: tuple[str, str] = ("000000000000", "us-east-1")) -> None:
        self.source, self.time_scale = source, time_scale
        self.where = where  # the (account, region) whose queues are read

    def run(self, plan: list[dict[str, Any]], state_machine_arn: str, text: str, name: str,
            tables: list[str], wait_s: float) -> tuple[list[str], list[str], dict[str, Any]]:
        from onceflow.prove.effects import SQS, Effects, Queues
        from onceflow.store.db import Database

        folder = Path(tempfile.mkdtemp(prefix="onceflow-prove-crash-"))
        try:
            data = folder / "data"
            data.mkdir()
            _copy(self.source, data / "onceflow.db")
            plan_file, none_file = folder / "plan.json", folder / "none.json"
            plan_file.write_text(json.dumps({"rules": plan}))
            none_file.write_text('{"rules": []}')
            child = ChildServer(data, self.time_scale, plan_file).start()
            try:
                sfn = child.client("stepfunctions")
                started_ms = int(time.time() * 1000) - 1000
                arn = sfn.start_execution(stateMachineArn=state_machine_arn, name=name, input=text)["executionArn"]
                deadline = time.monotonic() + wait_s
                while child.fired() < 1:
                    if time.monotonic() > deadline:
                        raise ProveError(f"the crash point was never reached ({plan[0]['description']})")
                    time.sleep(0.005)
                self._await_effect(child, plan[0], started_ms)
            finally:
                child.kill()
            child = ChildServer(data, self.time_scale, none_file).start()
            try:
                sfn = child.client("stepfunctions")
                status = "RUNNING"
                deadline = time.monotonic() + wait_s
                while status == "RUNNING" and time.monotonic() < deadline:
                    status = str(sfn.describe_execution(executionArn=arn)["status"])
                    time.sleep(0.01)
                effects = Effects(child.client("dynamodb"), child.client("s3"), None, *self.where)
                got = {t: effects.items(t) for t in tables if not t.startswith(SQS)}
            finally:
                child.stop()
            if any(t.startswith(SQS) for t in tables):  # messages are read from their rows, the server gone
                db = Database(str(data / "onceflow.db"))
                try:
                    queues = Queues(db, *self.where)
                    got.update({t: queues.items(t) for t in tables if t.startswith(SQS)})
                finally:
                    db.close()
            return [status if status != "RUNNING" else "TIMED_OUT_WAITING"], [arn], got
        finally:
            shutil.rmtree(folder, ignore_errors=True)


    @staticmethod
    def _await_effect(child: ChildServer, rule: dict[str, Any], started_ms: int) -> None:
        if rule["service"] != "lambda":
            time.sleep(DDB_GRACE_S)
            return
        from onceflow.prove.ledger import function_name

        logs = child.client("logs")
        group = f"/aws/lambda/{function_name(rule['resource'])}"
        deadline = time.monotonic() + END_WAIT_S
        while time.monotonic() < deadline:
            try:
                events = logs.filter_log_events(logGroupName=group, startTime=started_ms,
                                                filterPattern='"END RequestId"')["events"]
            except logs.exceptions.ResourceNotFoundException:
                events = []
            if len(events) >= int(rule.get("skip", 0)) + 1:
                return
            time.sleep(0.01)
        raise ProveError(f"the faulted invocation did not end within {END_WAIT_S:.0f} s ({rule['description']})")


def _copy(source: Path, dest: Path) -> None:
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    out = sqlite3.connect(dest)
    try:
        src.backup(out)
    finally:
        out.close()
        src.close()
