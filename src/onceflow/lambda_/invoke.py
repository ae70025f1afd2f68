"""Invoke: the operation's checks, the synchronous run on a worker, and the worker's spec.

The calling thread blocks on the worker's socket while the handler runs (the wire layer runs
handlers in a thread pool). Event invocations are queued to a small executor and answered 202
(invoke_async.py); provisioned concurrency keeps workers warm (invoke_provisioned.py). Log lines
are shipped in batches as the worker sends them (invocation_log.py); the answer is shaped in
invoke_result.py and the handler's environment built in worker_env.py.
"""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from onceflow.lambda_ import destinations, errors
from onceflow.lambda_.admission import Admission
from onceflow.lambda_.async_config import InvokeConfigs
from onceflow.lambda_.interpreters import Interpreters
from onceflow.lambda_.invocation_log import InvocationLog
from onceflow.lambda_.invoke_async import AsyncQueue, requeue_wait_s
from onceflow.lambda_.invoke_provisioned import Provisioning
from onceflow.lambda_.invoke_result import check_json, parse_client_context, response
from onceflow.lambda_.logship import LogShipper
from onceflow.lambda_.runtime.pool import Outcome, Pool, WorkerSpec
from onceflow.lambda_.service import LambdaService, Resolved
from onceflow.lambda_.worker_env import environment, spec_key

if TYPE_CHECKING:
    from onceflow.lambda_.durable_driver import DurableDriver
    from onceflow.ports import Ports

__all__ = ["Invoker", "requeue_wait_s"]  # requeue_wait_s: where its unit test imports it from


class Invoker(AsyncQueue, Provisioning):
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
        if self.service.settling.pending(resolved.ref.key, resolved.executed_version):
            raise errors.not_invokable("Pending")  # a version just published by UpdateFunctionCode (settling.py)
        limit = errors.MAX_ASYNC_PAYLOAD if kind == "Event" else errors.MAX_SYNC_PAYLOAD
        if len(payload) > limit:
            raise errors.payload_too_large(len(payload), kind)
        check_json(payload)
        request_id = request_id or str(uuid.uuid4())
        context = parse_client_context(client_context)
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
        return response(resolved, outcome, log.tail() if log_type == "Tail" else None)

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
            key=spec_key(resolved),
            function_id="/".join(ref.key),
            version=version,
            task_root=task_root,
            handler=config["Handler"],
            timeout_s=float(config.get("Timeout", 3)),
            make_env=lambda stream: environment(resolved, task_root, stream, self.interpreters, self.endpoint_url,
                                                self.ports),
            interpreter=self.interpreters.get(config["Runtime"]),
            memory_mb=int(config.get("MemorySize", 128)),
            ephemeral_mb=int((config.get("EphemeralStorage") or {}).get("Size", 512)),
            opt_root=self.service.layers.opt_dir(config.get("Layers") or []) if self.service.layers else None,
        )
