"""Invoke: checks, throttling, the worker's environment, the run, and the CloudWatch log lines.

The calling thread blocks on the worker's socket while the handler runs (the wire layer runs
handlers in a thread pool). Event invocations are queued to a small executor and answered 202.
Log lines are shipped in batches as the worker sends them (InvocationLog); only the last 4 KB is
kept for LogType=Tail. The handler's environment is built here from nothing but what Lambda
sets, the role session's credentials and the function's own variables.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import logging
import math
import os
import sys
import threading
import time
import uuid
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from onceflow.errors import ServiceError
from onceflow.lambda_ import config as cfg
from onceflow.lambda_ import dead_letter, destinations, errors, names, provisioned
from onceflow.lambda_.admission import Admission
from onceflow.lambda_.async_config import AsyncPolicy, InvokeConfigs
from onceflow.lambda_.config import runtime_version_arn
from onceflow.lambda_.interpreters import Interpreters
from onceflow.lambda_.logship import LogShipper
from onceflow.lambda_.runtime import protocol
from onceflow.lambda_.runtime.pool import Outcome, Pool, WorkerSpec
from onceflow.lambda_.service import LambdaService, Resolved
from onceflow.patterns import jackson

if TYPE_CHECKING:
    from onceflow.lambda_.durable_driver import DurableDriver
    from onceflow.ports import Ports

log = logging.getLogger("onceflow.lambda")

_TAIL_BYTES = 4096
_ASYNC_RETRY_DELAYS_S = (60.0, 120.0)

_MAX_EVENT_BYTES = protocol.MAX_EVENT_BYTES
_MAX_RESPONSE = protocol.MAX_RESULT_BYTES  # what Lambda's error message names as the response limit
_BATCH_BYTES = 1 << 20  # log lines held per invocation before they are handed to the shipper
_EVENT_OVERHEAD = 80  # what a (ts, msg) tuple costs beyond its text, for the byte counts
# The X-Ray daemon's address as Lambda gives it (no daemon listens: segments sent there are lost,
# as they are on AWS with tracing off).
_XRAY = {
    "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
    "AWS_XRAY_DAEMON_ADDRESS": "169.254.79.129:2000",
    "_AWS_XRAY_DAEMON_ADDRESS": "169.254.79.129",
    "_AWS_XRAY_DAEMON_PORT": "2000",
}


def requeue_wait_s(waits: int, age_s: float, max_age_s: float) -> float:
    """Docs (invocation-async-error-handling): a throttled event (429), or one that met a system error
    (500-series), returns to the queue and is tried again for up to its maximum age (6 hours by
    default), the interval increasing exponentially "from 1 second after the first attempt to a
    maximum of 5 minutes". The last wait ends at the event's maximum age, where it is dropped, not
    up to 5 minutes after it. All in AWS's seconds (the caller scales them)."""
    return max(0.0, min(float(min(2**waits, 300)), max_age_s - age_s))


def _locale(runtime: str) -> dict[str, str]:
    """LC_CTYPE as the runtime's image sets it: the Amazon Linux 2023 Pythons (3.12 on) have it, the
    Amazon Linux 2 ones not (recorded: test_lambda_common test_introspection_invoke python3.11 without,
    python3.12 with, 2023-11; test_lambda.py python3.14 with, 2026)."""
    minor = runtime.removeprefix("python3.")
    return {"LC_CTYPE": "C.UTF-8"} if not minor.isdigit() or int(minor) >= 12 else {}


