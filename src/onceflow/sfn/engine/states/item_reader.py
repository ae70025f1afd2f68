"""ItemReader: a Distributed Map's items read from S3 (stack.ports.objects) instead of its input.

`arn:aws:states:::s3:listObjectsV2` gives one item per object (Etag, Key, LastModified, Size,
StorageClass); `arn:aws:states:::s3:getObject` parses one object as ReaderConfig.InputType says:
a JSON array, JSON Lines, or CSV (header from the first row or from CSVHeaders, values as
strings), or an S3 Inventory report's manifest.json (MANIFEST: one item per row of its gzipped CSV
data files, keyed by the manifest's fileSchema). MaxItems caps the count. Failures are
States.ItemReaderFailed, as AWS reports them.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from typing import Any

from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError

LIST = "arn:aws:states:::s3:listObjectsV2"
DELIMITERS = {"COMMA": ",", "PIPE": "|", "SEMICOLON": ";", "SPACE": " ", "TAB": "\t"}
_PAGE = 1000


def failed(cause: str) -> StatesError:
    return StatesError("States.ItemReaderFailed", cause)


def read_items(s3: Any, account: str, resource: str, params: dict[str, Any], config: dict[str, Any],
               max_items: int | None) -> list[Any]:
    bucket = params.get("Bucket")
    if not isinstance(bucket, str):
        raise failed("The field 'Bucket' is required in the ItemReader's Parameters")
    try:
        if resource == LIST:
            items = _list(s3, account, bucket, params, max_items)
        else:  # arn:aws:states:::s3:getObject (the definition check allows only these two)
            key = params.get("Key")
            if not isinstance(key, str):
                raise failed("The field 'Key' is required in the ItemReader's Parameters")
            _row, pieces = s3.get_object(account, bucket, key, params.get("VersionId"))
            body = b"".join(pieces)
            if config.get("InputType") == "MANIFEST":
                items = _inventory(s3, account, body, max_items)
            else:
                items = _parse(body, config, max_items)
    except ServiceError as e:
        raise failed(f"S3 {e.code}: {e.message}") from None
    return items if max_items is None else items[:max_items]


def _list(s3: Any, account: str, bucket: str, params: dict[str, Any], max_items: int | None) -> list[Any]:
    prefix = params.get("Prefix") or ""
    after = params.get("StartAfter") or ""
    out: list[Any] = []
    while max_items is None or len(out) < max_items:
        rows, _prefixes, truncated, last = s3.list_objects(account, bucket, prefix, "", after, _PAGE)
        out.extend({"Etag": f'"{r["etag"]}"', "Key": r["key"], "LastModified": int(r["modified"]),
                    "Size": r["size"], "StorageClass": r.get("storage_class") or "STANDARD"} for r in rows)
        if not truncated or not rows:
            break
        after = last
    return out


def _inventory(s3: Any, account: str, manifest: bytes, max_items: int | None) -> list[Any]:
    """An S3 Inventory manifest: its data files (in its destination bucket), CSV without a header
    row, gzipped, their columns named by fileSchema ("Bucket, Key, Size, ...")."""
    try:
        doc = json.loads(manifest)
    except ValueError:
        raise failed("Attempting to map S3 object content to JSON failed") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), list):
        raise failed("The S3 inventory manifest has no 'files' list")
    if doc.get("fileFormat", "CSV") != "CSV":
        raise failed(f"The S3 inventory file format {doc.get('fileFormat')} is not supported; use CSV")
    headers = [h.strip() for h in str(doc.get("fileSchema") or "").split(",") if h.strip()]
    destination = str(doc.get("destinationBucket") or "").rsplit(":", 1)[-1]
    out: list[Any] = []
    for entry in doc["files"]:
        if max_items is not None and len(out) >= max_items:
            break
        key = entry.get("key") if isinstance(entry, dict) else None
        if not isinstance(key, str):
            raise failed("An S3 inventory manifest file entry has no 'key'")
        _row, pieces = s3.get_object(account, destination, key)
        data = b"".join(pieces)
        if data[:2] == b"\x1f\x8b":
            try:
                data = gzip.decompress(data)
            except OSError:
                raise failed(f"The S3 inventory file {key} is not valid gzip") from None
        left = None if max_items is None else max_items - len(out)
        out += _csv(data.decode("utf-8-sig"), {"CSVHeaderLocation": "GIVEN", "CSVHeaders": headers}, left)
    return out


def _parse(body: bytes, config: dict[str, Any], max_items: int | None) -> list[Any]:
    kind = config.get("InputType")
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise failed("The object is not valid UTF-8 text") from None
    if kind == "JSON":
        try:
            value = json.loads(text)
        except ValueError:
            raise failed("Attempting to map S3 object content to JSON failed") from None
        if not isinstance(value, list):
            raise failed("Attempting to map S3 object content to JSON failed: it is not a JSON array")
        return value
    if kind == "JSONL":
        out: list[Any] = []
        for n, line in enumerate(text.splitlines(), 1):
            if max_items is not None and len(out) >= max_items:
                break
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except ValueError:
                raise failed(f"Attempting to map line {n} of the S3 object content to JSON failed") from None
        return out
    if kind == "CSV":
        return _csv(text, config, max_items)
    raise failed(f"InputType {kind} is not supported by onceflow")


def _csv(text: str, config: dict[str, Any], max_items: int | None) -> list[dict[str, str]]:
    delimiter = DELIMITERS.get(config.get("CSVDelimiter", "COMMA"), ",")
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    if config.get("CSVHeaderLocation", "FIRST_ROW") == "GIVEN":
        headers = list(config.get("CSVHeaders") or [])
    else:
        headers = next(rows, []) or []
        if not headers:
            raise failed("The CSV file has no header row")
    out: list[dict[str, str]] = []
    for row in rows:
        if max_items is not None and len(out) >= max_items:
            break
        if not row:
            continue
        if len(row) > len(headers):
            raise failed(f"The CSV row has more fields ({len(row)}) than headers ({len(headers)})")
        out.append({h: (row[i] if i < len(row) else "") for i, h in enumerate(headers)})
    return out
