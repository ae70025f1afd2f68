"""Metric filters and subscription filters of log groups, and delivery of the events a
subscription filter matches to its destination (a Lambda function), as CloudWatch Logs sends them:
`{"awslogs": {"data": base64(gzip(json))}}` with a DATA_MESSAGE of the matching events.

Delivery runs after the events are committed, on one background thread, with the Lambda event
invocation type, so a log write never waits on a function (and a function's own log lines,
shipped through `append`, cannot deadlock on its invocation).
"""

from __future__ import annotations

import base64
import gzip
import json
import logging
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from onceflow.errors import ServiceError
from onceflow.logs import errors, resources, store
from onceflow.logs.filter_pattern import FilterPatternError, compile_pattern
from onceflow.logs.service import LogsService

log = logging.getLogger("onceflow.logs")

METRIC = "metric"
SUBSCRIPTION = "subscription"
ACCOUNT_SUBSCRIPTION = "SUBSCRIPTION_FILTER_POLICY"  # an account policy of this type (policies.py)
# Its only selection criteria (model documentation): groups it leaves out, as a JSON list of names.
_NOT_IN = re.compile(r"\s*LogGroupName\s+NOT\s+IN\s+(\[.*\])\s*", re.S)
METRIC_FILTERS_PER_GROUP = 100
SUBSCRIPTIONS_PER_GROUP = 2
# (account, region, function ARN, payload) -> None: invokes the destination (installed by setup).
Invoker = Callable[[str, str, str, dict[str, Any]], None]
# (account, region, function ARN, log group) -> whether the function's resource policy lets
# logs.amazonaws.com invoke it for that group (None: no such function). Installed by setup.
InvokeCheck = Callable[[str, str, str, str], bool | None]


def lambda_refused() -> ServiceError:
    # AWS's words, quoted in many public issues (hashicorp/terraform#5996, localstack/localstack#2653...).
    return errors.invalid_parameter("Could not execute the lambda function. Make sure you have given CloudWatch Logs "
                                    "permission to execute your function.")


def cross_account_lambda() -> ServiceError:
    # Snapshot-recorded on AWS (LocalStack test_logs_subscription_filters, 2026-02), checked before the group.
    return ServiceError("AccessDeniedException", "Cross-account lambda invocation passing is not allowed. You must "
                        "use DestinationPolicies to create cross account lambda triggers.", 400)


def check_destination(account: str, destination: str, role_arn: str | None) -> None:
    """The destination rules of a subscription, before anything is looked up (AWS's order, recorded)."""
    parts = destination.split(":")
    vendor = parts[2] if len(parts) > 5 and parts[0] == "arn" else ""
    if vendor == "lambda" and parts[4] != account:
        raise cross_account_lambda()
    if vendor in ("kinesis", "firehose") and not role_arn:
        # Snapshot-recorded for kinesis; firehose's by the same rule (UNCONFIRMED).
        raise errors.invalid_parameter(f"destinationArn for vendor {vendor} cannot be used without roleArn")
    if vendor != "lambda":
        # Kinesis, Firehose and Logs destinations are not served by onceflow.
        raise errors.invalid_parameter(f"Invalid destination ARN: {destination}")  # UNCONFIRMED wording


def not_found(kind: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"The specified {kind} filter does not exist.", 400)


def _matcher(pattern: str) -> Callable[[str], bool]:
    try:
        return compile_pattern(pattern)
    except FilterPatternError as exc:
        raise errors.invalid_parameter(str(exc)) from None


