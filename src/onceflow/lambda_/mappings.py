"""Lambda event source mappings: Create/Get/List/Update/DeleteEventSourceMapping for SQS queues and
DynamoDB streams. A mapping is one row (its configuration, whether it is enabled, the stream position
its poller has reached and its last result); esm_pollers.py runs one poller per enabled mapping.

AWS answers Create with State "Creating", Update with "Updating" and Delete with "Deleting", then
settles on "Enabled"/"Disabled" a moment later: the row holds the settled state, the answers the
transitional one."""

from __future__ import annotations

import builtins
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.lambda_ import errors, esm_windows, names, paging
from onceflow.lambda_.esm_events import compile_filters
from onceflow.patterns.event_pattern import PatternError
from onceflow.registry import operation
from onceflow.stack import Stack

MIGRATIONS = [
    ("lambda-esm-0001", """
CREATE TABLE lambda_esm (
  uuid TEXT PRIMARY KEY, account TEXT NOT NULL, region TEXT NOT NULL, function_arn TEXT NOT NULL,
  source_arn TEXT NOT NULL, kind TEXT NOT NULL, config TEXT NOT NULL, enabled INTEGER NOT NULL,
  position TEXT, last_result TEXT NOT NULL, modified REAL NOT NULL
);
CREATE INDEX lambda_esm_by_function ON lambda_esm (account, region, function_arn);
"""),
]

NO_RECORDS = "No records processed"
# Members a caller sets that the mapping keeps and reports back as given.
_KEPT = ("BatchSize", "MaximumBatchingWindowInSeconds", "FilterCriteria", "ScalingConfig", "StartingPosition",
         "StartingPositionTimestamp", "DestinationConfig", "MaximumRecordAgeInSeconds", "BisectBatchOnFunctionError",
         "MaximumRetryAttempts", "TumblingWindowInSeconds", "FunctionResponseTypes", "ParallelizationFactor")
_SQS_ONLY = ("ScalingConfig",)
_STREAM_ONLY = ("StartingPosition", "StartingPositionTimestamp", "DestinationConfig", "MaximumRecordAgeInSeconds",
                "BisectBatchOnFunctionError", "MaximumRetryAttempts", "TumblingWindowInSeconds",
                "ParallelizationFactor")
# What AWS reports a mapping's last state change was caused by: an SQS mapping's words differ from a
# stream's (SQS recorded in test_lambda_api test_function_name_variations; streams in CLI transcripts).
_TRANSITION_REASON = {"sqs": "USER_INITIATED", "ddb": "User action"}
_SQS_ACTIONS = ("ReceiveMessage", "DeleteMessage", "GetQueueAttributes")
_STREAM_ACTIONS = ("GetRecords", "GetShardIterator", "DescribeStream", "ListStreams")


def source_kind(arn: str) -> str | None:
    parts = arn.split(":", 5)
    if len(parts) == 6 and parts[2] == "sqs":
        return "sqs"
    if len(parts) == 6 and parts[2] == "dynamodb" and "/stream/" in parts[5]:
        return "ddb"
    return None


class MappingStore:
    def __init__(self, stack: Stack) -> None:
        self.db = stack.db
        self.db.migrate(MIGRATIONS)

    def insert(self, row: dict[str, Any]) -> None:
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO lambda_esm (uuid, account, region, function_arn, source_arn, kind, config, "
                         "enabled, position, last_result, modified) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         (row["uuid"], row["account"], row["region"], row["function_arn"], row["source_arn"],
                          row["kind"], json.dumps(row["config"]), int(row["enabled"]), row["position"],
                          row["last_result"], row["modified"]))

    def get(self, account: str, region: str, key: str) -> dict[str, Any] | None:
        r = self.db.query_one("SELECT * FROM lambda_esm WHERE uuid=? AND account=? AND region=?",
                              (key, account, region))
        return _row(r) if r else None

    def by_uuid(self, key: str) -> dict[str, Any] | None:
        r = self.db.query_one("SELECT * FROM lambda_esm WHERE uuid=?", (key,))
        return _row(r) if r else None

    def list(self, account: str, region: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT * FROM lambda_esm WHERE account=? AND region=? ORDER BY modified, uuid",
                             (account, region))
        return [_row(r) for r in rows]

    def all_enabled(self) -> builtins.list[dict[str, Any]]:  # builtins: this class has a list()
        return [_row(r) for r in self.db.query("SELECT * FROM lambda_esm WHERE enabled=1")]

    def update(self, key: str, config: dict[str, Any], enabled: bool, function_arn: str,
               position: str | None) -> None:
        with self.db.transaction() as conn:
            conn.execute("UPDATE lambda_esm SET config=?, enabled=?, function_arn=?, position=?, modified=? "
                         "WHERE uuid=?", (json.dumps(config), int(enabled), function_arn, position, time.time(), key))

    def progress(self, key: str, position: str | None, result: str) -> None:
        """The poller's checkpoint: durable, so a restarted server resumes after it."""
        with self.db.transaction() as conn:
            conn.execute("UPDATE lambda_esm SET position=COALESCE(?, position), last_result=? WHERE uuid=?",
                         (position, result, key))

    def delete(self, key: str) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM lambda_esm WHERE uuid=?", (key,))
            esm_windows.forget(conn, key)


