"""botocore as the oracle: it serializes requests our parsers read back, and parses what we render.

No server: requests are turned into `onceflow.wire.request.Request` objects exactly as the ASGI app
builds them, and responses are handed to botocore's response parsers the way its endpoint does.
Operations may be given as onceflow's (onceflow.awsmodels) or botocore's: botocore serializes and
parses with its own model of the same operation, never with ours.
"""

from __future__ import annotations

import io
from functools import cache
from typing import Any
from urllib.parse import unquote, urlsplit

import botocore.parsers
import botocore.serialize
import botocore.session
from botocore.auth import SigV4Auth
from botocore.awsrequest import create_request_object, prepare_request_dict
from botocore.credentials import Credentials
from botocore.model import OperationModel, ServiceModel
from botocore.response import StreamingBody

from onceflow.awsmodels import model as awsmodel
from onceflow.errors import ServiceError
from onceflow.wire import json_rpc, query, rest_json
from onceflow.wire.request import Request, Response
from onceflow.wire.routing import Route, route
from onceflow.wire.sigv4 import Scope
from onceflow.wire.specs import ServiceSpec, Specs

SIGNING = {"dynamodb": "dynamodb", "stepfunctions": "states", "lambda": "lambda", "iam": "iam", "sts": "sts",
           "logs": "logs"}


@cache
def specs() -> Specs:
    return Specs()


def spec(service: str) -> ServiceSpec:
    return specs().services[service]


@cache
def botocore_model(service: str) -> ServiceModel:
    return botocore.session.get_session().get_service_model(service)


def botocore_op(service: str, op: OperationModel | awsmodel.OperationModel) -> OperationModel:
    """botocore's own model of the operation `op` names."""
    return op if isinstance(op, OperationModel) else botocore_model(service).operation_model(op.name)


def botocore_request(service: str, op: OperationModel | awsmodel.OperationModel, params: dict[str, Any], *,
                     access_key: str = "test", secret_key: str = "test", region: str = "us-east-1",
                     session_token: str | None = None) -> Request:
    """What botocore would put on the wire for `params` (signed with those keys), as the ASGI app
    hands it to the pipeline."""
    serializer = botocore.serialize.create_serializer(spec(service).protocol, include_validation=False)
    request_dict = serializer.serialize_to_request(params, botocore_op(service, op))
    prepare_request_dict(request_dict, endpoint_url="http://127.0.0.1:4566")
    aws_request = create_request_object(request_dict)
    SigV4Auth(Credentials(access_key, secret_key, session_token), SIGNING[service], region).add_auth(aws_request)
    prepared = aws_request.prepare()
    url = urlsplit(prepared.url)
    body = prepared.body or b""
    if isinstance(body, str):
        body = body.encode()
    elif not isinstance(body, bytes):
        body = body.read()
    headers = {k.lower(): v.decode() if isinstance(v, bytes) else str(v) for k, v in prepared.headers.items()}
    headers.setdefault("host", url.netloc)  # the HTTP client adds it; the signature covers it
    return Request(prepared.method, unquote(url.path), url.path, url.query, headers, body, "127.0.0.1")


def scope_for(service: str, access_key: str = "test", region: str = "us-east-1") -> Scope:
    return Scope(access_key, region, SIGNING[service])


def parse_request(service: str, request: Request) -> tuple[Route, dict[str, Any]]:
    """Route and parse a request exactly as wire/app.py does (raises ServiceError on bad input)."""
    from onceflow.wire import facts, protocols

    found = route(specs(), request, scope_for(service))
    assert found.operation is not None, found.operation_name
    code = facts.validation_code(found.spec.name, found.operation)
    return found, protocols.of(found.spec).parse(found, request, code)


def render(service: str, op: awsmodel.OperationModel, result: dict[str, Any] | None) -> Response:
    sp = spec(service)
    if sp.protocol == "json":
        return json_rpc.render(sp, result, "req-1")
    if sp.protocol == "query":
        return query.render(sp, op, result, "req-1")
    return rest_json.render(sp, op, result, "req-1")


def render_error(service: str, err: ServiceError) -> Response:
    sp = spec(service)
    if sp.protocol == "json":
        return json_rpc.render_error(sp, err, "req-1")
    if sp.protocol == "query":
        return query.render_error(sp, err, "req-1")
    return rest_json.render_error(sp, err, "req-1")


def _response_dict(response: Response) -> dict[str, Any]:
    headers = {"content-type": response.content_type, **dict(response.headers)}
    from botocore.awsrequest import HeadersDict

    return {"status_code": response.status, "headers": HeadersDict(headers), "body": response.body}


def botocore_parse(service: str, op: OperationModel | awsmodel.OperationModel, response: Response) -> dict[str, Any]:
    """What boto3 would return for this response (errors included, with modeled members merged)."""
    sp = spec(service)
    op = botocore_op(service, op)
    parser = botocore.parsers.create_parser(sp.protocol)
    response_dict = _response_dict(response)
    if op.has_streaming_output and response.status < 300:  # as botocore's endpoint hands it over
        response_dict["body"] = StreamingBody(io.BytesIO(response.body), len(response.body))
    parsed: dict[str, Any] = parser.parse(response_dict, op.output_shape)
    if response.status >= 300:
        code = parsed.get("Error", {}).get("QueryErrorCode") or parsed.get("Error", {}).get("Code")
        error_shape = botocore_model(service).shape_for_error_code(code) if code else None
        if error_shape is not None:
            modeled = parser.parse(response_dict, error_shape)
            parsed.update(modeled)
    return parsed


