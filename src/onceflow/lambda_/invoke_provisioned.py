"""Provisioned concurrency: the workers a function's configs keep warm, started behind a Put, and the
allocated count and status its reads show (Provisioning, a part of Invoker; provisioned.py says
where the workers go).
"""

from __future__ import annotations

import dataclasses
import logging
import threading

from onceflow.errors import ServiceError
from onceflow.lambda_ import provisioned
from onceflow.lambda_.runtime.pool import Pool, WorkerSpec
from onceflow.lambda_.service import LambdaService, Resolved
from onceflow.lambda_.worker_env import spec_key as _spec_key

log = logging.getLogger("onceflow.lambda")

PROVISIONED_INIT_S = 130.0


class Provisioning:
    """Invoker's provisioned side; Invoker sets these attributes and builds the worker specs (_spec)."""

    service: LambdaService
    pool: Pool
    _lock: threading.Lock
    _provisioning: threading.Lock
    _pending: dict[tuple[tuple[str, str, str], str], int]
    _closed: bool

    def _spec(self, resolved: Resolved) -> WorkerSpec:
        raise NotImplementedError

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
        # Docs (lambda-runtime-environment, Init phase): for provisioned concurrency "your initialization
        # code can run for up to 15 minutes. The time limit is 130 seconds or the configured function
        # timeout (maximum 900 seconds), whichever is higher" - not the function's Timeout alone.
        init_limit = max(PROVISIONED_INIT_S, spec.timeout_s)
        return dataclasses.replace(spec, init_timeout_s=init_limit, make_env=lambda stream: {
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
