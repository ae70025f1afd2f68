"""Function URLs: their configuration through boto3, and HTTP calls to them (at the URL's own host
and at onceflow's path) with AWS_IAM or NONE auth and the payload format 2.0."""

from __future__ import annotations

import base64
import io
import json
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

ACCOUNT, REGION = "000000000000", "us-east-1"
TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
APP = '''
import base64, json


def handler(event, context):
    mode = (event.get("queryStringParameters") or {}).get("mode")
    if mode == "plain":
        return {"hello": "world"}
    if mode == "binary":
        return {"statusCode": 201, "headers": {"Content-Type": "image/png", "X-Order": "o-1"},
                "cookies": ["a=1", "b=2"], "isBase64Encoded": True, "body": base64.b64encode(b"\\x89PNG").decode()}
    if mode == "fail":
        raise RuntimeError("broken")
    if mode == "cors":
        return {"statusCode": 200, "headers": {"Access-Control-Allow-Origin": "https://evil.example",
                                               "X-Order": "o-2"}, "body": "own"}
    return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": json.dumps(event)}
'''


def make_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", APP)
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"url-role-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


@pytest.fixture
def fn(aws: Callable[..., Any], role: str) -> str:
    name = f"url-{uuid.uuid4().hex[:10]}"
    aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"ZipFile": make_zip()})  # fmt: skip
    return name


