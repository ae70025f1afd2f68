"""The rule set of one server and the decision for one call.

An unmatched call costs one dict lookup: rules are indexed by (service, operation) when the set
changes, a rule without an operation (or a service) listed under every pair it covers. Only a
call with candidates pays for the rest (region, account, caller and resource globs, counters,
the seeded draw). Counters change only on matching calls; they are saved with the rules, so
`skip`/`times` and the seeded draws go on where they were after a restart.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.faults import catalog
from onceflow.faults.rules import FaultError, Rule, RuleError, parse_rules
from onceflow.faults.store import FaultStore

if TYPE_CHECKING:
    from onceflow.ports import Ports

log = logging.getLogger("onceflow.faults")

LOG_GROUP = "/aws/onceflow/faults"
# How long `timeout` holds an in-process call (a Step Functions task has no socket to give up on).
IN_PROCESS_HOLD_S = 60.0
# How long `timeout` holds an HTTP call at most if its client never gives up.
HTTP_HOLD_S = 900.0
# Parameters naming the resource a call acts on, besides the ARNs of the IAM resource resolvers.
_NAME_PARAMS = ("TableName", "FunctionName", "stateMachineArn", "executionArn", "name", "logGroupName",
                "logGroupIdentifier", "RoleName", "UserName", "RoleArn", "PolicyArn")


@dataclass(slots=True)
class Fire:
    """What a firing rule does to this call."""

    rule: Rule
    ctx: RequestContext
    params: dict[str, Any]

    @property
    def when(self) -> str:
        return self.rule.when

    def error(self) -> ServiceError | None:
        spec = self.rule.error
        return None if spec is None else to_service_error(self.ctx.service, spec)

    def run_sync(self, call: Callable[[], Any], time_scale: float = 1.0) -> Any:
        """The whole fault for a caller that may block (an in-process call, a thread). A `timeout`
        holds it IN_PROCESS_HOLD_S (divided by --time-scale, as Step Functions' timeouts are)."""
        rule = self.rule
        hold_s = IN_PROCESS_HOLD_S / time_scale
        before = rule.when == "before"
        result = None if before else self.after_effect(call)  # after: the effect happens first
        _sleep(rule.latency_ms / 1000)
        if rule.timeout:
            _sleep(hold_s)
        err = self.error()
        if err is not None:
            raise err
        return call() if before else result

    def after_effect(self, call: Callable[[], Any]) -> Any:
        """The call's effect for a `when: after` rule: once, twice (duplicate), or once with the
        worker killed before it answers (crash)."""
        result = call()
        if self.rule.kind == "duplicate":
            result = call()
        elif self.rule.kind == "crash":
            result = self.crashed(result)
        return result

    def crashed(self, result: Any) -> Any:
        """The worker dies as the handler returns: its effects stand, its answer is lost, and the
        next invocation starts a fresh worker."""
        if self.faults_lambda is not None:
            self.faults_lambda(self.ctx, self.params)
        message = f"RequestId: {self.ctx.request_id} Error: Runtime exited with error: signal: killed"
        payload = json.dumps({"errorType": "Runtime.ExitError", "errorMessage": message}, separators=(",", ":"))
        out = dict(result or {})
        out.update({"StatusCode": 200, "FunctionError": "Unhandled", "Payload": payload.encode()})
        return out

    faults_lambda: Callable[[RequestContext, dict[str, Any]], None] | None = None


def to_service_error(service: str, spec: FaultError) -> ServiceError:
    extra = catalog.message_extra(service, spec.code, spec.message)
    return ServiceError(spec.code, spec.message, spec.status, sender_fault=spec.status < 500, extra=extra)


def _sleep(seconds: float) -> None:
    if seconds > 0:
        time.sleep(seconds)


class Faults:
    def __init__(self, store: FaultStore, ports: Ports,
                 resolvers: dict[str, Callable[..., list[str]]]) -> None:
        self.store = store
        self.ports = ports  # Logs for the faults log group, Lambda for crashes
        self.resolvers = resolvers
        self._lock = threading.Lock()  # the counters and the index; never held across a store write
        self._admin = threading.Lock()  # one change of the set at a time
        self.rules: list[Rule] = []
        self.index: dict[tuple[str, str], tuple[Rule, ...]] = {}
        self.load()

    # ------------------------------------------------------------------ the set
    def load(self) -> None:
        rules = []
        for rule_id, spec, matched, fired in self.store.all():
            try:
                rule = parse_rules([spec], rule_id)[0]
            except RuleError as exc:  # kept by another version whose models differ: skip it, loudly
                log.warning("fault rule %s is no longer valid and is not applied: %s", rule_id, exc.message)
                continue
            rule.matched, rule.fired = matched, fired
            rules.append(rule)
        self._install(rules)

    def replace(self, raw: Any) -> list[Rule]:
        rules = parse_rules(raw)  # raises RuleError before anything changes
        with self._admin:
            self.store.replace([(r.id, r.spec) for r in rules])
            with self._lock:
                self._install(rules)
        return rules

    def add(self, raw: Any) -> list[Rule]:
        with self._admin:
            first = max((r.id for r in self.rules), default=0) + 1
            added = parse_rules(raw, first)
            self.store.add([(r.id, r.spec) for r in added])
            with self._lock:
                self._install([*self.rules, *added])
        return added

    def clear(self) -> None:
        with self._admin:
            self.store.replace([])
            with self._lock:
                self._install([])

    def remove(self, raw: Any) -> None:
        """Drop the rules equal to the ones given (the Chaos API's DELETE with a body)."""
        given = [r.spec for r in parse_rules(raw)]
        with self._admin:
            keep = [r for r in self.rules if r.spec not in given]
            self.store.replace([(r.id, r.spec) for r in keep])
            self.store.count([(r.id, r.matched, r.fired) for r in keep])
            with self._lock:
                self._install(keep)

    def forget(self) -> None:
        """After /_onceflow/reset (the store's rows are gone already)."""
        with self._lock:
            self._install([])

    def views(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.view() for r in self.rules]

    def _install(self, rules: list[Rule]) -> None:
        index: dict[tuple[str, str], list[Rule]] = {}
        for rule in rules:
            services = [rule.service] if rule.service else list(catalog.SERVED)
            for service in services:
                ops = [rule.operation] if rule.operation else sorted(catalog.operations(service))
                for op in ops:
                    index.setdefault((service, op), []).append(rule)
        self.rules = rules
        self.index = {key: tuple(found) for key, found in index.items()}

    # ------------------------------------------------------------------ one call
    def watches(self, service: str, operation: str) -> bool:
        return (service, operation) in self.index

    def decide(self, ctx: RequestContext, params: dict[str, Any]) -> Fire | None:
        """The first candidate rule that fires for this call, counted; None if none does."""
        candidates = self.index.get((ctx.service, ctx.operation))
        if not candidates:
            return None
        resources: list[str] | None = None
        changed: list[Rule] = []
        fire: Fire | None = None
        with self._lock:
            for rule in candidates:
                if rule.region is not None and rule.region != ctx.region:
                    continue
                if rule.account is not None and rule.account != ctx.account:
                    continue
                if rule.caller is not None and not rule.caller.matches(ctx.principal.arn):
                    continue
                if rule.resource is not None:
                    if resources is None:
                        resources = self._resources(ctx, params)
                    if not any(rule.resource.matches(r) for r in resources):
                        continue
                rule.matched += 1
                changed.append(rule)
                if rule.matched <= rule.skip or (rule.times is not None and rule.fired >= rule.times):
                    continue
                if rule.probability < 1 and (rule.probability == 0 or rule.draw(rule.matched) >= rule.probability):
                    continue
                rule.fired += 1
                fire = Fire(rule, ctx, params, faults_lambda=self._kill_worker)
                break
            counts = [(r.id, r.matched, r.fired) for r in changed]
        if counts:  # outside the lock: a caller inside a transaction must not wait on it while we wait on the store
            self.store.count(counts)
        if fire is not None:
            self._report(fire, resources if resources is not None else self._resources(ctx, params))
        return fire

    def _resources(self, ctx: RequestContext, params: dict[str, Any]) -> list[str]:
        found: list[str] = []
        resolver = self.resolvers.get(ctx.service)
        if resolver is not None:
            try:
                found = [a for a in resolver(ctx, params) if isinstance(a, str)]
            except Exception:  # a resolver refusing odd params: match on the names given
                found = []
        for key in _NAME_PARAMS:
            value = params.get(key)
            if isinstance(value, str):
                found.append(value)
        names = [_short_name(a) for a in found if a.startswith("arn:")]
        return [*found, *names]

    def _report(self, fire: Fire, resources: list[str]) -> None:
        """Every injected fault in the server log and in the /aws/onceflow/faults log group."""
        rule, ctx = fire.rule, fire.ctx
        what = rule.error.code if rule.error else (rule.kind or ("timeout" if rule.timeout else "latency"))
        event = {"rule": rule.id, "fault": what, "kind": rule.kind, "when": rule.when, "service": ctx.service,
                 "operation": ctx.operation, "region": ctx.region, "account": ctx.account,
                 "caller": ctx.principal.arn, "resource": resources[0] if resources else None,
                 "requestId": ctx.request_id, "fired": rule.fired}
        log.warning("fault injected: rule %s %s %s.%s (%s) for %s", rule.id, what, ctx.service, ctx.operation,
                    rule.when, ctx.principal.arn)
        logs = self.ports.logs.get()
        if logs is None:
            return
        try:
            now = int(time.time() * 1000)
            stream = time.strftime("%Y/%m/%d", time.gmtime(now / 1000))
            logs.append(ctx.account, ctx.region, LOG_GROUP, stream, [(now, json.dumps(event, sort_keys=True))])
        except Exception:  # the fault still happens; its log line is best effort
            log.exception("could not write the fault to %s", LOG_GROUP)

    def _kill_worker(self, ctx: RequestContext, params: dict[str, Any]) -> None:
        """Retire the workers of the function a crash fault hit."""
        lam = self.ports.functions.get()
        if lam is None or not isinstance(params.get("FunctionName"), str):
            return
        try:
            resolved = lam.service.resolve(ctx.account, ctx.region, params["FunctionName"], params.get("Qualifier"),
                                           invoking=True)
            lam.invoker.pool.retire("/".join(resolved.ref.key))
        except Exception:
            log.exception("could not stop the worker of a crashed invocation")


def _short_name(arn: str) -> str:
    """The name in an ARN: table/T -> T, function:F -> F, log-group:G:* -> G, role/path/R -> R."""
    parts = arn.split(":", 5)
    if len(parts) < 6:
        return arn
    rest = parts[5]
    if rest.endswith(":*"):
        rest = rest[:-2]
    for sep in (":", "/"):
        kind, found, name = rest.partition(sep)
        if found and kind and not kind.startswith("/"):
            rest = name
            break
    return rest.rsplit("/", 1)[-1] if "/" in rest and not rest.startswith("/") else rest
