"""Warm worker processes: one invocation at a time per worker, reused per function version+config.

`Pool.invoke` takes an idle worker for the spec's key or forks a new one (from the zygote of the
spec's interpreter), sends the event, and blocks on the worker's socket until the result, the
timeout (the worker is killed) or the worker's death. The number of live workers is bounded; past
the bound an invocation first evicts an idle worker of another function, else waits for one to be
released. Workers of an older revision are retired (killed) when the function changes.

Provisioned concurrency reserves workers per key (`provision`): those started by `prewarm(...,
provisioned=True)` are marked and, while their key stays reserved, neither evicted for another
function nor retired by a change of the function (a published version's code does not change).
Only when every idle worker is a reserved one does an invocation evict one of them, rather than wait
for ever on a pool that provisioned workers fill. They are still replaced when their role session
nears its end (_MAX_AGE_S), as Lambda recycles provisioned environments too.

Log lines go to the invocation's LogSink as they arrive (never gathered whole: a handler printing
100 MB costs the server a batch, not 100 MB). With a Sandbox, each worker runs from the place and
as the uid the sandbox gives its function, within the spec's MemorySize and EphemeralStorage.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from onceflow.lambda_.runtime import protocol
from onceflow.lambda_.runtime.confine import Limits
from onceflow.lambda_.runtime.sandbox import Sandbox
from onceflow.lambda_.runtime.zygote_client import ZygoteClient

_MAX_AGE_S = 50 * 60  # role session credentials last an hour: replace workers before they expire

# Called with the request id in the invoking thread just before an invocation is written to its
# worker. A caller that must know whether its call was handed over sets it around the call (Step
# Functions writes a durable mark, for crash recovery); it may raise to withhold the call.
DISPATCH_HOOK: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "lambda_dispatch_hook", default=None)


@dataclass(frozen=True)
class WorkerSpec:
    key: str  # workers are shared only between invocations with the same key (version + revision)
    function_id: str  # account/region/name: what retire() matches
    version: str  # "$LATEST" or "3", for the log stream name
    task_root: str
    handler: str
    timeout_s: float
    make_env: Callable[[str], dict[str, str]]  # log stream name -> the worker's environment
    interpreter: str | None = None
    memory_mb: int | None = None  # MemorySize: a hard limit (None: unbounded)
    ephemeral_mb: int | None = None  # EphemeralStorage: the size of /tmp
    opt_root: str | None = None  # the function's layers laid out as /opt would hold them
    # how long its init may run, if not timeout_s (provisioned concurrency: invoke_provisioned.py)
    init_timeout_s: float | None = None


class LogSink(Protocol):
    """Where an invocation's log lines go, in order: begin (the worker's stream; cold start or not),
    the init lines on a cold start, start (the handler is called), the handler's lines."""

    def begin(self, log_stream: str, cold: bool) -> None: ...

    def start(self) -> None: ...

    def line(self, ts: int, msg: str) -> None: ...


class _Collect:
    """The sink when the caller gives none: lines kept on the Outcome (tests, benchmarks)."""

    def __init__(self) -> None:
        self.init: list[tuple[int, str]] = []
        self.logs: list[tuple[int, str]] = []
        self._into = self.init

    def begin(self, log_stream: str, cold: bool) -> None:
        pass

    def start(self) -> None:
        self._into = self.logs

    def line(self, ts: int, msg: str) -> None:
        self._into.append((ts, msg))


@dataclass
class Outcome:
    """What one invocation produced; the service turns it into the Invoke response and log lines."""

    ok: bool
    payload: bytes
    log_stream: str
    logs: list[tuple[int, str]] = field(default_factory=list)
    init_logs: list[tuple[int, str]] = field(default_factory=list)  # printed during init (cold start)
    duration_ms: float = 0.0
    init_ms: float | None = None  # set on a cold start
    mem_mb: int = 0
    status: str | None = None  # None, "timeout" or "error" (the REPORT line's Status)
    error_type: str | None = None
    too_large: int = 0  # the size of a result Lambda would not return (Function.ResponseSizeTooLarge)


