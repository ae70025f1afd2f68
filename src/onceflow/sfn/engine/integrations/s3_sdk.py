"""aws-sdk:s3:* bodies as Step Functions passes them: text in the state's JSON, not base64.

PutObject's (and UploadPart's) Body is written as its string's UTF-8 bytes, or as the JSON text
of any other value; GetObject's Body comes back as the object's text. Errors are named as AWS
names them here, after the Java SDK's exception classes: `S3.NoSuchKeyException`, and
`S3.S3Exception` for codes S3's model does not declare.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Collection
from typing import Any

from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine.integrations.calls import call_service
from onceflow.stack import Stack

_BODY_IN = frozenset({"PutObject", "UploadPart"})


def request(operation: str, params: Any) -> Any:
    if operation not in _BODY_IN or not isinstance(params, dict) or "Body" not in params:
        return params
    body = params["Body"]
    text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return {**params, "Body": base64.b64encode(text.encode()).decode()}


def response(operation: str, result: Any) -> Any:
    if operation != "GetObject" or not isinstance(result, dict) or "Body" not in result:
        return result
    body = result["Body"]
    if isinstance(body, str):  # already base64 from the JSON conversion
        raw = base64.b64decode(body)
    elif isinstance(body, bytes | bytearray):
        raw = bytes(body)
    else:  # a stream of pieces
        raw = b"".join(body)
    return {**result, "Body": raw.decode("utf-8", errors="replace")}


def call(stack: Stack, principal: Principal, region: str, operation: str, params: Any,
         modeled: Collection[str]) -> Any:
    try:
        return response(operation, call_service(stack, principal, region, "s3", operation,
                                                request(operation, params)))
    except ServiceError as e:
        name = f"{e.code}Exception" if e.code in modeled else "S3Exception"
        raise StatesError(f"S3.{name}", f"{e.message} (Service: S3, Status Code: {e.status}, Request ID: "
                                        f"{uuid.uuid4().hex[:16].upper()}, Extended Request ID: "
                                        f"{base64.b64encode(uuid.uuid4().bytes * 3).decode()})") from None