class LogFilters:
    def __init__(self, service: LogsService) -> None:
        self.service = service
        self.db = service.db
        self.invoke: Invoker | None = None
        self.may_invoke: InvokeCheck | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="logs-subscriptions")
        # Whether any subscription filter may exist (None: not known, ask the store once). Every log
        # write - Lambda's log shipping too - asks it, so a server without subscriptions pays no query.
        self._subscribed: bool | None = None
        self._subscribed_mu = threading.Lock()

    # ------------------------------------------------------------------ metric filters
    def put_metric_filter(self, account: str, region: str, p: dict[str, Any]) -> None:
        _matcher(p["filterPattern"])
        data = {"filterPattern": p["filterPattern"], "metricTransformations": p["metricTransformations"],
                **_options(p, "emitSystemFieldDimensions")}
        self._put(account, region, p["logGroupName"], METRIC, p["filterName"], data, METRIC_FILTERS_PER_GROUP)

    def describe_metric_filters(self, account: str, region: str, p: dict[str, Any]) -> list[dict[str, Any]]:
        def read(conn: Any) -> list[dict[str, Any]]:
            if p.get("logGroupName"):
                groups = [self.service._group(conn, account, region, p["logGroupName"])]
            else:
                groups = conn.execute(
                    "SELECT * FROM logs_groups WHERE account=? AND region=? ORDER BY name", (account, region)
                ).fetchall()
            return [{**f, "group": g["name"]} for g in groups for f in store.filters(conn, g["id"], METRIC)]

        found = self.db.read(read)
        prefix = p.get("filterNamePrefix", "")
        found = [f for f in found if f["name"].startswith(prefix)]
        if "metricName" in p or "metricNamespace" in p:
            found = [
                f for f in found if any(
                    t["metricName"] == p.get("metricName", t["metricName"])
                    and t["metricNamespace"] == p.get("metricNamespace", t["metricNamespace"])
                    for t in f["metricTransformations"]
                )
            ]
        return [
            {
                "filterName": f["name"],
                "filterPattern": f["filterPattern"],
                "metricTransformations": f["metricTransformations"],
                "creationTime": f["created"],
                "logGroupName": f["group"],
                **_described_options(f, "emitSystemFieldDimensions"),
            }
            for f in found
        ]

    # ------------------------------------------------------------------ subscription filters
    def put_subscription_filter(self, account: str, region: str, p: dict[str, Any]) -> None:
        _matcher(p["filterPattern"])
        destination = p["destinationArn"]
        check_destination(account, destination, p.get("roleArn"))
        # As on AWS, the function's resource policy must let CloudWatch Logs invoke it (lambda add-permission
        # --principal logs.amazonaws.com, usually with --source-arn <the group's ARN>:*). The group is
        # looked up first: a missing group is ResourceNotFoundException, whatever the function.
        self.db.read(lambda conn: self.service._group(conn, account, region, p["logGroupName"]))
        if self.may_invoke is not None and not self.may_invoke(account, region, destination, p["logGroupName"]):
            raise lambda_refused()
        data = {"filterPattern": p["filterPattern"], "destinationArn": destination,
                "distribution": p.get("distribution", "ByLogStream"), **_options(p, "emitSystemFields")}
        if p.get("roleArn"):
            data["roleArn"] = p["roleArn"]
        self._put(account, region, p["logGroupName"], SUBSCRIPTION, p["filterName"], data, SUBSCRIPTIONS_PER_GROUP)

    def check_account_subscription(self, account: str, region: str, text: str, criteria: str | None) -> None:
        """Refuse an account-level subscription filter policy document (DestinationArn, FilterPattern,
        Distribution, RoleArn) or selectionCriteria as PutSubscriptionFilter refuses its parameters."""
        doc = json.loads(text)
        destination, pattern = doc.get("DestinationArn"), doc.get("FilterPattern", "")
        if not isinstance(destination, str) or not isinstance(pattern, str):
            # UNCONFIRMED wording.
            raise errors.invalid_parameter("A subscription filter policy needs a DestinationArn and a FilterPattern")
        _matcher(pattern)
        if doc.get("Distribution", "ByLogStream") not in ("ByLogStream", "Random"):
            raise errors.invalid_parameter("Distribution must be ByLogStream or Random")  # UNCONFIRMED wording
        check_destination(account, destination, doc.get("RoleArn"))
        excluded_groups(criteria)
        # UNCONFIRMED which source AWS checks the function's policy with: here every group of the account.
        if self.may_invoke is not None and not self.may_invoke(account, region, destination, "*"):
            raise lambda_refused()

    def describe_subscription_filters(self, account: str, region: str, p: dict[str, Any]) -> list[dict[str, Any]]:
        def read(conn: Any) -> list[dict[str, Any]]:
            return store.filters(conn, self.service._group(conn, account, region, p["logGroupName"])["id"],
                                 SUBSCRIPTION)

        prefix = p.get("filterNamePrefix", "")
        out = []
        for f in self.db.read(read):
            if not f["name"].startswith(prefix):
                continue
            item = {"filterName": f["name"], "logGroupName": p["logGroupName"], "filterPattern": f["filterPattern"],
                    "destinationArn": f["destinationArn"]}
            if "roleArn" in f:
                item["roleArn"] = f["roleArn"]
            item.update({"distribution": f["distribution"], "creationTime": f["created"],
                         **_described_options(f, "emitSystemFields")})
            out.append(item)
        return out

    # ------------------------------------------------------------------ shared
    def _put(self, account: str, region: str, group: str, kind: str, name: str, data: Any, limit: int) -> None:
        if kind == SUBSCRIPTION:
            with self._subscribed_mu:  # before the row exists: a delivery may look for it too early, never too late
                self._subscribed = True
        with self.db.transaction() as conn:
            grow = self.service._group(conn, account, region, group)
            existing = {f["name"] for f in store.filters(conn, grow["id"], kind)}
            if name not in existing and len(existing) >= limit:
                raise ServiceError("LimitExceededException", "Resource limit exceeded.", 400)
            store.put_filter(conn, grow["id"], kind, name, self.service.clock(), data)

    def delete(self, account: str, region: str, group: str, kind: str, name: str) -> None:
        with self.db.transaction() as conn:
            grow = self.service._group(conn, account, region, group)
            if not store.delete_filter(conn, grow["id"], kind, name):
                raise not_found(kind)
        self.forget_subscriptions()

    def forget_subscriptions(self) -> None:
        """Ask the store again whether subscriptions exist (after a delete or a reset)."""
        with self._subscribed_mu:
            self._subscribed = None

    def _any_subscriptions(self) -> bool:
        with self._subscribed_mu:
            if self._subscribed is None:
                self._subscribed = self.db.read(lambda conn: conn.execute(
                    "SELECT 1 FROM logs_filters WHERE kind=? UNION ALL SELECT 1 FROM logs_resources WHERE"
                    " kind='account-policy' AND substr(name, 1, ?) = ? LIMIT 1",
                    (SUBSCRIPTION, len(ACCOUNT_SUBSCRIPTION) + 1, ACCOUNT_SUBSCRIPTION + "/")).fetchone() is not None)
            return self._subscribed

    # ------------------------------------------------------------------ delivery
    def deliver(self, account: str, region: str, group: str, stream: str, events: Sequence[tuple[int, str]]) -> None:
        """Send the events each subscription filter of `group` matches to its destination."""
        if self.invoke is None or not events or not self._any_subscriptions():
            return

        def read(conn: Any) -> list[dict[str, Any]]:
            grow = store.get_group(conn, account, region, group)
            found = [] if grow is None else store.filters(conn, grow["id"], SUBSCRIPTION)
            # The account's subscription filter policy applies to every group it does not leave out.
            for policy in resources.every(conn, account, region, "account-policy"):
                if policy["policyType"] == ACCOUNT_SUBSCRIPTION and group not in excluded_groups(
                        policy.get("selectionCriteria")):
                    doc = json.loads(policy["policyDocument"])
                    found.append({"name": policy["policyName"], "filterPattern": doc.get("FilterPattern", ""),
                                  "destinationArn": doc["DestinationArn"], "account_level": True})
            return found

        for f in self.db.read(read):
            matches = compile_pattern(f["filterPattern"])
            chosen = [(ts, msg) for ts, msg in events if matches(msg)]
            if chosen:
                data = encode(account, group, stream, f["name"], chosen, account_level=bool(f.get("account_level")))
                self._pool.submit(self._send, account, region, f["destinationArn"], {"awslogs": {"data": data}}, group)

    def _send(self, account: str, region: str, destination: str, payload: dict[str, Any], group: str) -> None:
        assert self.invoke is not None
        if self.may_invoke is not None and not self.may_invoke(account, region, destination, group):
            # The permission was removed (or the function deleted) since the filter was put: AWS's
            # invocation is refused and the batch lost.
            log.warning("subscription delivery to %s refused: CloudWatch Logs may not invoke it", destination)
            return
        try:
            self.invoke(account, region, destination, payload)
        except Exception:  # a missing or failing destination loses the batch, as AWS reports nowhere
            log.warning("subscription delivery to %s failed", destination, exc_info=True)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _options(p: dict[str, Any], system_fields: str) -> dict[str, Any]:
    """A filter's optional members as stored: applyOnTransformedLogs (false unless asked), the field
    selection and the system fields of the filter's kind when given."""
    out: dict[str, Any] = {"applyOnTransformedLogs": bool(p.get("applyOnTransformedLogs", False))}
    for member in ("fieldSelectionCriteria", system_fields):
        if p.get(member) is not None:
            out[member] = p[member]
    return out


