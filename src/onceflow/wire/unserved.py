"""Requests for an AWS service onceflow does not serve (`aws s3 ls`, SQS, SNS, EventBridge...).

They get a 501 `NotImplemented` naming the service, in the shape that service's clients parse:
XML for REST-XML (S3) and EC2, query XML for query services, JSON for JSON and REST-JSON - never
the console's HTML page. The service comes from the SigV4 credential scope, its protocol from the
request's own shape (an X-Amz-Target, a form) and else from the model botocore ships for that
service (read by onceflow.awsmodels, botocore not imported).
"""

from __future__ import annotations

import re
from functools import lru_cache

from onceflow.awsmodels.files import ModelFiles, ModelNotFound
from onceflow.awsmodels.model import ServiceModel
from onceflow.errors import ServiceError
from onceflow.wire.query import escape
from onceflow.wire.request import Request, Response
from onceflow.wire.specs import SERVED_NAMES, ServiceSpec

# Signing names whose botocore model is filed under another name.
_MODEL_NAMES = {"monitoring": "cloudwatch", "email": "ses", "execute-api": "apigateway", "aoss": "opensearchserverless"}
# X-Amz-Target prefixes of unserved services that sign with a served service's name.
SHARED_SIGNING_TARGETS = {"DynamoDBStreams_20120810": "dynamodbstreams"}
_SIGNING_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{0,62}")  # what may reach the model loader (it joins paths)


class UnservedService(ServiceError):
    """A 501 for a whole service; `spec` is a stand-in ServiceSpec whose protocol renders it."""

    def __init__(self, spec: ServiceSpec, signing_name: str) -> None:
        full = spec.model.metadata.get("serviceFullName")
        named = f"{signing_name} ({full})" if full else signing_name
        super().__init__("NotImplemented", f"onceflow does not serve {named}; it serves {SERVED_NAMES}", 501,
                         sender_fault=False)
        self.spec = spec


def unserved(loader: ModelFiles, signing_name: str, request: Request) -> UnservedService:
    name = signing_name if _SIGNING_NAME.fullmatch(signing_name) else "unknown"
    model = _model(loader, name)
    return UnservedService(ServiceSpec(name, model, _protocol(model.protocol, request), None), name)


def _protocol(modeled: str, request: Request) -> str:
    """The protocol the client used: its request says it best (SQS moved from query to JSON)."""
    if request.headers.get("smithy-protocol") == "rpc-v2-cbor":
        return "smithy-rpc-v2-cbor"  # CloudWatch's first choice in botocore >= 1.40
    if "x-amz-target" in request.headers:
        return "json"
    if "x-www-form-urlencoded" in request.headers.get("content-type", "") or "Action=" in request.query_string:
        return "ec2" if modeled == "ec2" else "query"
    return modeled if modeled in ("rest-xml", "rest-json", "ec2", "query", "smithy-rpc-v2-cbor") else "rest-json"


@lru_cache(maxsize=1024)  # botocore has some 450 models: all of them fit, and each entry is small
def _model(loader: ModelFiles, name: str) -> ServiceModel:
    """The service's metadata only (its protocol and full name): a whole model can weigh megabytes."""
    try:
        metadata = loader.metadata(_MODEL_NAMES.get(name, name))
    except ModelNotFound:
        metadata = {"protocol": "rest-json"}
    return ServiceModel({"metadata": metadata, "operations": {}, "shapes": {}}, service_name=name)


def render_error(spec: ServiceSpec, err: ServiceError, request_id: str) -> Response:
    """The error shapes of REST-XML (S3: a bare <Error>), EC2 (<Response><Errors>) and RPC v2 CBOR."""
    headers = [("x-amzn-RequestId", request_id)]
    if spec.protocol == "smithy-rpc-v2-cbor":
        body = _cbor_map({"__type": err.code, "message": err.message})
        return Response(err.status, body, [*headers, ("smithy-protocol", "rpc-v2-cbor")], "application/cbor")
    error = f"<Error><Code>{escape(err.code)}</Code><Message>{escape(err.message)}</Message>"
    if spec.protocol == "ec2":
        text = f"<Response><Errors>{error}</Error></Errors><RequestID>{request_id}</RequestID></Response>"
    else:
        text = f"{error}<RequestId>{request_id}</RequestId></Error>"
    return Response(err.status, f'<?xml version="1.0" encoding="UTF-8"?>\n{text}'.encode(), headers,
                    "application/xml")


def _cbor_map(fields: dict[str, str]) -> bytes:
    """A CBOR map of short text strings (RFC 8949 major types 5 and 3) - all an error body needs."""
    out = bytearray([0xA0 | len(fields)])
    for key, value in fields.items():
        for text in (key, value):
            data = text.encode()
            if len(data) < 24:
                out.append(0x60 | len(data))
            elif len(data) < 256:
                out += bytes([0x78, len(data)])
            else:
                out += bytes([0x79]) + len(data).to_bytes(2, "big")
            out += data
    return bytes(out)