class Invoker:
    def __init__(
        self,
        service: LambdaService,
        pool: Pool,
        ports: Ports,
        endpoint_url: str,
        async_workers: int,
        interpreters: Interpreters | None = None,
        time_scale: float = 1.0,
        enforce_log_permissions: bool = False,
    ) -> None:
        self.service = service
        self.enforce_log_permissions = enforce_log_permissions
        self.pool = pool
        self.ports = ports  # STS for credentials, Logs for log lines, IAM, SQS
        self.endpoint_url = endpoint_url
        self.interpreters = interpreters or Interpreters({})
        self._executor = ThreadPoolExecutor(max_workers=max(1, async_workers), thread_name_prefix="lambda-event")
        db = service.store.db
        self.logs = LogShipper(ports.logs.get, db.transaction, db.deferred_sync)
        self._lock = threading.Lock()
        self.admission = Admission(service.unreserved_limit)
        self.time_scale = time_scale  # divides the Event retry delays, like Step Functions' waits
        self._timers: set[threading.Timer] = set()
        self._provisioning = threading.Lock()  # one provisioning pass at a time: none starts a worker twice
        # (function key, qualifier) -> provisioning passes to run for that config: one config's Put
        # shows IN_PROGRESS on that config only, not on the function's others
        self._pending: dict[tuple[tuple[str, str, str], str], int] = {}
        self._closed = False
        self.async_configs: InvokeConfigs | None = None  # EventInvokeConfig (setup sets both)
        self.call: destinations.Call | None = None  # internal.call bound to the stack, for destinations
        self.durable: DurableDriver | None = None  # durable functions' executions (setup sets it)

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            timers, self._timers = self._timers, set()
        for timer in timers:
            timer.cancel()
        self._executor.shutdown(wait=False, cancel_futures=True)
        self.logs.close()

    # ------------------------------------------------------------------ the operation
    def invoke(
        self,
        account: str,
        region: str,
        function_name: str,
        payload: bytes | str | None,
        invocation_type: str | None = None,
        qualifier: str | None = None,
        log_type: str | None = None,
        client_context: str | None = None,
        request_id: str | None = None,
        caller_key: str | None = None,
        execution_name: str | None = None,
    ) -> dict[str, Any]:
        kind = invocation_type or "RequestResponse"
        payload = payload.encode() if isinstance(payload, str) else bytes(payload or b"")
        resolved = self.service.resolve(account, region, function_name, qualifier, invoking=True)
        limit = errors.MAX_ASYNC_PAYLOAD if kind == "Event" else errors.MAX_SYNC_PAYLOAD
        if len(payload) > limit:
            raise errors.payload_too_large(len(payload), kind)
        _check_json(payload)
        request_id = request_id or str(uuid.uuid4())
        context = _client_context(client_context)
        if kind == "DryRun":
            return {"StatusCode": 204}
        if resolved.config.get("DurableConfig") is not None and self.durable is not None:
            return self.durable.invoke(resolved, payload, kind, execution_name)  # durable_driver.py
        if kind == "Event":
            self._executor.submit(self._run_async, resolved, payload, request_id, context)
            return {"StatusCode": 202}
        slot = self.admission.admit(resolved)  # or throttled, as Lambda would (admission.py)
        try:
            outcome, log = self._run(resolved, payload, request_id, context, caller_key)
        finally:
            self.admission.leave(resolved, slot)
        return self._response(resolved, outcome, log.tail() if log_type == "Tail" else None)

    def _run_async(
        self, resolved: Resolved, payload: bytes, request_id: str, context: Any, attempt: int = 0,
        queued_at: float | None = None, waits: int = 0, last: Outcome | None = None,
    ) -> None:  # fmt: skip
        """An Event invocation. A function error or timeout is retried MaximumRetryAttempts times
        (2 by default), ~1 then ~2 minutes later, with the same request id, while the event is younger
        than MaximumEventAgeInSeconds; the outcome goes to the EventInvokeConfig's destination. It takes
        a concurrency slot as a synchronous call does; throttled (`waits` times so far), it waits in the
        queue and is tried again, which is no retry attempt. It runs the function as it is when it starts
        (recorded: events queued behind a busy slot run the code of an update made meanwhile)."""
        queued_at = queued_at or time.time()
        ref = resolved.ref
        try:
            resolved = self.service.resolve(ref.account, ref.region, ref.name, ref.qualifier, invoking=True)
        except ServiceError:  # deleted meanwhile: the event is dropped
            return
        rules = self._async_rules(resolved)
        if resolved.reserved == 0:  # docs: "Lambda begins sending new events to the configured
            # dead-letter queue or the on-failure event destination, without any retries"
            # The record's condition is AWS's (recorded: "ZeroReservedConcurrency", approximateInvokeCount 0).
            # UNCONFIRMED: the DLQ's ErrorCode / ErrorMessage for them
            self._conclude(resolved, rules, payload, request_id, 0, None, "ZeroReservedConcurrency",
                           throttled=True)  # fmt: skip
            return
        # The event's age on the same clock as the retry delays (--time-scale divides both).
        if (attempt > 0 or waits > 0) and (time.time() - queued_at) * self.time_scale > rules.max_age_s:
            # recorded: the record carries the last attempt's response (`last`, None if it never ran);
            # one that never ran waited on throttles: its dead letter says so as ZeroReservedConcurrency's
            self._conclude(resolved, rules, payload, request_id, attempt, last, "EventAgeExceeded",
                           throttled=last is None)  # fmt: skip
            return
        age_s = (time.time() - queued_at) * self.time_scale
        try:
            slot = self.admission.admit(resolved)
        except ServiceError:  # throttled: back to the queue (admission.py)
            wait = requeue_wait_s(waits, age_s, rules.max_age_s)
            self._later(wait, resolved, payload, request_id, context, attempt, queued_at, waits + 1, last)
            return
        started = time.time()
        try:
            outcome, _ = self._run(resolved, payload, request_id, context)
        except Exception:  # a system error (onceflow could not run it): back to the queue, as a throttle
            if self._closed:
                return
            if waits == 0:  # the first one is logged; the retries of the same event are not
                log.exception("asynchronous invocation %s failed; it is tried again", request_id)
            wait = requeue_wait_s(waits, age_s, rules.max_age_s)
            self._later(wait, resolved, payload, request_id, context, attempt, queued_at, waits + 1, last)
            return
        finally:
            self.admission.leave(resolved, slot)
        # The run's own time counts as it ran, not scaled like the waits: shift the event's start so
        # that its age grows by the run's real duration (a cold start is not minutes at --time-scale 60).
        queued_at += (time.time() - started) * (1 - 1 / self.time_scale)
        if outcome.ok:
            self._conclude(resolved, rules, payload, request_id, attempt + 1, outcome, "Success")
            return
        if attempt >= min(rules.retries, len(_ASYNC_RETRY_DELAYS_S)):
            self._conclude(resolved, rules, payload, request_id, attempt + 1, outcome, "RetriesExhausted")
            return
        delay = _ASYNC_RETRY_DELAYS_S[attempt]
        self._later(delay, resolved, payload, request_id, context, attempt + 1, queued_at, 0, outcome)

    def _later(
        self, delay_s: float, resolved: Resolved, payload: bytes, request_id: str, context: Any, attempt: int,
        queued_at: float, waits: int = 0, last: Outcome | None = None,
    ) -> None:  # fmt: skip
        """The event tried again in `delay_s` (of AWS's time: --time-scale divides it)."""
        with self._lock:
            if self._closed:
                return
            args = (resolved, payload, request_id, context, attempt, queued_at, waits, last)
            timer = threading.Timer(delay_s / self.time_scale, self._retry_async, args)
            timer.daemon = True
            self._timers.add(timer)
        timer.start()

    def _retry_async(
        self, resolved: Resolved, payload: bytes, request_id: str, context: Any, attempt: int, queued_at: float,
        waits: int = 0, last: Outcome | None = None,
    ) -> None:  # fmt: skip
        with self._lock:
            self._timers = {t for t in self._timers if t.is_alive() and t is not threading.current_thread()}
            if self._closed:
                return
        try:
            self._executor.submit(
                self._run_async, resolved, payload, request_id, context, attempt, queued_at, waits, last
            )
        except RuntimeError:  # shut down meanwhile
            pass

    def provision(self, key: tuple[str, str, str]) -> None:
        """Provisioned concurrency: reserve the workers the function's configs ask for, and start the
        missing ones before returning, marked as such (AWS_LAMBDA_INITIALIZATION_TYPE) and kept while
        the config lasts. Called when an alias or a config changes (a Put's through provision_soon),
        and at start-up (before the server says it is ready)."""
        for resolved, count in self.reconcile_provisioned(key):
            try:
                self.pool.prewarm(self._provisioned_spec(resolved), count, provisioned=True)
            except Exception:  # best effort: invocations start workers anyway
                if not self._closed:
                    ref = resolved.ref
                    log.exception("could not start provisioned workers for %s", ref.arn(resolved.executed_version))

    def provision_soon(self, key: tuple[str, str, str], qualifier: str) -> None:
        """PutProvisionedConcurrencyConfig's provisioning: as on AWS the Put answers IN_PROGRESS and
        the workers start behind it (reads show IN_PROGRESS until they are warm); invocations
        meanwhile run on demand. Reserved at once, so no eviction takes the first ones started."""
        self.reconcile_provisioned(key)
        pending = (key, qualifier)
        with self._lock:
            self._pending[pending] = self._pending.get(pending, 0) + 1
        threading.Thread(target=self._provision_serially, args=(pending,), name="lambda-provision", daemon=True).start()

    def _provision_serially(self, pending: tuple[tuple[str, str, str], str]) -> None:
        try:
            with self._provisioning:
                self.provision(pending[0])
        finally:
            with self._lock:
                left = self._pending.pop(pending, 1) - 1
                if left > 0:
                    self._pending[pending] = left

    def provisioned_status(self, key: tuple[str, str, str], qualifier: str, requested: int) -> tuple[int, str]:
        """A config's allocated workers and status: IN_PROGRESS while a pass is to run and not all
        are warm, FAILED when a start failed the function's init, else READY with all allocated
        (those beyond the local bound on workers, --lambda-max-workers, run on demand)."""
        alias_of = lambda alias: self.service.store.get_alias(key, alias)  # noqa: E731
        allocated, failed = 0, False
        for version, share in provisioned.version_counts({qualifier: {"Requested": requested}}, alias_of).items():
            try:
                resolved = self.service.resolve(key[0], key[1], key[2], version, invoking=False)
            except ServiceError:  # the version is gone
                continue
            marked, init_failed = self.pool.provisioned_state(_spec_key(resolved))
            allocated += min(marked, share)
            failed = failed or (init_failed and marked < share)
        with self._lock:
            pending = self._pending.get((key, qualifier), 0) > 0
        if allocated >= requested or not (pending or failed):
            return requested, "READY"
        return allocated, "IN_PROGRESS" if pending else "FAILED"

    def _provisioned_spec(self, resolved: Resolved) -> WorkerSpec:
        spec = self._spec(resolved)
        make_env = spec.make_env
        return dataclasses.replace(spec, make_env=lambda stream: {
            **make_env(stream), "AWS_LAMBDA_INITIALIZATION_TYPE": "provisioned-concurrency"})  # fmt: skip

    def reconcile_provisioned(self, key: tuple[str, str, str]) -> list[tuple[Resolved, int]]:
        """Tell the pool which worker keys of a function have provisioned concurrency now (after a
        change: a deleted function, version, alias or config keeps none; an alias's follow its
        version, or versions by weight: provisioned.py); returns them with their counts."""
        record = self.service.store.get_function(key) or {}
        counts = provisioned.version_counts(record.get("_provisioned") or {},
                                            lambda alias: self.service.store.get_alias(key, alias))  # fmt: skip
        targets: list[tuple[Resolved, int]] = []
        for version, count in counts.items():
            try:
                targets.append((self.service.resolve(key[0], key[1], key[2], version, invoking=False), count))
            except ServiceError:  # the version is gone
                continue
        self.pool.provision("/".join(key), {_spec_key(resolved): count for resolved, count in targets})
        return targets

    def _async_rules(self, resolved: Resolved) -> AsyncPolicy:
        return self.async_configs.policy_for(resolved.ref) if self.async_configs is not None else AsyncPolicy()

    def _conclude(
        self, resolved: Resolved, rules: AsyncPolicy, payload: bytes, request_id: str, attempts: int,
        outcome: Outcome | None, condition: str, throttled: bool = False,
    ) -> None:  # fmt: skip
        """Send the invocation record to the destination for this outcome, if there is one, and a
        failed event to the dead-letter queue, if there is one (both when both are configured)."""
        success = condition == "Success"
        dlq = dead_letter.target_of(resolved.config.get("DeadLetterConfig"))
        if not success and dlq is not None:
            message = dead_letter.error_message(outcome.payload) if outcome is not None else None
            status = 429 if throttled else 200
            dead_letter.send(self.ports, self.service.role_checks, resolved.config["Role"], dlq, payload,
                             request_id, "Rate Exceeded." if throttled else message, status,
                             destinations.role_principal(resolved.config["Role"], resolved.ref.name))  # fmt: skip
        destination = rules.on_success if success else rules.on_failure
        if destination is None or self.call is None:
            return
        ref = resolved.ref
        doc = destinations.record(
            request_id=request_id, function_arn=ref.arn(ref.qualifier or "$LATEST"), condition=condition,
            attempts=attempts, payload=payload, executed_version=resolved.executed_version if outcome else None,
            ok=bool(outcome and outcome.ok), response=outcome.payload if outcome else None,
        )  # fmt: skip
        principal = destinations.role_principal(resolved.config["Role"], ref.name)
        destinations.deliver(self.call, principal, destination, doc, success, self._queue_url)

    def _queue_url(self, account: str, name: str) -> str:
        return str(self.ports.queues().queues.url_of(account, name))

    @staticmethod
    def _response(resolved: Resolved, outcome: Outcome, tail: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"StatusCode": 200}
        payload = outcome.payload
        if outcome.ok and (outcome.too_large or len(payload) > _MAX_RESPONSE):
            outcome.ok = False
            payload = json.dumps({
                "errorMessage": f"Response payload size exceeded maximum allowed payload size ({_MAX_RESPONSE} bytes).",
                "errorType": "Function.ResponseSizeTooLarge",
            }, separators=(",", ":")).encode()  # fmt: skip
        if not outcome.ok:
            out["FunctionError"] = "Unhandled"
        if tail is not None:
            out["LogResult"] = tail
        out["ExecutedVersion"] = resolved.executed_version
        out["Payload"] = payload if outcome.ok or payload else b"null"
        return out

    # ------------------------------------------------------------------ running
    def run_invocation(self, resolved: Resolved, payload: bytes, request_id: str) -> Outcome:
        """One invocation of a durable execution's handler (durable_driver.py), admitted as any other."""
        slot = self.admission.admit(resolved)
        try:
            outcome, _ = self._run(resolved, payload, request_id, None)
        finally:
            self.admission.leave(resolved, slot)
        return outcome

    def _run(
        self, resolved: Resolved, payload: bytes, request_id: str, context: Any, caller_key: str | None = None
    ) -> tuple[Outcome, InvocationLog]:
        spec = self._spec(resolved)
        log = InvocationLog(self, resolved, request_id)
        try:
            outcome = self.pool.invoke(spec, request_id, resolved.invoked_arn, payload, context, caller_key, log)
            log.finish(outcome)
        finally:
            log.flush()
        return outcome, log

    def _spec(self, resolved: Resolved) -> WorkerSpec:
        config = resolved.config
        ref = resolved.ref
        task_root = str(self.service.code_dir(config))
        version = resolved.executed_version
        return WorkerSpec(
            key=_spec_key(resolved),
            function_id="/".join(ref.key),
            version=version,
            task_root=task_root,
            handler=config["Handler"],
            timeout_s=float(config.get("Timeout", 3)),
            make_env=lambda stream: self._environment(resolved, task_root, stream),
            interpreter=self.interpreters.get(config["Runtime"]),
            memory_mb=int(config.get("MemorySize", 128)),
            ephemeral_mb=int((config.get("EphemeralStorage") or {}).get("Size", 512)),
            opt_root=self.service.layers.opt_dir(config.get("Layers") or []) if self.service.layers else None,
        )

    def _environment(self, resolved: Resolved, task_root: str, stream: str) -> dict[str, str]:
        """Lambda's defined runtime variables; nothing of the server's own environment."""
        config, ref = resolved.config, resolved.ref
        interpreter = self.interpreters.get(config["Runtime"]) or sys.executable
        logging_config = cfg.logging_config(config.get("LoggingConfig"), ref.name)
        env = {
            # Lambda's PATH, with the folder of the interpreter that runs the function in /var/lang/bin's place
            "PATH": f"{os.path.dirname(interpreter)}:/usr/local/bin:/usr/bin/:/bin:/opt/bin",
            "LANG": "en_US.UTF-8",
            **_locale(config["Runtime"]),
            "SHLVL": "0",  # in every runtime's recording
            "TZ": ":UTC",
            "LAMBDA_TASK_ROOT": task_root,  # the pool puts the sandbox's copy here (and in PWD)
            "PWD": task_root,
            "LAMBDA_RUNTIME_DIR": "/var/runtime",
            # Recorded for the Python runtimes (test_lambda_common introspection, python3.8 / 3.9; a 2025
            # python dump): the worker's own path is set already, so only the function's subprocesses see it.
            "PYTHONPATH": "/var/runtime",
            # Recorded (test_lambda.py test_lambda_init_environment, python3.14, 2026-02); the worker
            # names its own folders for /var/task and /opt (worker.py)
            "LD_LIBRARY_PATH": "/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:/var/task:/var/task/lib:"
                               "/opt/lib",
            # Where Lambda's runtime API listens. onceflow's runtime speaks to the server over its
            # socket instead; the variable is there for code that checks it is running in Lambda.
            "AWS_LAMBDA_RUNTIME_API": "127.0.0.1:9001",
            "_HANDLER": config["Handler"],
            "AWS_EXECUTION_ENV": f"AWS_Lambda_{config['Runtime']}",
            "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
            "AWS_LAMBDA_FUNCTION_NAME": ref.name,
            "AWS_LAMBDA_FUNCTION_VERSION": resolved.executed_version,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(config.get("MemorySize", 128)),
            "AWS_LAMBDA_LOG_GROUP_NAME": logging_config["LogGroup"],
            "AWS_LAMBDA_LOG_STREAM_NAME": stream,
            **_XRAY,
            "AWS_REGION": ref.region,
            "AWS_DEFAULT_REGION": ref.region,
            "AWS_ENDPOINT_URL": self.endpoint_url,
            # The server user's AWS files must not leak into the function (Lambda has none).
            "AWS_CONFIG_FILE": os.devnull,
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        }
        if logging_config["LogFormat"] == "JSON":  # what the Python runtime reads to log in JSON
            env["AWS_LAMBDA_LOG_FORMAT"] = "JSON"
            env["AWS_LAMBDA_LOG_LEVEL"] = logging_config["ApplicationLogLevel"]
        env.update(self._credentials(ref.account, config["Role"], names.role_session_name(ref.name)))
        env.update((config.get("Environment") or {}).get("Variables") or {})
        return env

    def _credentials(self, account: str, role_arn: str, session_name: str) -> dict[str, str]:
        sts = self.ports.sessions.get()
        if sts is None:
            # Until STS exists: a 12-digit key is that account's root on the wire (CONTRACTS.md).
            return {"AWS_ACCESS_KEY_ID": account, "AWS_SECRET_ACCESS_KEY": "test"}
        creds = sts.issue_role_session(account, role_arn, session_name=session_name)
        return {
            "AWS_ACCESS_KEY_ID": creds["AccessKeyId"],
            "AWS_SECRET_ACCESS_KEY": creds["SecretAccessKey"],
            "AWS_SESSION_TOKEN": creds["SessionToken"],
        }

    # ------------------------------------------------------------------ logs
    def _may_write_logs(self, account: str, region: str, role_arn: str, group: str, stream: str) -> bool:
        """Under --enforce-iam, Lambda writes a function's logs only as far as its execution role
        allows, as on AWS: CreateLogStream and PutLogEvents on the stream, and CreateLogGroup
        when the group does not exist yet. Otherwise the lines are dropped silently."""
        iam, logs = self.ports.roles.get(), self.ports.logs.get()
        if not self.enforce_log_permissions or iam is None or logs is None:
            return True
        group_arn = f"arn:aws:logs:{region}:{account}:log-group:{group}"
        stream_arn = f"{group_arn}:log-stream:{stream}"
        if not all(iam.role_allows(account, role_arn, action, stream_arn)
                   for action in ("logs:CreateLogStream", "logs:PutLogEvents")):
            return False
        listed = logs.describe_groups(account, region, prefix=group, limit=1)["logGroups"]
        if listed and listed[0]["logGroupName"] == group:
            return True
        return bool(iam.role_allows(account, role_arn, "logs:CreateLogGroup", f"{group_arn}:*"))