def _described_options(f: dict[str, Any], system_fields: str) -> dict[str, Any]:
    # AWS describes applyOnTransformedLogs always, false by default (snapshot-recorded); rows stored
    # before it was kept have none.
    out = {"applyOnTransformedLogs": bool(f.get("applyOnTransformedLogs", False))}
    out.update({m: f[m] for m in ("fieldSelectionCriteria", system_fields) if m in f})
    return out


def excluded_groups(criteria: str | None) -> set[str]:
    """The log groups an account-level subscription filter policy's `LogGroupName NOT IN [...]` leaves out."""
    if not criteria:
        return set()
    m = _NOT_IN.fullmatch(criteria)
    try:
        names = json.loads(m.group(1)) if m else None
    except ValueError:
        names = None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        # UNCONFIRMED wording; the model documents LogGroupName NOT IN [] as the only criteria.
        raise errors.invalid_parameter("The only selectionCriteria a subscription filter policy supports is "
                                       'LogGroupName NOT IN ["name", ...]')
    return set(names)


def encode(account: str, group: str, stream: str, filter_name: str, events: Sequence[tuple[int, str]], *,
           account_level: bool = False) -> str:
    """The `awslogs.data` CloudWatch Logs sends a subscription's Lambda function (an account policy's
    name among subscriptionFilters, and policyLevel ACCOUNT_LEVEL_POLICY: UNCONFIRMED, as remembered
    from AWS's account-level subscription example)."""
    message: dict[str, Any] = {
        "messageType": "DATA_MESSAGE",
        "owner": account,
        "logGroup": group,
        "logStream": stream,
        "subscriptionFilters": [filter_name],
        "logEvents": [
            {"id": f"{ts:020d}{n:016d}"[:56], "timestamp": ts, "message": msg} for n, (ts, msg) in enumerate(events)
        ],
    }
    if account_level:
        message["policyLevel"] = "ACCOUNT_LEVEL_POLICY"
    return base64.b64encode(gzip.compress(json.dumps(message).encode())).decode()
