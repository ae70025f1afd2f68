"""ExportTableToPointInTime to onceflow's S3 and ImportTable from it.

An export writes what AWS writes under `<prefix>/AWSDynamoDB/<export id>/`: `data/<n>.json.gz`
(gzipped lines `{"Item": {...}}` in DynamoDB JSON), `manifest-files.json` (a line per data file)
and `manifest-summary.json` (ExportManifest names it). The items are the table's at ExportTime,
from point-in-time recovery's history (so recovery must be enabled, as on AWS). An import reads
every object under the key prefix (DynamoDB JSON lines or CSV, optionally gzipped) into a new table
made by CreateTable's rules; a line it cannot read counts in ErrorCount and is skipped.

An INCREMENTAL_EXPORT writes, for each item written in [ExportFromTime, ExportToTime), a line
with its Keys, its NewImage (absent for a deletion) and, for NEW_AND_OLD_IMAGES, its OldImage,
from the same history.

Both run to completion inside the call (AWS runs them for minutes): the first answer says
IN_PROGRESS, Describe* say COMPLETED or FAILED with AWS's failure codes. S3 is reached through
`stack.ports.objects` (s3/ports.py ObjectStore), in the caller's account, each object write or read first
authorized as the caller would be calling S3 (s3:PutObject for the export's files, s3:ListBucket and
s3:GetObject for the import's sources, bucket policies included): a refusal fails the transfer with
S3AccessDenied, as AWS's does.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from onceflow.awsmodels.partitions import partition
from onceflow.context import RequestContext
from onceflow.ddb import errors, errors_recovery
from onceflow.ddb import items as it
from onceflow.ddb.schema import Table, new_table
from onceflow.ddb.service import DynamoDB
from onceflow.ddb.values import Item, dumps, item_size, loads
from onceflow.errors import ServiceError, validation_error

MIGRATIONS = [
    ("ddb-export-0001", """
        CREATE TABLE ddb_exports (
            arn TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            table_arn TEXT NOT NULL,
            created REAL NOT NULL,
            description TEXT NOT NULL
        );
        CREATE TABLE ddb_imports (
            arn TEXT PRIMARY KEY,
            account TEXT NOT NULL,
            region TEXT NOT NULL,
            table_arn TEXT NOT NULL,
            created REAL NOT NULL,
            description TEXT NOT NULL
        );
    """),
]
LINES_PER_FILE = 10_000
S3Authorizer = Callable[[RequestContext, dict[str, Any]], None]


def _ts(x: float) -> datetime:
    return datetime.fromtimestamp(x, UTC)


class Transfers:
    def __init__(self, svc: DynamoDB, s3: Callable[[], Any], authorize: S3Authorizer | None = None) -> None:
        self.svc = svc
        self.db = svc.db
        self.s3 = s3  # S3 (stack.ports.objects), looked up when used (S3 is set up after DynamoDB)
        self.authorize = authorize  # stack.authorize

    def _may(self, ctx: RequestContext, operation: str, bucket: str, key: str | None = None) -> None:
        """Raise S3's AccessDenied unless the caller may make this S3 call (DynamoDB acts with the
        caller's permissions: aws:ViaAWSService is true)."""
        if self.authorize is None:
            return
        params = {"Bucket": bucket} if key is None else {"Bucket": bucket, "Key": key}
        self.authorize(RequestContext("s3", operation, ctx.account, ctx.region, ctx.principal, internal=True),
                       params)

    # -------------------------------------------------------------- export
    def export(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        account, region = ctx.account, ctx.region
        try:
            t = self.svc.table(account, region, p["TableArn"])
        except ServiceError:
            raise errors_recovery.backup_table_not_found(p["TableArn"]) from None
        if (p.get("ExportFormat") or "DYNAMODB_JSON") != "DYNAMODB_JSON":
            raise validation_error(errors_recovery.ONLY_DYNAMODB_JSON)
        kind = p.get("ExportType") or "FULL_EXPORT"
        if t.pitr_days is None or t.pitr_since is None:
            raise errors_recovery.pitr_unavailable(t.name)
        now = self.svc.clock()
        earliest = self.svc.pitr_window(t, now)[0] - 1  # the window DescribeContinuousBackups shows, less a second
        spec = _incremental(p, earliest, now) if kind == "INCREMENTAL_EXPORT" else None
        at = spec["ExportToTime"] if spec else p["ExportTime"].timestamp() if p.get("ExportTime") else now
        if not earliest <= at <= now + 1:
            # AWS takes an ExportTime up to now, not only up to LatestRestorableDateTime (5 minutes back):
            # scylladb/scylladb test/alternator/test_export.py::test_export_table_export_time_now.
            raise errors_recovery.export_time()
        token = p.get("ClientToken")
        if token:
            same = self._by_token("ddb_exports", account, region, token)
            if same is not None:
                return {"ExportDescription": same}
        export_id = f"{int(now * 1000):014d}-{uuid.uuid4().hex[:8]}"
        arn = f"{t.arn}/export/{export_id}"
        prefix = (p.get("S3Prefix") or "").strip("/")
        base = f"{prefix}/AWSDynamoDB/{export_id}" if prefix else f"AWSDynamoDB/{export_id}"
        d: dict[str, Any] = {"ExportArn": arn, "ExportStatus": "IN_PROGRESS", "StartTime": now, "TableArn": t.arn,
                             "TableId": t.table_id, "S3Bucket": p["S3Bucket"],
                             "S3SseAlgorithm": p.get("S3SseAlgorithm") or "AES256", "ExportFormat": "DYNAMODB_JSON",
                             "ExportType": kind}
        if spec is None:
            d["ExportTime"] = at
        else:
            d["IncrementalExportSpecification"] = spec
        for k in ("ClientToken", "S3BucketOwner", "S3SseKmsKeyId"):
            if p.get(k):
                d[k] = p[k]
        if prefix:
            d["S3Prefix"] = prefix
        first = dict(d)
        try:
            d.update(self._write_export(ctx, t, at, d, base))
            d["ExportStatus"] = "COMPLETED"
        except ServiceError as e:  # the bucket is missing, say: the export fails, the call does not
            d.update(ExportStatus="FAILED", FailureCode=_s3_failure(e), FailureMessage=e.message)
        d["EndTime"] = self.svc.clock()
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO ddb_exports VALUES (?,?,?,?,?,?)",
                         (arn, account, region, t.arn, now, json.dumps(d)))
        return {"ExportDescription": _times(first)}

    def _items_at(self, t: Table, at: float) -> list[str]:
        rows = self.db.query(
            "SELECT h.item FROM ddb_item_history h WHERE h.table_id=? AND h.seq = (SELECT MAX(seq) FROM "
            "ddb_item_history x WHERE x.table_id=h.table_id AND x.hk=h.hk AND x.rk=h.rk AND x.at <= ?)",
            (t.id, at))
        return [r[0] for r in rows if r[0] is not None]

    def _changes(self, t: Table, spec: dict[str, Any]) -> list[str]:
        """An incremental export's lines: each item written in [from, to), with its state at `to`
        (NewImage, absent when it was deleted) and, for NEW_AND_OLD_IMAGES, at `from` (OldImage)."""
        frm, to = spec["ExportFromTime"], spec["ExportToTime"]
        rows = self.db.query(
            "SELECT h.hk, h.rk, h.item, h.at, (SELECT o.item FROM ddb_item_history o WHERE o.table_id=h.table_id "
            "AND o.hk=h.hk AND o.rk=h.rk AND o.at < ? ORDER BY o.seq DESC LIMIT 1) FROM ddb_item_history h "
            "WHERE h.table_id=? AND h.at >= ? AND h.seq = (SELECT MAX(seq) FROM ddb_item_history x "
            "WHERE x.table_id=h.table_id AND x.hk=h.hk AND x.rk=h.rk AND x.at < ?) ORDER BY h.hk, h.rk",
            (frm, t.id, frm, to))
        lines = []
        for _, _, new, at, old in rows:
            if new is None and old is None:  # made and deleted within the period: no change to show
                continue
            keys = it.key_of(t, loads(new if new is not None else old))
            line = f'{{"Metadata":{{"WriteTimestampMicros":{{"N":"{int(at * 1_000_000)}"}}}},"Keys":{dumps(keys)}'
            if new is not None:
                line += f',"NewImage":{new}'
            if old is not None and spec["ExportViewType"] == "NEW_AND_OLD_IMAGES":
                line += f',"OldImage":{old}'
            lines.append(line + "}")
        return lines

    def _write_export(self, ctx: RequestContext, t: Table, at: float, d: dict[str, Any], base: str) -> dict[str, Any]:
        s3 = self.s3()
        account, bucket = ctx.account, d["S3Bucket"]
        spec = d.get("IncrementalExportSpecification")

        def put(key: str, body: bytes) -> dict[str, Any]:
            self._may(ctx, "PutObject", bucket, key)
            return s3.put_object(account, bucket, key, body)

        texts = self._changes(t, spec) if spec else [f'{{"Item":{text}}}' for text in self._items_at(t, at)]
        manifest_lines, size = [], 0
        for n in range(0, max(len(texts), 1), LINES_PER_FILE):
            chunk = texts[n:n + LINES_PER_FILE]
            body = "".join(f"{text}\n" for text in chunk).encode()
            size += len(body)
            key = f"{base}/data/{uuid.uuid4().hex}.json.gz"
            packed = gzip.compress(body, mtime=0)
            row = put(key, packed)
            manifest_lines.append(json.dumps({"itemCount": len(chunk), "md5Checksum": hashlib.md5(
                packed, usedforsecurity=False).hexdigest(), "etag": row["etag"].strip('"'), "dataFileS3Key": key}))
        files_key = f"{base}/manifest-files.json"
        put(files_key, ("\n".join(manifest_lines) + "\n").encode())
        summary_key = f"{base}/manifest-summary.json"
        summary = {"version": "2020-06-30", "exportArn": d["ExportArn"], "startTime": _iso(d["StartTime"]),
                   "endTime": _iso(self.svc.clock()), "tableArn": t.arn, "tableId": t.table_id,
                   "exportTime": _iso(at), "s3Bucket": bucket, "s3Prefix": d.get("S3Prefix"),
                   "s3SseAlgorithm": d["S3SseAlgorithm"], "s3SseKmsKeyId": d.get("S3SseKmsKeyId"),
                   "manifestFilesS3Key": files_key, "billedSizeBytes": size, "itemCount": len(texts),
                   "outputFormat": "DYNAMODB_JSON", "exportType": d["ExportType"]}
        if spec:
            del summary["exportTime"]
            summary.update(exportFromTime=_iso(spec["ExportFromTime"]), exportToTime=_iso(spec["ExportToTime"]),
                           outputView=spec["ExportViewType"])
        put(summary_key, json.dumps(summary).encode())
        return {"ExportManifest": summary_key, "BilledSizeBytes": size, "ItemCount": len(texts)}

    def describe_export(self, account: str, region: str, arn: str) -> dict[str, Any]:
        found = self._described("ddb_exports", account, region, arn)
        if found is None:
            raise errors_recovery.export_not_found(arn)
        return {"ExportDescription": found}

    def list_exports(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        rows = self._list("ddb_exports", account, region, p.get("TableArn"))
        page, token = _page(rows, p.get("NextToken"), p.get("MaxResults") or 25)
        out: dict[str, Any] = {"ExportSummaries": [{k: d[k] for k in ("ExportArn", "ExportStatus", "ExportType")}
                                                   for d in page]}
        if token:
            out["NextToken"] = token
        return out

    # -------------------------------------------------------------- import
    def import_table(self, ctx: RequestContext, p: dict[str, Any]) -> dict[str, Any]:
        account, region = ctx.account, ctx.region
        fmt = p["InputFormat"]
        if fmt not in ("DYNAMODB_JSON", "CSV"):
            raise errors_recovery.input_format_unsupported(fmt)
        compression = p.get("InputCompressionType") or "NONE"
        if compression == "ZSTD":
            raise validation_error(errors_recovery.ZSTD_UNSUPPORTED)
        token = p.get("ClientToken")
        if token:
            same = self._by_token("ddb_imports", account, region, token)
            if same is not None:
                return {"ImportTableDescription": same}
        params = p["TableCreationParameters"]
        name = params["TableName"]
        if self.svc.store.load_table(account, region, name) is not None:
            raise errors.table_exists(name)
        now = self.svc.clock()
        t = new_table(account, region, dict(params), now)  # CreateTable's own checks on the schema
        arn = f"{t.arn}/import/{int(now * 1000):014d}-{uuid.uuid4().hex[:8]}"
        d: dict[str, Any] = {"ImportArn": arn, "ImportStatus": "IN_PROGRESS", "TableArn": t.arn,
                             "TableId": t.table_id, "S3BucketSource": p["S3BucketSource"], "ErrorCount": 0,
                             "CloudWatchLogGroupArn": f"arn:{partition(region)}:logs:{region}:{account}:log-group:"
                                                      f"/aws-dynamodb/imports:*",
                             "InputFormat": fmt, "InputCompressionType": compression,
                             "TableCreationParameters": params, "StartTime": now, "ProcessedSizeBytes": 0,
                             "ProcessedItemCount": 0, "ImportedItemCount": 0}
        for k in ("ClientToken", "InputFormatOptions"):
            if p.get(k):
                d[k] = p[k]
        first = dict(d)
        try:
            items, failed, size, malformed = self._read_source(ctx, p, t)
        except ServiceError as e:
            d.update(ImportStatus="FAILED", FailureCode=_s3_failure(e), FailureMessage=e.message)
            items = None
        if items is not None:
            self._create(t, items)
            d.update(ImportStatus="FAILED" if malformed else "COMPLETED", ErrorCount=failed, ProcessedSizeBytes=size,
                     ProcessedItemCount=len(items) + failed, ImportedItemCount=len(items))
        d["EndTime"] = self.svc.clock()
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO ddb_imports VALUES (?,?,?,?,?,?)",
                         (arn, account, region, t.arn, now, json.dumps(d)))
        return {"ImportTableDescription": _times(first)}

    def _read_source(self, ctx: RequestContext, p: dict[str, Any],
                     t: Table) -> tuple[list[Item], int, int, bool]:
        s3 = self.s3()
        src, account = p["S3BucketSource"], ctx.account
        bucket, prefix = src["S3Bucket"], src.get("S3KeyPrefix") or ""
        self._may(ctx, "ListObjectsV2", bucket)
        items: list[Item] = []
        failed = size = 0
        malformed = False
        after = ""
        while True:
            objects, _, truncated, last = s3.list_objects(account, bucket, prefix, "", after, 1000)
            for obj in objects:
                self._may(ctx, "GetObject", bucket, obj["key"])
                _, pieces = s3.get_object(account, bucket, obj["key"])
                body = b"".join(pieces)
                size += len(body)
                if (p.get("InputCompressionType") or "NONE") == "GZIP":
                    try:
                        body = gzip.decompress(body)
                    except (OSError, EOFError):
                        failed += 1
                        continue
                got, bad, wrong = _parse_objects(body, p, t)
                items += got
                failed += bad
                malformed = malformed or wrong
            if not truncated:
                return items, failed, size, malformed
            after = last

    def _create(self, t: Table, items: list[Item]) -> None:
        with self.db.transaction() as conn:
            t.id = self.svc.store.insert_table(conn, t)
            for item in items:
                hk, rk = it.item_key_bytes(t, item)
                try:
                    self.svc.write(conn, t, hk, rk, None, item)
                except ServiceError:  # an index attribute of another type: the item stays out of the index
                    self.svc.store.put(conn, t.id, hk, rk, dumps(item), item_size(item), it.expiry(t, item))
        self.svc.remember(t)

    def describe_import(self, account: str, region: str, arn: str) -> dict[str, Any]:
        found = self._described("ddb_imports", account, region, arn)
        if found is None:
            raise errors_recovery.import_not_found(arn)
        return {"ImportTableDescription": found}

    def list_imports(self, account: str, region: str, p: dict[str, Any]) -> dict[str, Any]:
        rows = self._list("ddb_imports", account, region, p.get("TableArn"))
        page, token = _page(rows, p.get("NextToken"), p.get("PageSize") or 25)
        keep = ("ImportArn", "ImportStatus", "TableArn", "S3BucketSource", "CloudWatchLogGroupArn", "InputFormat",
                "StartTime", "EndTime")
        out: dict[str, Any] = {"ImportSummaryList": [_times({k: d[k] for k in keep if k in d}) for d in page]}
        if token:
            out["NextToken"] = token
        return out

    # -------------------------------------------------------------- shared
    def _described(self, table: str, account: str, region: str, arn: str) -> dict[str, Any] | None:
        row = self.db.query_one(f"SELECT description FROM {table} WHERE arn=? AND account=? AND region=?",
                                (arn, account, region))
        return None if row is None else _times(json.loads(row[0]))

    def _by_token(self, table: str, account: str, region: str, token: str) -> dict[str, Any] | None:
        for row in self.db.query(f"SELECT description FROM {table} WHERE account=? AND region=?", (account, region)):
            d = json.loads(row[0])
            if d.get("ClientToken") == token:
                return _times(d)
        return None

    def _list(self, table: str, account: str, region: str, table_arn: str | None) -> list[dict[str, Any]]:
        sql = f"SELECT description FROM {table} WHERE account=? AND region=?"
        args: list[Any] = [account, region]
        if table_arn:
            sql += " AND table_arn=?"
            args.append(table_arn)
        return [json.loads(r[0]) for r in self.db.query(sql + " ORDER BY created, arn", args)]