def http(endpoint: str, url: str, method: str = "GET", body: bytes = b"", headers: dict[str, str] | None = None,
         sign: Credentials | None = None) -> tuple[int, dict[str, str], bytes]:  # fmt: skip
    """A call to a function URL, sent to the server's address with the URL's Host."""
    parts = urlsplit(url)
    target = endpoint + parts.path + (f"?{parts.query}" if parts.query else "")
    headers = {"Host": parts.netloc, **(headers or {})}
    if sign is not None:
        signed = AWSRequest(method=method, url=url, data=body, headers=headers)
        SigV4Auth(sign, "lambda", REGION).add_auth(signed)
        headers = dict(signed.headers.items())
    request = urllib.request.Request(target, data=body or None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()


def allow_public(aws: Callable[..., Any], fn: str, **extra: str) -> None:
    """The two statements a public URL needs since October 2025 (docs: "Control access to Lambda
    function URLs"): lambda:InvokeFunctionUrl for AuthType NONE, lambda:InvokeFunction via a URL."""
    allow_public_url_only(aws, fn, **extra)
    aws("lambda").add_permission(FunctionName=fn, StatementId=f"fn-{uuid.uuid4().hex[:6]}",
                                 Action="lambda:InvokeFunction", Principal="*", InvokedViaFunctionUrl=True,
                                 **extra)  # fmt: skip


def allow_public_url_only(aws: Callable[..., Any], fn: str, **extra: str) -> None:
    aws("lambda").add_permission(FunctionName=fn, StatementId=f"url-{uuid.uuid4().hex[:6]}",
                                 Action="lambda:InvokeFunctionUrl", Principal="*", FunctionUrlAuthType="NONE",
                                 **extra)  # fmt: skip


def test_url_configuration(aws: Callable[..., Any], fn: str, endpoint: str) -> None:
    lam = aws("lambda")
    with pytest.raises(ClientError) as excinfo:
        lam.get_function_url_config(FunctionName=fn)
    assert excinfo.value.response["Error"]["Code"] == "ResourceNotFoundException"
    created = lam.create_function_url_config(FunctionName=fn, AuthType="NONE")
    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    parts = urlsplit(created["FunctionUrl"])
    url_id, _, rest = parts.hostname.partition(".")  # type: ignore[union-attr]
    assert len(url_id) == 32 and rest == f"lambda-url.{REGION}.localhost"
    assert parts.port == urlsplit(endpoint).port and parts.path == "/"
    assert created["FunctionArn"] == f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{fn}"
    # No InvokeMode asked for, none echoed (AWS's recording); a read shows the BUFFERED default.
    assert created["AuthType"] == "NONE" and not {"InvokeMode", "LastModifiedTime"} & set(created)
    assert lam.get_function_url_config(FunctionName=fn)["InvokeMode"] == "BUFFERED"
    with pytest.raises(ClientError) as excinfo:
        lam.create_function_url_config(FunctionName=fn, AuthType="NONE")
    assert excinfo.value.response["Error"]["Code"] == "ResourceConflictException"

    cors = {"AllowOrigins": ["https://example.com"], "AllowMethods": ["GET"]}
    updated = lam.update_function_url_config(FunctionName=fn, AuthType="AWS_IAM", Cors=cors)
    assert updated["AuthType"] == "AWS_IAM" and updated["Cors"] == cors and "InvokeMode" not in updated
    assert updated["FunctionUrl"] == created["FunctionUrl"] and updated["LastModifiedTime"] >= created["CreationTime"]
    got = lam.get_function_url_config(FunctionName=fn)
    assert (got["AuthType"], got["CreationTime"]) == ("AWS_IAM", created["CreationTime"])

    lam.publish_version(FunctionName=fn)
    lam.create_alias(FunctionName=fn, Name="live", FunctionVersion="1")
    live = lam.create_function_url_config(FunctionName=fn, Qualifier="live", AuthType="NONE")
    assert live["FunctionArn"].endswith(f":function:{fn}:live") and live["FunctionUrl"] != created["FunctionUrl"]
    listed = lam.list_function_url_configs(FunctionName=fn)["FunctionUrlConfigs"]
    assert sorted(c["FunctionUrl"] for c in listed) == sorted([created["FunctionUrl"], live["FunctionUrl"]])

    assert lam.delete_function_url_config(FunctionName=fn)["ResponseMetadata"]["HTTPStatusCode"] == 204
    with pytest.raises(ClientError):
        lam.get_function_url_config(FunctionName=fn)
    # the URL is gone with its config: answered as AWS answers a URL id it has never had (recorded,
    # LocalStack's AWS-validated test_lambda_url_non_existing_url)
    status, headers, body = http(endpoint, created["FunctionUrl"])
    assert (status, body, headers.get("x-amzn-errortype")) == (403, b'{"Message":null}', "AccessDeniedException")


def test_public_url_with_payload_format_2(aws: Callable[..., Any], fn: str, endpoint: str) -> None:
    url = aws("lambda").create_function_url_config(FunctionName=fn, AuthType="NONE")["FunctionUrl"]
    status, _, body = http(endpoint, url + "orders/7?x=1&x=2&y=3")
    forbidden = ("Forbidden. For troubleshooting Function URL authorization issues, see: "
                 "https://docs.aws.amazon.com/lambda/latest/dg/urls-auth.html")  # as recorded on AWS, 2025-11
    assert (status, json.loads(body)) == (403, {"Message": forbidden})  # no resource policy for it yet
    allow_public_url_only(aws, fn)
    assert http(endpoint, url)[0] == 403  # lambda:InvokeFunction is needed too
    aws("lambda").add_permission(FunctionName=fn, StatementId="fn-public", Action="lambda:InvokeFunction",
                                 Principal="*", InvokedViaFunctionUrl=True)  # fmt: skip
    status, headers, body = http(endpoint, url + "orders/7?x=1&x=2&y=3", "POST", b'{"a": 1}',
                                 {"Content-Type": "application/json", "Cookie": "s=1; t=2"})  # fmt: skip
    assert status == 200 and headers["content-type"] == "application/json"
    event = json.loads(body)
    url_id = urlsplit(url).hostname.split(".")[0]  # type: ignore[union-attr]
    dotted = url.replace(".localhost:", ".localhost.:")  # a trailing dot names the same host
    assert http(endpoint, dotted + "orders/7")[0] == 200
    assert (event["version"], event["routeKey"], event["rawPath"]) == ("2.0", "$default", "/orders/7")
    assert event["rawQueryString"] == "x=1&x=2&y=3"
    assert event["queryStringParameters"] == {"x": "1,2", "y": "3"}
    assert event["cookies"] == ["s=1", "t=2"] and "cookie" not in event["headers"]
    assert event["headers"]["content-type"] == "application/json"
    assert (event["body"], event["isBase64Encoded"]) == ('{"a": 1}', False)
    context = event["requestContext"]
    assert (context["apiId"], context["domainPrefix"]) == (url_id, url_id)
    assert context["domainName"] == f"{url_id}.lambda-url.{REGION}.on.aws"
    assert context["http"]["method"] == "POST" and context["http"]["path"] == "/orders/7"
    assert context["http"]["sourceIp"] == "127.0.0.1" and context["stage"] == "$default"
    assert "authorizer" not in context

    status, headers, body = http(endpoint, url + "?mode=binary")
    assert (status, body, headers["content-type"], headers["x-order"]) == (201, b"\x89PNG", "image/png", "o-1")
    status, headers, body = http(endpoint, url + "?mode=plain")
    assert (status, json.loads(body), headers["content-type"]) == (200, {"hello": "world"}, "application/json")
    status, _, _ = http(endpoint, url + "?mode=fail")
    assert status == 502
    status, _, body = http(endpoint, url, "POST", b"\x00\xff", {"Content-Type": "application/octet-stream"})
    event = json.loads(body)
    assert event["isBase64Encoded"] is True and base64.b64decode(event["body"]) == b"\x00\xff"

    # The URL's Cors configuration answers a page of an allowed origin, and no other.
    aws("lambda").update_function_url_config(FunctionName=fn, Cors={"AllowOrigins": ["https://app.example"],
                                                                    "ExposeHeaders": ["x-order"]})  # fmt: skip
    _, headers, _ = http(endpoint, url + "?mode=plain", headers={"Origin": "https://app.example"})
    assert headers["access-control-allow-origin"] == "https://app.example"
    assert headers["access-control-expose-headers"] == "x-order"
    _, headers, _ = http(endpoint, url + "?mode=plain", headers={"Origin": "https://other.example"})
    assert "access-control-allow-origin" not in headers

    # The same URL at onceflow's own path.
    path_url = f"{endpoint}/_onceflow/lambda-url/{url_id}/orders/8?y=4"
    status, _, body = http(endpoint, path_url)
    assert status == 200 and json.loads(body)["rawPath"] == "/orders/8"


def test_iam_url(aws: Callable[..., Any], fn: str, endpoint: str) -> None:
    lam = aws("lambda")
    url = lam.create_function_url_config(FunctionName=fn, AuthType="AWS_IAM")["FunctionUrl"]
    assert http(endpoint, url)[0] == 403  # unsigned
    status, _, body = http(endpoint, url + "p", sign=Credentials("test", "test"))
    assert status == 200
    authorizer = json.loads(body)["requestContext"]["authorizer"]["iam"]
    assert authorizer["accountId"] == ACCOUNT and authorizer["userArn"] == f"arn:aws:iam::{ACCOUNT}:root"

    # A role session is evaluated: it needs lambda:InvokeFunctionUrl and lambda:InvokeFunction (the
    # latter may be limited to URL calls by lambda:InvokedViaFunctionUrl).
    iam, sts = aws("iam"), aws("sts")
    name = f"url-caller-{uuid.uuid4().hex[:6]}"
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": ACCOUNT},
                                                      "Action": "sts:AssumeRole"}]}  # fmt: skip
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))["Role"]["Arn"]
    creds = sts.assume_role(RoleArn=arn, RoleSessionName="caller")["Credentials"]
    session = Credentials(creds["AccessKeyId"], creds["SecretAccessKey"], creds["SessionToken"])
    assert http(endpoint, url, sign=session)[0] == 403
    iam.put_role_policy(RoleName=name, PolicyName="url", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunctionUrl", "Resource": "*",
                       "Condition": {"StringEquals": {"lambda:FunctionUrlAuthType": "AWS_IAM"}}}]}))  # fmt: skip
    assert http(endpoint, url, sign=session)[0] == 403
    iam.put_role_policy(RoleName=name, PolicyName="invoke", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": "*",
                       "Condition": {"Bool": {"lambda:InvokedViaFunctionUrl": "true"}}}]}))  # fmt: skip
    assert http(endpoint, url, sign=session)[0] == 200
    # A permissions boundary sees the URL's condition keys too.
    boundary = iam.create_policy(PolicyName=f"{name}-b", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["lambda:InvokeFunction", "lambda:InvokeFunctionUrl"],
                       "Resource": "*",
                       "Condition": {"Bool": {"lambda:InvokedViaFunctionUrl": "true"}}}]}))  # fmt: skip
    iam.put_role_permissions_boundary(RoleName=name, PermissionsBoundary=boundary["Policy"]["Arn"])
    assert http(endpoint, url, sign=session)[0] == 200
    # the condition keeps the session from invoking the function directly
    direct = aws("lambda", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                 session_token=creds["SessionToken"])  # fmt: skip
    with pytest.raises(ClientError) as excinfo:
        direct.invoke(FunctionName=fn, Payload=b"{}")
    assert excinfo.value.response["Error"]["Code"] == "AccessDeniedException"
    bad = Credentials(creds["AccessKeyId"], "wrong-secret", creds["SessionToken"])
    assert http(endpoint, url, sign=bad)[0] == 403