class InvocationLog:
    """One invocation's log lines (the pool's LogSink): INIT_START and init output on a cold start,
    START, the handler's lines, END, REPORT. They are handed to the shipper a batch at a time, so
    what a handler prints costs the server one batch (and the shipper's bounded queue), not all of it."""

    def __init__(self, invoker: Invoker, resolved: Resolved, request_id: str) -> None:
        self._invoker = invoker
        self._resolved = resolved
        self._request_id = request_id
        self._started_ms = int(time.time() * 1000)
        self._last_ms = self._started_ms
        self._stream: str | None = None
        self._allowed = False
        self._batch: list[tuple[int, str]] = []
        self._batch_bytes = 0
        self._tail: deque[bytes] = deque()
        self._tail_bytes = 0
        self._logging = cfg.logging_config(resolved.config.get("LoggingConfig"), resolved.ref.name)
        self._json = self._logging["LogFormat"] == "JSON"
        self._system_level = self._logging.get("SystemLogLevel", "INFO")

    # the pool's side
    def begin(self, log_stream: str, cold: bool) -> None:
        ref = self._resolved.ref
        self._stream = log_stream
        role = self._resolved.config["Role"]
        self._allowed = self._invoker._may_write_logs(ref.account, ref.region, role, self.group, log_stream)
        if cold:
            runtime, arch = self._resolved.config["Runtime"], self._resolved.config.get("Architectures")
            warning = self._invoker.interpreters.warning(runtime)
            if self._json:
                record: dict[str, Any] = {
                    "initializationType": "on-demand", "phase": "init",
                    "runtimeVersion": f"{runtime.replace('python', 'python:')}.v1",
                    "runtimeVersionArn": runtime_version_arn(ref.region, runtime, arch),
                }  # fmt: skip
                if warning:
                    record["onceflowWarning"] = warning
                self._platform(self._started_ms, "platform.initStart", record, tail=False)
                return
            init_start = _init_start(runtime, ref.region, arch)
            if warning:  # the runtime runs on another Python (lambda_/interpreters.py)
                init_start = f"{init_start[:-1]}\tonceflow warning: {warning}\n"
            # Recorded: a cold start's LogResult begins at START; INIT_START is in the stream only.
            self._system(self._started_ms, init_start, tail=False)

    def start(self) -> None:
        # Logs sorts events by time: START must not sort before what init printed.
        version = self._resolved.executed_version
        if self._json:
            self._platform(self._last_ms, "platform.start", {"requestId": self._request_id, "version": version})
        else:
            self._system(self._last_ms, f"START RequestId: {self._request_id} Version: {version}\n")

    def line(self, ts: int, msg: str) -> None:
        self._add(ts, _fit(msg))

    # the invoker's side
    @property
    def group(self) -> str:
        return self._logging["LogGroup"]

    def finish(self, outcome: Outcome) -> None:
        end_ms = max(self._last_ms, int(time.time() * 1000))
        config = self._resolved.config
        if self._json:
            self._platform(end_ms, "platform.report", _report_record(self._request_id, outcome, config))
            return
        if outcome.status == "timeout":  # the platform's line, as Lambda writes it before END
            seconds = outcome.duration_ms / 1000
            self._add(end_ms, f"{_iso(end_ms)} {self._request_id} Task timed out after {seconds:.2f} seconds\n")
        self._system(end_ms, f"END RequestId: {self._request_id}\n")
        self._system(end_ms, _report(self._request_id, outcome, config))

    def _system(self, ts: int, msg: str, tail: bool = True) -> None:
        """A platform line, at INFO: SystemLogLevel WARN leaves them out."""
        if self._system_level != "WARN":
            self._add(ts, msg, tail)

    def _platform(self, ts: int, kind: str, record: dict[str, Any], tail: bool = True) -> None:
        """A platform event in the JSON log format."""
        text = json.dumps({"time": _iso(ts), "type": kind, "record": record}, separators=(",", ":"))
        self._system(ts, text, tail)

    def flush(self) -> None:
        batch, self._batch, self._batch_bytes = self._batch, [], 0
        if batch and self._allowed and self._stream is not None:
            ref = self._resolved.ref
            self._invoker.logs.ship(ref.account, ref.region, self.group, self._stream, batch)

    def tail(self) -> str:
        """LogResult: the last 4 KB of the lines, base64."""
        return base64.b64encode(b"".join(self._tail)[-_TAIL_BYTES:]).decode()

    def _add(self, ts: int, msg: str, tail: bool = True) -> None:
        """A line for the stream and, with `tail`, for LogResult."""
        self._last_ms = max(self._last_ms, ts)
        self._batch.append((ts, msg))
        self._batch_bytes += len(msg) + _EVENT_OVERHEAD
        if tail:
            self._keep_for_tail(msg)
        if self._batch_bytes >= _BATCH_BYTES:
            self.flush()

    def _keep_for_tail(self, msg: str) -> None:
        # LogResult is the events as written: the runtime's [ERROR] event has no newline of its own, so
        # in the Text format the next line follows on (recorded: `...raise Exception(...)END RequestId`).
        # JSON records are one a line (UNCONFIRMED for JSON: no recording of its LogResult).
        text = (msg if msg.endswith("\n") or not self._json else msg + "\n").encode()[-_TAIL_BYTES:]
        self._tail.append(text)
        self._tail_bytes += len(text)
        while self._tail_bytes - len(self._tail[0]) >= _TAIL_BYTES:
            self._tail_bytes -= len(self._tail.popleft())