def _row(r: Any) -> dict[str, Any]:
    keys = ("uuid", "account", "region", "function_arn", "source_arn", "kind", "config", "enabled", "position",
            "last_result", "modified")
    row = dict(zip(keys, tuple(r), strict=True))
    row["config"] = json.loads(row["config"])
    row["enabled"] = bool(row["enabled"])
    return row


def describe(row: dict[str, Any], state: str | None = None) -> dict[str, Any]:
    """The EventSourceMappingConfiguration of a row."""
    out: dict[str, Any] = {"UUID": row["uuid"], **row["config"], "EventSourceArn": row["source_arn"],
                           "FunctionArn": row["function_arn"], "LastModified": row["modified"],
                           "State": state or ("Enabled" if row["enabled"] else "Disabled"),
                           "StateTransitionReason": _TRANSITION_REASON[row["kind"]],
                           "EventSourceMappingArn": f"arn:{partition(row['region'])}:lambda:{row['region']}"
                                                    f":{row['account']}:event-source-mapping:{row['uuid']}"}
    if row["kind"] == "ddb":
        out["LastProcessingResult"] = row["last_result"]
    return out


class MappingsApi:
    """The event source mapping operations, registered beside LambdaApi (registry.add_api merges)."""

    def __init__(self, stack: Stack, store: MappingStore, functions: Any, on_change: Callable[[str], None]) -> None:
        self.stack = stack
        self.store = store
        self.functions = functions  # the LambdaService: resolve() raises ResourceNotFoundException
        self.on_change = on_change  # (uuid): the pollers follow the row

    # ------------------------------------------------------------------ operations
    @operation("CreateEventSourceMapping")
    def create(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        source: str = p.get("EventSourceArn") or ""
        kind = source_kind(source) if source else None
        if kind is None:  # no EventSourceArn too (recorded)
            raise errors.invalid("Unrecognized event source.")
        try:
            function_arn = self._function_arn(ctx, p["FunctionName"])
        except ServiceError as err:  # recorded: a 400 in these words, not the usual 404
            if err.code != "ResourceNotFoundException":
                raise
            raise errors.invalid("Function does not exist") from None
        for row in self.store.list(ctx.account, ctx.region):
            if row["source_arn"] == source and row["function_arn"] == function_arn:
                raise errors.conflict(_duplicate(kind, source, p["FunctionName"], row["uuid"]))
        _check_starting_position(kind, p, source)
        config = {k: p[k] for k in _KEPT if k in p}
        config = _with_defaults(kind, config)
        _validate(kind, config, source.endswith(".fifo"))
        self._check_source(ctx, kind, source, function_arn)
        position = None
        if kind == "ddb":
            streams = self.stack.ports.streams()
            position = streams.position(ctx.account, ctx.region, source, config["StartingPosition"])
        row = {"uuid": str(uuid.uuid4()), "account": ctx.account, "region": ctx.region, "function_arn": function_arn,
               "source_arn": source, "kind": kind, "config": config, "enabled": p.get("Enabled", True),
               "position": position, "last_result": NO_RECORDS, "modified": time.time()}
        self.store.insert(row)
        self.on_change(row["uuid"])
        # A mapping created disabled answers Disabled (recorded: test_fifo_message_group_parallelism, 2024-07)
        return describe(row, "Creating" if row["enabled"] else "Disabled")

    @operation("GetEventSourceMapping")
    def get(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        return describe(self._row(ctx, p["UUID"]))

    @operation("ListEventSourceMappings")
    def list(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        rows = self.store.list(ctx.account, ctx.region)
        if p.get("EventSourceArn"):
            rows = [r for r in rows if r["source_arn"] == p["EventSourceArn"]]
        if p.get("FunctionName"):
            ref = names.parse(p["FunctionName"], ctx.account, ctx.region)
            target = ref.arn(ref.qualifier)  # unqualified: the function's mappings through any qualifier
            rows = [r for r in rows if r["function_arn"] == target
                    or (ref.qualifier is None and r["function_arn"].startswith(target + ":"))]
        return paging.page(rows, p.get("Marker"), p.get("MaxItems") or 100, "EventSourceMappings", describe)

    @operation("UpdateEventSourceMapping")
    def update(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        row = self._row(ctx, p["UUID"])
        config = dict(row["config"])
        for k in _KEPT:
            if k in p and k not in ("StartingPosition", "StartingPositionTimestamp"):
                config[k] = p[k]
        _validate(row["kind"], config, row["source_arn"].endswith(".fifo"))
        function_arn = self._function_arn(ctx, p["FunctionName"]) if p.get("FunctionName") else row["function_arn"]
        enabled = p.get("Enabled", row["enabled"])
        self.store.update(row["uuid"], config, enabled, function_arn, row["position"])
        self.on_change(row["uuid"])
        return describe(self.store.by_uuid(row["uuid"]) or row, _transition(bool(row["enabled"]), bool(enabled)))

    @operation("DeleteEventSourceMapping")
    def delete(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        row = self._row(ctx, p["UUID"])
        self.store.delete(row["uuid"])
        self.on_change(row["uuid"])
        return describe(row, "Deleting")

    # ------------------------------------------------------------------ checks
    def _row(self, ctx: RequestContext, key: str) -> dict[str, Any]:
        row = self.store.get(ctx.account, ctx.region, key)
        if row is None:
            raise errors._err("ResourceNotFoundException", "The resource you requested does not exist.", 404)
        return row

    def _function_arn(self, ctx: RequestContext, name: str) -> str:
        ref = names.parse(name, ctx.account, ctx.region)
        self.functions.resolve(ctx.account, ctx.region, name, None, invoking=False)
        return ref.arn(ref.qualifier)

    def _check_source(self, ctx: RequestContext, kind: str, source: str, function_arn: str) -> None:
        """The source exists and the function's execution role may read it (AWS checks both here)."""
        role = self.functions.resolve(ctx.account, ctx.region, function_arn, None, invoking=False).config.get("Role")
        iam = self.stack.ports.roles.get()
        if kind == "sqs":
            sqs = self.stack.ports.queues.get()
            if sqs is None or sqs.queues.by_arn(source) is None:
                raise errors.invalid("Error occurred while ReceiveMessage. SQS Error Code: "
                                     "AWS.SimpleQueueService.NonExistentQueue. SQS Error Message: The specified "
                                     "queue does not exist or you do not have access to it.")
            for action in _SQS_ACTIONS:
                if iam is not None and role and not iam.role_allows(ctx.account, role, f"sqs:{action}", source):
                    raise errors.invalid(f"The function execution role does not have permissions to call "
                                         f"{action} on SQS")
            return
        try:
            self.stack.ports.streams().position(ctx.account, ctx.region, source, "LATEST")
        except Exception:
            raise errors.invalid(f"Stream not found: {source}") from None
        for action in _STREAM_ACTIONS:
            if iam is not None and role and not iam.role_allows(ctx.account, role, f"dynamodb:{action}", source):
                raise errors.invalid(f"Cannot access stream {source}. Please ensure the role can perform the "
                                     "GetRecords, GetShardIterator, DescribeStream, and ListStreams Actions on your "
                                     "stream in IAM.")


def _duplicate(kind: str, source: str, function: str, existing: str) -> str:
    """A second mapping of one source to one function, in the words AWS uses for each kind (recorded:
    test_lambda_integration_sqs.py and test_lambda_integration_dynamodbstreams.py
    test_duplicate_event_source_mappings, 2024-01 and 2024-10)."""
    if kind == "sqs":
        return (f'An event source mapping with SQS arn (" {source} ") and function (" {function} ") already '
                f"exists. Please update or delete the existing mapping with UUID {existing}")
    return (f'The event source arn (" {source} ") and function (" {function} ") provided mapping already exists. '
            f"Please update or delete the existing mapping with UUID {existing}")


def _transition(was_enabled: bool, enabled: bool) -> str:
    """UpdateEventSourceMapping's answered State: Enabling when it turns a disabled mapping on (recorded:
    test_fifo_message_group_parallelism, 2024-07), Disabling the other way (recorded:
    test_disabled_dynamodb_event_source_mapping, 2024-10), else Updating (test_sqs_event_source_mapping_update)."""
    if enabled != was_enabled:
        return "Enabling" if enabled else "Disabling"
    return "Updating"


def _with_defaults(kind: str, config: dict[str, Any]) -> dict[str, Any]:
    out = dict(config)
    out.setdefault("BatchSize", 10 if kind == "sqs" else 100)
    out.setdefault("MaximumBatchingWindowInSeconds", 0)
    out.setdefault("FunctionResponseTypes", [])  # recorded for SQS; CLI transcripts show it for streams too
    if kind == "ddb":
        out.setdefault("MaximumRecordAgeInSeconds", -1)
        out.setdefault("BisectBatchOnFunctionError", False)
        out.setdefault("MaximumRetryAttempts", -1)
        out.setdefault("ParallelizationFactor", 1)
        out.setdefault("DestinationConfig", {"OnFailure": {}})
        out.setdefault("TumblingWindowInSeconds", 0)
    return out


def _check_starting_position(kind: str, p: dict[str, Any], source: str) -> None:
    """CreateEventSourceMapping's StartingPosition(Timestamp) as AWS refuses them (recorded on AWS:
    event_source_mapping/test_api.py test_create_starting_position_validation_exceptions, 2025-02):
    an SQS mapping takes neither; a stream's timestamp needs AT_TIMESTAMP, which DynamoDB streams lack."""
    position = p.get("StartingPosition")
    if position is None:
        return  # an SQS mapping's lone timestamp, a stream's missing position: _validate's words
    if kind == "sqs":
        raise errors.invalid("StartingPosition is not valid for SQS event sources.")
    if position == "AT_TIMESTAMP":
        raise errors.invalid(f"Unsupported starting position for arn type: {source}")
    if p.get("StartingPositionTimestamp") is not None:
        raise errors.invalid("Timestamp only valid with StartingPosition AT_TIMESTAMP")


def _validate(kind: str, c: dict[str, Any], fifo: bool) -> None:
    """Lambda's own rules beyond the model's ranges (which the wire layer checks)."""
    other = _STREAM_ONLY if kind == "sqs" else _SQS_ONLY
    for member in other:
        if member in c and member not in ("DestinationConfig",):
            source = "Amazon SQS" if kind == "sqs" else "DynamoDB Streams"
            raise errors.invalid(f"Unsupported MQ or Event Source parameter {member} for {source}.")
    size: int = c["BatchSize"]  # defaulted before this
    window = c.get("MaximumBatchingWindowInSeconds") or 0
    if kind == "sqs":
        if size > 10 and window < 1:
            raise errors.invalid("Maximum batch window in seconds must be greater than 0 if maximum batch size "
                                 "is greater than 10")
        if size > 10000:
            raise errors.invalid(f"BatchSize must be less than or equal to 10000 for SQS, got {size}.")
        if fifo and (size > 10 or window):
            raise errors.invalid("Batch size for FIFO SQS queues must be less than or equal to 10, and "
                                 "MaximumBatchingWindowInSeconds is not supported for FIFO queues.")
    else:
        if size > 10000:
            raise errors.invalid(f"BatchSize must be less than or equal to 10000 for DynamoDB Streams, got {size}.")
        if "StartingPosition" not in c:
            raise errors.invalid("1 validation error detected: Value null at 'startingPosition' failed to satisfy "
                                 "constraint: Member must not be null.")  # with the period, as recorded
        if c["StartingPosition"] not in ("TRIM_HORIZON", "LATEST"):
            raise errors.invalid(f"Unsupported starting position {c['StartingPosition']} for DynamoDB Streams.")
        on_failure = ((c.get("DestinationConfig") or {}).get("OnFailure") or {}).get("Destination")
        # an SQS queue, an SNS topic or (recorded: test_dynamodb_event_source_mapping_with_s3_on_failure_
        # destination, 2025-01) an S3 bucket
        if on_failure and source_kind(on_failure) != "sqs" and ":sns:" not in on_failure and ":s3:::" not in on_failure:
            raise errors.invalid("The provided destination config DestinationConfig(onSuccess=null, onFailure="
                                 f"OnFailure(destination={on_failure})) is invalid.")
    for t in c.get("FunctionResponseTypes") or []:
        if t != "ReportBatchItemFailures":
            raise errors.invalid(f"Unsupported FunctionResponseType {t}.")
    try:
        compile_filters(c.get("FilterCriteria"))
    except PatternError:
        raise errors.invalid("Invalid filter pattern definition.") from None