def _json_records(text: str) -> Iterator[str | None]:
    """The JSON documents of a DYNAMODB_JSON object as text: one a line, or several on one line back
    to back (DynamoDB reads both); None for a stretch that is no JSON, up to the end of its line."""
    decoder, pos = json.JSONDecoder(), 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return
        try:
            _, end = decoder.raw_decode(text, pos)
        except ValueError:
            newline = text.find("\n", pos)
            yield None
            pos = len(text) if newline < 0 else newline + 1
            continue
        yield text[pos:end]
        pos = end


def _parse_objects(body: bytes, p: dict[str, Any], t: Table) -> tuple[list[Item], int, bool]:
    """The items of one source object, how many records could not be imported, and whether one was
    malformed (not an {"Item": ...} document: the import then FAILS, keeping what it read)."""
    text = body.decode("utf-8", "replace")
    if p["InputFormat"] == "CSV":
        return (*_csv_items(text, p.get("InputFormatOptions", {}).get("Csv", {}), t), False)
    items, bad, malformed = [], 0, False
    for record in _json_records(text):
        try:
            doc = loads(record) if record is not None else None
        except ValueError:
            doc = None
        if not isinstance(doc, dict) or not isinstance(doc.get("Item"), dict):
            bad, malformed = bad + 1, True
            continue
        try:
            it.item_key_bytes(t, doc["Item"])  # the key must be there with its declared type
        except (ValueError, KeyError, TypeError, ServiceError):
            bad += 1
            continue
        items.append(doc["Item"])
    return items, bad, malformed