def _spec_key(resolved: Resolved) -> str:
    """Workers are shared by the invocations of one version as it is configured (its RevisionId)."""
    ref = resolved.ref
    return f"{ref.account}/{ref.region}/{ref.name}/{resolved.executed_version}/{resolved.config['RevisionId']}"


def _fit(message: str) -> str:
    """A log event as CloudWatch Logs takes it: valid UTF-8 (a handler may print a lone surrogate)
    and at most 256 KB less 26 bytes of overhead. The worker already splits longer lines as Lambda
    does; the cut is the server's guard against one that does not."""
    try:
        data = message.encode()
    except UnicodeEncodeError:
        data = message.encode("utf-8", "surrogatepass")
        message = data.decode("utf-8", "replace")
        data = message.encode()
    if len(data) <= _MAX_EVENT_BYTES:
        return message
    return data[:_MAX_EVENT_BYTES].decode(errors="ignore")


def _init_start(runtime: str, region: str, architectures: list[str] | None) -> str:
    # AWS numbers its runtime builds (python:3.12.v38); onceflow has one build per runtime: v1.
    version = runtime.replace("python", "python:")
    arn = runtime_version_arn(region, runtime, architectures)
    return f"INIT_START Runtime Version: {version}.v1\tRuntime Version ARN: {arn}\n"