def test_cors_preflight_and_headers(aws: Callable[..., Any], fn: str, endpoint: str) -> None:
    lam = aws("lambda")
    cors = {"AllowOrigins": ["https://app.example"], "AllowMethods": ["GET", "POST"],
            "AllowHeaders": ["content-type", "x-token"], "ExposeHeaders": ["x-order"], "MaxAge": 300,
            "AllowCredentials": True}  # fmt: skip
    url = lam.create_function_url_config(FunctionName=fn, AuthType="NONE")["FunctionUrl"]
    allow_public(aws, fn)
    ask = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST",
           "Access-Control-Request-Headers": "x-token"}  # fmt: skip
    # Without Cors the preflight is a request like any other: the function answers it.
    status, _, body = http(endpoint, url + "p", "OPTIONS", headers=ask)
    assert status == 200 and json.loads(body)["requestContext"]["http"]["method"] == "OPTIONS"

    lam.update_function_url_config(FunctionName=fn, Cors=cors, AuthType="AWS_IAM")
    # With Cors Lambda answers it itself, unsigned although the URL is AWS_IAM, and runs nothing.
    status, headers, body = http(endpoint, url + "p", "OPTIONS", headers=ask)
    assert (status, body) == (200, b"")
    assert headers["access-control-allow-origin"] == "https://app.example"
    assert headers["access-control-allow-methods"] == "GET,POST"
    assert headers["access-control-allow-headers"] == "content-type,x-token"
    assert headers["access-control-max-age"] == "300" and headers["access-control-allow-credentials"] == "true"
    status, headers, body = http(endpoint, url, "OPTIONS", headers={**ask, "Origin": "https://other.example"})
    assert (status, body) == (200, b"") and "access-control-allow-origin" not in headers

    # An answer carries the headers, replacing the function's own; a refusal carries them too.
    status, headers, body = http(endpoint, url + "?mode=cors", headers={"Origin": "https://app.example"},
                                 sign=Credentials("test", "test"))  # fmt: skip
    assert (status, body, headers["x-order"]) == (200, b"own", "o-2")
    assert headers["access-control-allow-origin"] == "https://app.example"
    assert headers["access-control-expose-headers"] == "x-order"
    assert headers["access-control-allow-credentials"] == "true"
    assert "access-control-allow-methods" not in headers  # a preflight's header only
    status, headers, _ = http(endpoint, url, headers={"Origin": "https://app.example"})  # unsigned
    assert status == 403 and headers["access-control-allow-origin"] == "https://app.example"