@dataclass(eq=False)
class Worker:
    pid: int
    sock: socket.socket
    spec: WorkerSpec
    log_stream: str
    zygote: ZygoteClient
    tmp_dir: str | None = None
    private_tmp: bool = False  # its /tmp is a tmpfs of its own mount namespace
    born: float = field(default_factory=time.monotonic)
    init_ms: float = 0.0
    init_error: dict[str, Any] | None = None
    mem_mb: int = 0
    access_key: str | None = None  # the credentials the handler calls with (recognizes nested invokes)
    serving: str | None = None  # the request id it runs now (the effect ledger attributes its calls by it)
    retired: bool = False
    dead: bool = False
    provisioned: bool = False  # started for provisioned concurrency (kept while its key is reserved)

    def kill(self) -> None:
        if not self.dead:
            self.dead = True
            for kill in (os.killpg, os.kill) if self.pid > 0 else ():
                with contextlib.suppress(OSError):
                    kill(self.pid, signal.SIGKILL)
            Sandbox.drop_tmp(self.tmp_dir)
        with contextlib.suppress(OSError):
            self.sock.close()


def log_stream_name(version: str) -> str:
    return f"{datetime.now(UTC):%Y/%m/%d}/[{version}]{uuid.uuid4().hex}"


class Pool:
    def __init__(
        self, max_workers: int, interpreters: dict[str, str] | None = None, sandbox: Sandbox | None = None
    ) -> None:
        self.max_workers = max(1, max_workers)
        self.sandbox = sandbox
        self._interpreters = dict(interpreters or {})
        self._zygotes: dict[str, ZygoteClient] = {}
        self._cond = threading.Condition()
        self._idle: dict[str, list[Worker]] = {}
        self._busy: set[Worker] = set()
        self._live = 0
        self._closed = False
        self._reserved: dict[str, tuple[str, int]] = {}  # spec key -> (function id, provisioned count)
        self._prewarm_failed: set[str] = set()  # spec keys whose last provisioned start failed its init
        # (function id, spec key) -> /tmp folders kept from workers a timeout ended, for their successors
        self._carried: dict[tuple[str, str], list[str]] = {}

    # ------------------------------------------------------------------ public
    def invoke(
        self,
        spec: WorkerSpec,
        request_id: str,
        invoked_arn: str,
        payload: bytes,
        client_context: Any = None,
        caller_key: str | None = None,
        sink: LogSink | None = None,
    ) -> Outcome:
        """Run one invocation. `caller_key` is the caller's access key: a handler invoking a function
        (its key is a busy worker's) may exceed the bound, or nested calls could wait on each other.
        Without a sink, the log lines are returned on the Outcome."""
        collect = _Collect() if sink is None else None
        sink = sink or collect
        assert sink is not None
        worker, cold = self._acquire(spec, sink, caller_key)
        worker.serving = request_id
        try:
            if not cold:
                sink.begin(worker.log_stream, False)
            sink.start()
            if worker.init_error is not None:
                outcome = self._init_failed(worker, request_id)
            else:
                outcome = self._run(worker, request_id, invoked_arn, payload, client_context, sink)
                if cold:
                    outcome.init_ms = worker.init_ms
            if collect is not None:
                outcome.init_logs, outcome.logs = collect.init, collect.logs
            return outcome
        finally:
            self._release(worker)

    def retire(self, function_id: str) -> None:
        """Kill the idle workers of a function and mark its busy ones to die when released, but for
        the provisioned workers of keys still reserved."""
        self._drop_carried(function_id)
        with self._cond:
            for key in list(self._idle):
                keep = []
                for worker in self._idle[key]:
                    if worker.spec.function_id == function_id and not self._kept(worker):
                        worker.kill()
                        self._live -= 1
                    else:
                        keep.append(worker)
                if keep:
                    self._idle[key] = keep
                else:
                    del self._idle[key]
            for worker in self._busy:
                if worker.spec.function_id == function_id and not self._kept(worker):
                    worker.retired = True
            self._cond.notify_all()

    def provision(self, function_id: str, reserved: dict[str, int]) -> None:
        """The keys of a function that have provisioned concurrency now, with their counts; the
        marked workers of keys no longer reserved become ordinary (evictable, retired on change)."""
        with self._cond:
            self._reserved = {k: v for k, v in self._reserved.items() if v[0] != function_id}
            self._reserved.update({key: (function_id, count) for key, count in reserved.items() if count > 0})
            for worker in [*self._busy, *(w for ws in self._idle.values() for w in ws)]:
                if worker.spec.function_id == function_id and worker.spec.key not in self._reserved:
                    worker.provisioned = False

    def _kept(self, worker: Worker) -> bool:
        return worker.provisioned and worker.spec.key in self._reserved

    def provisioned_state(self, key: str) -> tuple[int, bool]:
        """How many marked workers a spec key has now, and whether its last provisioned start failed
        its init (what GetProvisionedConcurrencyConfig reports as allocated, or FAILED)."""
        with self._cond:
            return self._marked(key), key in self._prewarm_failed

    def _marked(self, key: str) -> int:
        idle = sum(1 for w in self._idle.get(key, ()) if w.provisioned)
        return idle + sum(1 for w in self._busy if w.spec.key == key and w.provisioned)

    def retire_all(self) -> None:
        with self._cond:
            self._reserved.clear()
            for workers in self._idle.values():
                for worker in workers:
                    worker.kill()
                    self._live -= 1
            self._idle.clear()
            for worker in self._busy:
                worker.retired = True
            self._cond.notify_all()

    def prewarm(self, spec: WorkerSpec, count: int, provisioned: bool = False) -> int:
        """Start up to `count` workers for spec and leave them idle, within the bound on live workers;
        returns how many started. `provisioned`: the key is reserved for `count` marked workers, and
        only the missing ones start."""
        held: list[Worker] = []
        if provisioned:
            with self._cond:
                self._reserved[spec.key] = (spec.function_id, count)
                count -= self._marked(spec.key)
                if count <= 0:
                    self._prewarm_failed.discard(spec.key)
                # else a failed key stays failed until a start succeeds: another config's pass that
                # tries it again does not show it READY meanwhile
        try:
            for _ in range(max(0, count)):
                with self._cond:
                    full = self._live >= self.max_workers
                    # Provisioned concurrency takes the place of an idle ordinary worker, as an invocation
                    # would: else a pool full of other functions' idle workers would leave it cold.
                    if self._closed or (full and not (provisioned and self._evict_one_idle(kept_too=False))):
                        break
                    self._live += 1
                try:
                    worker = self._spawn(spec, _Collect())
                except BaseException:
                    with self._cond:
                        self._live -= 1
                    break
                if worker.init_error is not None:
                    worker.kill()
                    with self._cond:
                        self._live -= 1
                        if provisioned:
                            self._prewarm_failed.add(spec.key)
                    break
                worker.provisioned = provisioned
                held.append(worker)
                if provisioned:
                    with self._cond:
                        self._prewarm_failed.discard(spec.key)
        finally:
            with self._cond:
                for worker in held:
                    self._idle.setdefault(spec.key, []).append(worker)
                self._cond.notify_all()
        return len(held)

    def warm_up(self, interpreter: str | None = None) -> None:
        self._zygote(interpreter).start()

    def warm_up_soon(self, interpreter: str | None = None) -> None:
        """Start the zygote in the background unless it runs (a function exists: invocations will come)."""
        zygote = self._zygote(interpreter)
        if not zygote.running():
            threading.Thread(target=self._quiet_warm_up, args=(zygote,), name="lambda-warmup", daemon=True).start()

    @staticmethod
    def _quiet_warm_up(zygote: ZygoteClient) -> None:
        try:
            zygote.start()
        except Exception:  # the next invocation starts it and reports the failure
            pass

    def shutdown(self) -> None:
        with self._cond:
            self._closed = True
            busy = list(self._busy)
        self.retire_all()
        self._drop_carried()
        for worker in busy:
            worker.kill()
        for zygote in list(self._zygotes.values()):
            zygote.close()
        if self.sandbox is not None:
            self.sandbox.close()

    def serving(self, access_key: str | None) -> str | None:
        """The request id that the busy worker calling with this access key runs: each worker has
        its own role session, so a handler's call names its invocation (the effect ledger's use)."""
        if access_key is None:
            return None
        with self._cond:
            return next((w.serving for w in self._busy if w.access_key == access_key), None)

    def live_workers(self) -> int:
        with self._cond:
            return self._live

    # ------------------------------------------------------------------ acquiring workers
    def _zygote(self, interpreter: str | None) -> ZygoteClient:
        path = interpreter or ""
        with self._cond:
            if path not in self._zygotes:
                self._zygotes[path] = ZygoteClient(interpreter)
            return self._zygotes[path]

    def _acquire(self, spec: WorkerSpec, sink: LogSink, caller_key: str | None = None) -> tuple[Worker, bool]:
        with self._cond:
            nested = caller_key is not None and any(w.access_key == caller_key for w in self._busy)
            while True:
                if self._closed:
                    raise RuntimeError("the Lambda worker pool is shut down")
                worker = self._take_idle(spec.key)
                if worker is not None:
                    self._busy.add(worker)
                    break
                if self._live < self.max_workers or nested:
                    self._live += 1
                    break
                if not self._evict_one_idle():
                    self._cond.wait()
        if worker is not None:
            return worker, False
        try:
            worker = self._spawn(spec, sink)
        except BaseException:
            with self._cond:
                self._live -= 1
                self._cond.notify_all()
            raise
        with self._cond:
            self._busy.add(worker)
        return worker, True

    def _take_idle(self, key: str) -> Worker | None:
        workers = self._idle.get(key)
        while workers:
            worker = workers.pop()
            if time.monotonic() - worker.born < _MAX_AGE_S:
                return worker
            worker.kill()
            self._live -= 1
        return None

    def _evict_one_idle(self, kept_too: bool = True) -> bool:
        """Kill the oldest idle worker, one that is not kept for provisioned concurrency if any is
        (`kept_too=False`: only such a one)."""
        idle = [w for workers in self._idle.values() for w in workers]
        candidates = [w for w in idle if not self._kept(w)] or (idle if kept_too else [])
        oldest = min(candidates, key=lambda w: w.born, default=None)
        if oldest is None:
            return False
        self._idle[oldest.spec.key].remove(oldest)
        oldest.kill()
        self._live -= 1
        return True

    def _spawn(self, spec: WorkerSpec, sink: LogSink) -> Worker:
        zygote = self._zygote(spec.interpreter)
        stream = log_stream_name(spec.version)
        env = spec.make_env(stream)
        sink.begin(stream, True)
        carried = self._take_carried(spec)
        if self.sandbox is not None:
            zygote.start()  # what it found out about the machine decides the placement
            placement = self.sandbox.place(spec.function_id, spec.task_root, zygote)
            limits = self.sandbox.limits(placement, spec.memory_mb, spec.ephemeral_mb, carried)
            env["LAMBDA_TASK_ROOT"] = env["PWD"] = task_root = placement.task_root
            opt_root = self.sandbox.place(spec.function_id, spec.opt_root, zygote).task_root if spec.opt_root else None
        else:
            limits, task_root = Limits(memory_mb=spec.memory_mb, ephemeral_mb=spec.ephemeral_mb), spec.task_root
            opt_root = spec.opt_root
        try:
            sock = zygote.spawn({"env": env, "task_root": task_root, "handler": spec.handler,
                                 "sandbox": limits.to_spec(), "opt_root": opt_root})  # fmt: skip
        except BaseException:
            Sandbox.drop_tmp(limits.tmp_dir)
            Sandbox.drop_tmp(limits.tmp_seed)
            raise
        worker = Worker(pid=0, sock=sock, spec=spec, log_stream=stream, zygote=zygote, tmp_dir=limits.tmp_dir,
                        private_tmp=limits.private_tmp)  # fmt: skip
        worker.access_key = env.get("AWS_ACCESS_KEY_ID")
        self._await_init(worker, sink)
        Sandbox.drop_tmp(limits.tmp_seed)  # copied into its /tmp before its init ran
        return worker

    # ------------------------------------------------------------------ /tmp across a timeout
    def _carry_tmp(self, worker: Worker) -> None:
        """Keep a timed-out worker's /tmp for the worker that takes its place (Sandbox.keep_tmp)."""
        if self.sandbox is None or worker.dead:
            return
        if worker.private_tmp and worker.pid > 0:
            with contextlib.suppress(OSError):  # stopped, so nothing changes under the copy
                os.killpg(worker.pid, signal.SIGSTOP)
        kept = self.sandbox.keep_tmp(worker.pid, worker.tmp_dir, worker.private_tmp)
        worker.tmp_dir = None  # not dropped with the worker: it is kept
        if kept is not None:
            with self._cond:
                self._carried.setdefault((worker.spec.function_id, worker.spec.key), []).append(kept)

    def _take_carried(self, spec: WorkerSpec) -> str | None:
        with self._cond:
            kept = self._carried.get((spec.function_id, spec.key))
            return kept.pop() if kept else None

    def _drop_carried(self, function_id: str | None = None) -> None:
        with self._cond:
            for owner in [k for k in self._carried if function_id is None or k[0] == function_id]:
                for folder in self._carried.pop(owner):
                    Sandbox.drop_tmp(folder)

    def _await_init(self, worker: Worker, sink: LogSink) -> None:
        spec = worker.spec
        deadline = time.monotonic() + (spec.init_timeout_s if spec.init_timeout_s is not None else spec.timeout_s)
        try:
            while True:
                worker.sock.settimeout(max(deadline - time.monotonic(), 0.001))
                header, _ = protocol.recv(worker.sock, bounded=True)
                kind = header.get("t")
                if kind == "log":
                    sink.line(*_log_event(header))
                    continue
                if kind == "hello":
                    # Only the first: the runtime sends it before any function code runs, and a
                    # second one (from a handler's module code) could name the server's pid.
                    if worker.pid == 0:
                        worker.pid = int(header["pid"])
                    continue
                if kind == "oom":
                    worker.kill()
                    worker.init_error = {"oom": True}
                    return
                worker.init_ms = float(header.get("init_ms", 0.0))
                worker.mem_mb = int(header.get("mem_mb", 0))
                if kind == "init_error":
                    worker.init_error = dict(header["error"])
                return
        except TimeoutError:  # an init that outlives the timeout is reported as the invoke timing out
            worker.kill()
            worker.init_error = {"timeout": True}
        except (protocol.Closed, OSError, ValueError, TypeError, KeyError):
            worker.init_error = {"died": True}

    # ------------------------------------------------------------------ running
    def _run(
        self, worker: Worker, request_id: str, invoked_arn: str, payload: bytes, client_context: Any, sink: LogSink
    ) -> Outcome:
        hook = DISPATCH_HOOK.get()
        if hook is not None:
            hook(request_id)
        timeout = worker.spec.timeout_s
        start = time.perf_counter()
        deadline_ms = int(time.time() * 1000 + timeout * 1000)
        outcome = Outcome(ok=False, payload=b"", log_stream=worker.log_stream, mem_mb=worker.mem_mb)
        header = {
            "t": "invoke",
            "id": request_id,
            "arn": invoked_arn,
            "deadline_ms": deadline_ms,
            "client_context": client_context,
        }
        try:
            worker.sock.settimeout(timeout)
            protocol.send(worker.sock, header, payload)
            while True:
                remaining = timeout - (time.perf_counter() - start)
                worker.sock.settimeout(max(remaining, 0.0005))
                reply, body = protocol.recv(worker.sock, bounded=True)
                kind = reply.get("t")
                if kind == "log":
                    sink.line(*_log_event(reply))
                    continue
                if kind == "oom":
                    worker.kill()
                    return self._out_of_memory(outcome, request_id, time.perf_counter() - start, worker.spec.memory_mb)
                outcome.ok, outcome.payload = bool(reply.get("ok")), body
                outcome.too_large = int(reply.get("too_large") or 0)
                outcome.mem_mb = worker.mem_mb = int(reply.get("mem_mb", 0))
                outcome.duration_ms = (time.perf_counter() - start) * 1000
                if not outcome.ok:
                    outcome.error_type = "Unhandled"
                return outcome
        except TimeoutError:
            elapsed = time.perf_counter() - start
            self._carry_tmp(worker)
            worker.kill()
            return self._timed_out(outcome, request_id, elapsed)
        except (protocol.Closed, OSError, ValueError, TypeError):  # died, or sent what no runtime sends
            status = worker.zygote.exit_status(worker.pid) or "signal: killed"
            worker.kill()
            return self._exited(outcome, request_id, status, time.perf_counter() - start)

    def _init_failed(self, worker: Worker, request_id: str) -> Outcome:
        error = dict(worker.init_error or {})
        worker.retired = True  # Lambda runs init again on the next invocation
        outcome = Outcome(False, b"", worker.log_stream, mem_mb=worker.mem_mb)
        outcome.init_ms = worker.init_ms
        if error.get("timeout"):
            return self._timed_out(outcome, request_id, worker.spec.timeout_s)
        if error.get("oom"):
            return self._out_of_memory(outcome, request_id, 0.0, worker.spec.memory_mb)
        if error.get("died"):
            status = worker.zygote.exit_status(worker.pid, 0.5) or "signal: killed"
            return self._exited(outcome, request_id, status, 0.0)
        # The runtime reports an init error before any request, so with an empty requestId; a
        # missing handler is no init error there but raised by each invocation, with its id.
        if error.get("errorType") == "Runtime.HandlerNotFound":
            error["requestId"] = request_id
        outcome.payload = _runtime_json(error)
        outcome.status, outcome.error_type = "error", error.get("errorType")
        return outcome

    @staticmethod
    def _timed_out(outcome: Outcome, request_id: str, elapsed_s: float) -> Outcome:
        outcome.duration_ms = elapsed_s * 1000
        message = f"RequestId: {request_id} Error: Task timed out after {elapsed_s:.2f} seconds"
        outcome.payload = _compact({"errorType": "Sandbox.Timedout", "errorMessage": message})
        outcome.status, outcome.error_type = "timeout", "Sandbox.Timedout"
        return outcome

    @staticmethod
    def _out_of_memory(outcome: Outcome, request_id: str, elapsed_s: float, memory_mb: int | None) -> Outcome:
        """As Lambda reports a runtime the OOM killer ended: the exit error, typed Runtime.OutOfMemory,
        and all of MemorySize used."""
        outcome.duration_ms = elapsed_s * 1000
        outcome.mem_mb = memory_mb or outcome.mem_mb
        message = f"RequestId: {request_id} Error: Runtime exited with error: signal: killed"
        outcome.payload = _compact({"errorType": "Runtime.OutOfMemory", "errorMessage": message})
        outcome.status, outcome.error_type = "error", "Runtime.OutOfMemory"
        return outcome

    @staticmethod
    def _exited(outcome: Outcome, request_id: str, status: str, elapsed_s: float) -> Outcome:
        outcome.duration_ms = elapsed_s * 1000
        # A clean exit (sys.exit(0), in the handler or at import) is "without providing a reason" (recorded)
        reason = "Runtime exited without providing a reason" if status == "exit status 0" else (
            f"Runtime exited with error: {status}")
        message = f"RequestId: {request_id} Error: {reason}"
        outcome.payload = _compact({"errorType": "Runtime.ExitError", "errorMessage": message})
        outcome.status, outcome.error_type = "error", "Runtime.ExitError"
        return outcome

    def _release(self, worker: Worker) -> None:
        worker.serving = None
        with self._cond:
            self._busy.discard(worker)
            if worker.dead or worker.retired or self._closed or self._live > self.max_workers:
                worker.kill()
                self._live -= 1
            else:
                self._idle.setdefault(worker.spec.key, []).append(worker)
            # One worker (or one place) came free, which one waiter can use (take it, or evict it
            # for its own function): waking every waiter made a queue of 64 task threads contend
            # for the lock and the GIL on each release, about a tenth of the server's CPU per
            # invoke with a backlog (bench/bench_sfn.py's seed workflow).
            self._cond.notify()


def _log_event(header: dict[str, Any]) -> tuple[int, str]:
    """(ts, msg) of a log frame, checked: the worker runs code nobody vetted."""
    ts, msg = header.get("ts"), header.get("msg")
    if not isinstance(ts, int) or not 0 <= ts < 1 << 53 or not isinstance(msg, str):
        raise protocol.BadFrame()
    return ts, msg


def _compact(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


def _runtime_json(doc: dict[str, Any]) -> bytes:
    """The runtime's error document, keys in its order, with its `", "` separators."""
    order = ("errorMessage", "errorType", "requestId", "stackTrace")
    return json.dumps({k: doc.get(k, [] if k == "stackTrace" else "") for k in order}).encode()
