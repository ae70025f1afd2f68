"""Services onceflow does not serve, and modeled operations it does not implement: a 501 that
the service's own botocore client parses into a NotImplemented error naming what is missing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

import botocore.parsers
import botocore.serialize
import botocore.session
import pytest
from botocore.awsrequest import HeadersDict, create_request_object, prepare_request_dict
from botocore.model import ServiceModel
from wire_oracle import specs

from onceflow.config import Settings
from onceflow.stack import Stack
from onceflow.store.db import Database
from onceflow.wire.app import AwsApp
from onceflow.wire.request import Request, Response


@pytest.fixture
def app() -> Iterator[AwsApp]:
    stack = Stack(Settings(in_memory=True), Database(":memory:"))
    application = AwsApp(stack, specs())
    yield application
    application.close()
    stack.db.close()


def _model(service: str) -> ServiceModel:
    return botocore.session.get_session().get_service_model(service)


def _request(service: str, operation: str, params: dict[str, Any], signing: str) -> Request:
    """What botocore puts on the wire for `service`, signed with test/test's credential scope."""
    model = _model(service)
    op = model.operation_model(operation)
    request_dict = botocore.serialize.create_serializer(model.protocol).serialize_to_request(params, op)
    prepare_request_dict(request_dict, endpoint_url="http://127.0.0.1:4566")
    prepared = create_request_object(request_dict).prepare()
    url = urlsplit(prepared.url)
    body = prepared.body or b""
    body = body.encode() if isinstance(body, str) else body
    headers = {k.lower(): v.decode() if isinstance(v, bytes) else str(v) for k, v in prepared.headers.items()}
    headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential=test/20261129/us-east-1/{signing}/aws4_request, "
                                "SignedHeaders=host, Signature=0")
    return Request(prepared.method, unquote(url.path), url.path, url.query, headers, body, "127.0.0.1")


def _parsed_error(service: str, operation: str, response: Response) -> dict[str, Any]:
    model = _model(service)
    headers = HeadersDict({"content-type": response.content_type, **dict(response.headers)})
    parser = botocore.parsers.create_parser(model.protocol)
    parsed = parser.parse({"status_code": response.status, "headers": headers, "body": response.body},
                          model.operation_model(operation).output_shape)
    return parsed["Error"]  # type: ignore[no-any-return]


UNSERVED = [
    # (botocore service, operation, params, signing name, full name in the message)
    ("route53", "ListHostedZones", {}, "route53", "Amazon Route 53"),
    ("cloudfront", "GetDistribution", {"Id": "d"}, "cloudfront", "Amazon CloudFront"),
    ("kinesis", "ListStreams", {}, "kinesis", "Amazon Kinesis"),
    ("ses", "ListIdentities", {}, "ses", "Amazon Simple Email Service"),
    ("ecs", "ListClusters", {}, "ecs", "Amazon EC2 Container Service"),
    ("ec2", "DescribeInstances", {}, "ec2", "Amazon Elastic Compute Cloud"),
    ("cloudwatch", "ListDashboards", {}, "monitoring", "Amazon CloudWatch"),
    ("apigateway", "GetRestApis", {}, "apigateway", "Amazon API Gateway"),
]


def test_dynamodb_streams_signs_as_dynamodb_and_is_routed_by_its_target_prefix() -> None:
    assert specs().by_target_prefix["DynamoDBStreams_20120810"].name == "dynamodbstreams"
    assert specs().by_signing_name["dynamodb"].name == "dynamodb"  # the shared signing name stays DynamoDB's


def test_every_modeled_rest_path_of_lambda_is_routed_to_lambda() -> None:
    """The routing table is the model's: each operation's first path segment leads to Lambda."""
    from onceflow.wire.specs import first_segment

    lam = specs().services["lambda"]
    segments = {first_segment(op.http["requestUri"]) for op in lam.operations.values()}
    assert len(segments) >= 16
    assert {s: specs().rest_prefixes.get(s) for s in segments} == {s: [lam] for s in segments}


@pytest.mark.parametrize(("service", "operation", "params", "signing", "full"), UNSERVED,
                         ids=[f"{u[0]}.{u[1]}" for u in UNSERVED])
def test_an_unserved_service_gets_a_501_its_client_parses(app: AwsApp, service: str, operation: str,
                                                         params: dict[str, Any], signing: str, full: str) -> None:
    response = asyncio.run(app.handle(_request(service, operation, params, signing)))
    assert response.status == 501
    assert b"<html" not in response.body.lower()
    error = _parsed_error(service, operation, response)
    assert error["Code"] == "NotImplemented"
    assert error["Message"].startswith(f"onceflow does not serve {signing} ({full}); it serves DynamoDB, ")


def test_an_unknown_signing_name_still_gets_a_json_501(app: AwsApp) -> None:
    request = _request("kinesis", "ListStreams", {}, "kinesis")
    request.headers["authorization"] = request.headers["authorization"].replace("/kinesis/", "/no-such-thing/")
    response = asyncio.run(app.handle(request))
    assert response.status == 501
    assert "onceflow does not serve no-such-thing;" in _parsed_error("kinesis", "ListStreams", response)["Message"]


def test_a_hostile_signing_name_never_reaches_the_model_loader(app: AwsApp) -> None:
    request = _request("s3", "ListBuckets", {}, "s3")
    request.headers["authorization"] = request.headers["authorization"].replace("/s3/", "/..%2F..%2Fetc/")
    response = asyncio.run(app.handle(request))
    assert response.status == 501 and b"does not serve unknown;" in response.body


def test_a_modeled_lambda_path_without_a_handler_is_a_501_naming_the_operation(app: AwsApp) -> None:
    """Every modeled REST path routes, whatever date it carries: the route table is the model's."""
    from wire_oracle import botocore_request, spec

    for name, op in spec("lambda").operations.items():
        if app.stack.registry.get("lambda", name) is not None:
            continue
        from wire_shapegen import value_for

        response = asyncio.run(app.handle(botocore_request("lambda", op, value_for(op.input_shape)
                                                           if op.input_shape else {})))
        assert response.status == 501, (name, response.body)
        assert f"onceflow does not implement the lambda operation {name} yet".encode() in response.body