def _csv_items(text: str, options: dict[str, Any], t: Table) -> tuple[list[Item], int]:
    """CSV rows as items: key attributes typed by AttributeDefinitions, every other value a string."""
    rows: Iterator[list[str]] = csv.reader(io.StringIO(text), delimiter=options.get("Delimiter") or ",")
    header = options.get("HeaderList") or next(rows, None)
    if not header:
        return [], 0
    items, bad = [], 0
    for row in rows:
        if not row:
            continue
        item = {name: {t.attributes.get(name, "S"): value} for name, value in zip(header, row, strict=False)
                if value != ""}
        try:
            it.item_key_bytes(t, item)
        except (ServiceError, ValueError, KeyError):
            bad += 1
            continue
        items.append(item)
    return items, bad


MIN_INCREMENT, MAX_INCREMENT = 15 * 60, 24 * 3600  # an incremental export's period: 15 minutes to 24 hours


def _incremental(p: dict[str, Any], earliest: float, now: float) -> dict[str, Any]:
    """IncrementalExportSpecification checked, as epoch seconds (wording UNCONFIRMED throughout)."""
    spec = p.get("IncrementalExportSpecification") or {}
    if p.get("ExportTime"):
        raise validation_error(errors_recovery.EXPORT_TIME_WITH_INCREMENTAL)
    if spec.get("ExportFromTime") is None:
        raise validation_error(errors_recovery.EXPORT_FROM_REQUIRED)
    frm = spec["ExportFromTime"].timestamp()
    to = spec["ExportToTime"].timestamp() if spec.get("ExportToTime") else now
    if frm < earliest:
        raise errors_recovery.export_time(errors_recovery.EXPORT_FROM_OUTSIDE)
    if not MIN_INCREMENT <= to - frm <= MAX_INCREMENT:
        raise errors_recovery.export_time(errors_recovery.INCREMENT_PERIOD)
    return {"ExportFromTime": frm, "ExportToTime": to, "ExportViewType": spec.get("ExportViewType")
            or "NEW_AND_OLD_IMAGES"}


def _s3_failure(e: ServiceError) -> str:
    return {"NoSuchBucket": "S3NoSuchBucket", "AccessDenied": "S3AccessDenied"}.get(e.code, e.code)


def _iso(x: float) -> str:
    return _ts(x).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _times(d: dict[str, Any]) -> dict[str, Any]:
    """Stored epoch seconds as the datetimes the wire renders."""
    out: dict[str, Any] = {k: _ts(v) if k in ("StartTime", "EndTime", "ExportTime") and isinstance(v, int | float)
                           else v for k, v in d.items()}
    spec = d.get("IncrementalExportSpecification")
    if spec:
        out["IncrementalExportSpecification"] = {k: _ts(v) if isinstance(v, int | float) else v
                                                 for k, v in spec.items()}
    return out


def _page(rows: list[dict[str, Any]], token: str | None, size: int) -> tuple[list[dict[str, Any]], str | None]:
    start = 0
    if token:
        if not token.isdigit():
            raise validation_error(errors.INVALID_NEXT_TOKEN)
        start = int(token)
    end = start + size
    return rows[start:end], (str(end) if end < len(rows) else None)
