"""Export tasks: CreateExportTask writes a log group's events to onceflow's S3 as AWS lays them out,
DescribeExportTasks lists the tasks, CancelExportTask refuses the finished ones.

As on AWS, CloudWatch Logs writes as its service principal, so the destination bucket's policy must
let `logs.amazonaws.com` (or the regional `logs.<region>.amazonaws.com`) do `s3:GetBucketAcl` on the
bucket and `s3:PutObject` on its objects (with `s3:x-amz-acl` = bucket-owner-full-control,
`aws:SourceAccount` the log group's account and `aws:SourceArn` its ARN, the conditions AWS's
documentation puts there); the bucket must be in the log group's region, and the caller itself
must be allowed s3:PutObject there. Logs first writes
`aws-logs-write-test` ("Permission Check Successful"), then one gzip object per stream,
`<prefix>/<task id>/<stream>/000000.gz` (then 000001.gz... past 64 MB of text), each line
`<ISO 8601 timestamp> <message>`. Unlike AWS (PENDING, then RUNNING, for seconds or hours),
the task has finished when the call returns: COMPLETED, or FAILED if a write failed.
"""

from __future__ import annotations

import gzip
import logging
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.errors import ServiceError
from onceflow.iam.policy import MalformedPolicy, Request, evaluate, stored
from onceflow.logs import errors, resources, store
from onceflow.logs.resources import Row
from onceflow.logs.service import group_arn
from onceflow.registry import operation
from onceflow.store.db import Database

if TYPE_CHECKING:
    from onceflow.ports import Port
    from onceflow.s3.ports import ObjectStore

log = logging.getLogger("onceflow.logs")
Params = dict[str, Any]
KIND = "export-task"
DEFAULT_PREFIX = "exportedlogs"  # model documentation
WRITE_TEST_KEY = "aws-logs-write-test"
WRITE_TEST_BODY = b"Permission Check Successful"  # as moto's aws_verified test reads it back from AWS
PART_BYTES = 64 * 1024 * 1024  # UNCONFIRMED: where AWS starts a stream's next numbered object
READ_CHUNK = 5_000
COMPLETED_MESSAGE = "Completed successfully"  # UNCONFIRMED wording


def _bucket_allows(policy_text: str | None, action: str, resource: str, context: dict[str, list[str]]) -> bool:
    if not policy_text:
        return False
    try:
        policy = stored(policy_text, "resource")
    except MalformedPolicy:
        return False
    return evaluate([policy], Request(action, resource, context, principal=("Service", "logs.amazonaws.com"))).allowed