def _iso(ts_ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts_ms / 1000)) + f".{ts_ms % 1000:03d}Z"


def _report_record(request_id: str, outcome: Outcome, config: dict[str, Any]) -> dict[str, Any]:
    """platform.report of the JSON log format: REPORT's figures as metrics."""
    metrics: dict[str, Any] = {
        "durationMs": round(outcome.duration_ms, 3),
        "billedDurationMs": max(1, math.ceil(outcome.duration_ms)),
        "memorySizeMB": int(config.get("MemorySize", 128)),
        "maxMemoryUsedMB": outcome.mem_mb,
    }
    if outcome.init_ms is not None:
        metrics["initDurationMs"] = round(outcome.init_ms, 3)
    record: dict[str, Any] = {"requestId": request_id, "metrics": metrics, "status": outcome.status or "success"}
    if outcome.status == "error" and outcome.error_type:
        record["errorType"] = outcome.error_type
    elif outcome.status == "timeout":
        record["errorType"] = "Sandbox.Timedout"
    return record


def _report(request_id: str, outcome: Outcome, config: dict[str, Any]) -> str:
    billed = max(1, math.ceil(outcome.duration_ms))
    line = (
        f"REPORT RequestId: {request_id}\tDuration: {outcome.duration_ms:.2f} ms\tBilled Duration: {billed} ms\t"
        f"Memory Size: {config.get('MemorySize', 128)} MB\tMax Memory Used: {outcome.mem_mb} MB\t"
    )
    if outcome.init_ms is not None:
        line += f"Init Duration: {outcome.init_ms:.2f} ms\t"
    if outcome.status == "timeout":
        line += "Status: timeout"
    elif outcome.status == "error":
        line += f"Status: error\tError Type: {outcome.error_type}"
    return line + "\n"


def _check_json(payload: bytes) -> None:
    refused = jackson.refusal(payload)  # Jackson's words, as AWS quotes them (patterns/jackson.py)
    if refused is not None:
        raise errors.bad_json_payload(f"Could not parse payload into json: {refused}")


def _client_context(value: str | None) -> Any:
    if not value:
        return None
    try:
        return json.loads(base64.b64decode(value))
    except (ValueError, binascii.Error):
        return None