def _lines(rows: list[Any]) -> Iterator[bytes]:
    for row in rows:
        stamp = datetime.fromtimestamp(row["ts"] / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        yield f"{stamp} {row['message']}\n".encode()


def _shape(row: Row) -> Params:
    out: Params = {"taskId": row["name"]}
    if row.get("taskName"):
        out["taskName"] = row["taskName"]
    out.update({"logGroupName": row["logGroupName"], "from": row["from"], "to": row["to"],
                "destination": row["destination"], "destinationPrefix": row["destinationPrefix"],
                "status": row["status"], "executionInfo": row["executionInfo"]})
    return out


class ExportsApi:
    def __init__(self, db: Database, clock: Callable[[], int], objects: Port[ObjectStore],
                 authorize: Callable[[RequestContext, Params], None] | None = None) -> None:
        self.db = db
        self.clock = clock
        self.objects = objects  # S3, looked up when used (it may be set up after Logs)
        self.authorize = authorize  # stack.authorize: the caller must be allowed to write to the bucket

    def _caller_may_write(self, ctx: RequestContext, bucket: str, key: str) -> None:
        """"You must use credentials that have permission to write to the S3 bucket" (model documentation):
        the caller's own s3:PutObject is evaluated as if it made the call (role sessions always; users
        under --enforce-iam), and a refusal is the one AWS words for it."""
        if self.authorize is None:
            return
        try:
            self.authorize(RequestContext("s3", "PutObject", ctx.account, ctx.region, ctx.principal, internal=True),
                           {"Bucket": bucket, "Key": key})
        except ServiceError:
            raise errors.export_bucket_put_refused() from None

    @operation("CreateExportTask")
    def create_export_task(self, ctx: RequestContext, p: Params) -> Params:
        group_name, bucket = p["logGroupName"], p["destination"]
        start, end = p["from"], p["to"]
        if end < start:
            # UNCONFIRMED wording; AWS refuses a range that ends before it starts.
            raise errors.invalid_parameter("The 'to' time must be after the 'from' time.")
        group = self.db.read(lambda conn: store.get_group(conn, ctx.account, ctx.region, group_name))
        if group is None:
            raise errors.group_not_found()
        s3 = self.objects.get()
        facts = s3.bucket_facts(bucket) if s3 is not None else None
        if s3 is None or facts is None:
            raise errors.export_bucket_missing()
        owner, bucket_region, policy = facts
        if bucket_region != ctx.region:
            # UNCONFIRMED wording; the model documents that the bucket must be in the same region.
            raise errors.invalid_parameter("The given bucket is not in the same region as the log group.")
        source = group_arn(ctx.region, ctx.account, group_name)
        context = {"aws:sourceaccount": [ctx.account], "aws:sourcearn": [source],
                   "aws:principalservicename": ["logs.amazonaws.com"]}
        bucket_arn = f"arn:{partition(ctx.region)}:s3:::{bucket}"
        if not _bucket_allows(policy, "s3:GetBucketAcl", bucket_arn, context):
            raise errors.export_bucket_acl_refused()
        prefix = p.get("destinationPrefix")
        task_id = str(uuid.uuid4())
        base = prefix.strip("/") if prefix else DEFAULT_PREFIX
        put_context = {**context, "s3:x-amz-acl": ["bucket-owner-full-control"]}
        test_key = f"{prefix.strip('/')}/{WRITE_TEST_KEY}" if prefix else WRITE_TEST_KEY  # UNCONFIRMED with a prefix
        if not _bucket_allows(policy, "s3:PutObject", f"{bucket_arn}/{test_key}", put_context) or \
                not _bucket_allows(policy, "s3:PutObject", f"{bucket_arn}/{base}/{task_id}/x", put_context):
            raise errors.export_bucket_put_refused()
        self._caller_may_write(ctx, bucket, f"{base}/{task_id}/x")
        created = self.clock()
        s3.put_object(owner, bucket, test_key, WRITE_TEST_BODY)
        try:
            self._export(ctx, group["id"], p.get("logStreamNamePrefix"), start, end, s3, owner, bucket,
                         f"{base}/{task_id}")
            status = {"code": "COMPLETED", "message": COMPLETED_MESSAGE}
        except ServiceError as exc:  # the bucket changed under the task (deleted, locked): the task fails
            log.warning("export task %s failed: %s", task_id, exc)
            status = {"code": "FAILED", "message": exc.message}
        data: Params = {"logGroupName": group_name, "from": start, "to": end, "destination": bucket,
                        "destinationPrefix": prefix if prefix else DEFAULT_PREFIX, "status": status,
                        "executionInfo": {"creationTime": created, "completionTime": self.clock()}}
        if p.get("taskName"):
            data["taskName"] = p["taskName"]
        with self.db.transaction() as conn:
            resources.put(conn, ctx.account, ctx.region, KIND, task_id, created, data)
        return {"taskId": task_id}

    def _export(self, ctx: RequestContext, group_id: int, stream_prefix: str | None, start: int, end: int,
                s3: ObjectStore, owner: str, bucket: str, base: str) -> None:
        def streams(conn: Any) -> list[Any]:
            if stream_prefix:
                return store.streams_with_prefix(conn, group_id, stream_prefix)
            return [r for r in conn.execute("SELECT id, name FROM logs_streams WHERE group_id=? ORDER BY name",
                                            (group_id,)).fetchall()]

        for stream in self.db.read(streams):
            part, text, after = 0, bytearray(), None
            while True:
                rows = self._rows(group_id, stream["id"], start, end, after)
                for line in _lines(rows):
                    text += line
                    if len(text) >= PART_BYTES:
                        self._write(s3, owner, bucket, f"{base}/{stream['name']}/{part:06d}.gz", text)
                        part, text = part + 1, bytearray()
                if len(rows) < READ_CHUNK:
                    break
                after = (rows[-1]["ts"], rows[-1]["id"])
            if text:
                self._write(s3, owner, bucket, f"{base}/{stream['name']}/{part:06d}.gz", text)

    def _rows(self, group_id: int, stream_id: int, start: int, end: int, after: tuple[int, int] | None) -> list[Any]:
        return self.db.read(lambda conn: store.group_events(conn, group_id, [stream_id], start=start, end=end,
                                                            after=after, limit=READ_CHUNK))

    @staticmethod
    def _write(s3: ObjectStore, owner: str, bucket: str, key: str, text: bytearray) -> None:
        s3.put_object(owner, bucket, key, gzip.compress(bytes(text)))

    @operation("DescribeExportTasks")
    def describe_export_tasks(self, ctx: RequestContext, p: Params) -> Params:
        rows = self.db.read(lambda conn: resources.every(conn, ctx.account, ctx.region, KIND, order="created"))
        if p.get("taskId"):  # an unknown id lists nothing (snapshot-recorded), it is not an error
            rows = [r for r in rows if r["name"] == p["taskId"]]
        if p.get("statusCode"):
            rows = [r for r in rows if r["status"]["code"] == p["statusCode"]]
        return resources.page(rows, p.get("nextToken"), p.get("limit"), KIND, _shape, "exportTasks")

    @operation("CancelExportTask")
    def cancel_export_task(self, ctx: RequestContext, p: Params) -> None:
        row = self.db.read(lambda conn: resources.get(conn, ctx.account, ctx.region, KIND, p["taskId"]))
        if row is None:
            raise errors.export_task_not_found()
        raise errors.export_task_finished()  # every task has finished by the time CreateExportTask answered
