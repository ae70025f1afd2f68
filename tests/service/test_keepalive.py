"""One client, one kept-alive connection: CreateFunction -> Invoke -> DeleteFunction in a loop.

DeleteFunction answers 204. A 204 has no body, so a client reads none: the server used to send
Content-Length 2 and "{}" with it, and those two bytes became the start of the next response on the
connection (http.client: BadStatusLine '{}HTTP/1.1 201 Created'; urllib3 saw a readable idle socket,
dropped the connection and botocore retried a CreateFunction that had already succeeded).
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import select
import uuid
import zipfile
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import botocore.config
import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
ROUNDS = 1000  # the loop; each loop takes about 10 s here
CREDENTIALS = Credentials("test", "test")


def function_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", "def handler(event, context):\n    return {'echo': event}\n")
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"keepalive-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


def signed_headers(url: str, method: str, path: str, body: bytes) -> dict[str, str]:
    request = AWSRequest(method=method, url=url + path, data=body,
                         headers={"Content-Type": "application/json"} if body else {})
    SigV4Auth(CREDENTIALS, "lambda", "us-east-1").add_auth(request)
    return dict(request.headers.items())


def test_raw_loop_on_one_connection(endpoint: str, role: str) -> None:
    where = urlsplit(endpoint)
    conn = http.client.HTTPConnection(where.hostname or "127.0.0.1", where.port, timeout=60)
    code = base64.b64encode(function_zip()).decode()
    sock = None
    try:
        for i in range(ROUNDS):
            name = f"ka-raw-{i}-{uuid.uuid4().hex[:6]}"
            create = json.dumps({"FunctionName": name, "Runtime": "python3.11", "Role": role,
                                 "Handler": "app.handler", "Code": {"ZipFile": code}}).encode()
            steps = [("POST", "/2015-03-31/functions", create, 201),
                     ("POST", f"/2015-03-31/functions/{name}/invocations", b'{"n": %d}' % i, 200),
                     ("DELETE", f"/2015-03-31/functions/{name}", b"", 204)]
            for method, path, body, status in steps:
                conn.request(method, path, body=body, headers=signed_headers(endpoint, method, path, body))
                response = conn.getresponse()
                data = response.read()
                assert response.status == status, (i, method, path, data)
                sock = sock or conn.sock
                assert conn.sock is sock, f"round {i}: {method} {path} needed a new connection"
                if status == 204:
                    assert data == b"" and response.getheader("Content-Length") is None
                    # Nothing may follow the 204 on the wire: stray bytes would open the next answer.
                    assert select.select([sock], [], [], 0)[0] == [], f"round {i}: bytes after the 204"
                elif method == "POST" and status == 200:
                    assert json.loads(data) == {"echo": {"n": i}}
    finally:
        conn.close()


def test_boto3_loop_on_a_single_connection_pool(aws: Callable[..., Any], role: str) -> None:
    # No retries: a dropped answer must show as an error, not be hidden by a retried call.
    config = botocore.config.Config(max_pool_connections=1, retries={"total_max_attempts": 1}, read_timeout=60)
    lam = aws("lambda", config=config)
    code = function_zip()
    for i in range(ROUNDS):
        name = f"ka-boto-{i}-{uuid.uuid4().hex[:6]}"
        lam.create_function(FunctionName=name, Runtime="python3.11", Role=role, Handler="app.handler",
                            Code={"ZipFile": code})
        assert json.loads(lam.invoke(FunctionName=name, Payload=b"{}")["Payload"].read()) == {"echo": {}}
        assert lam.delete_function(FunctionName=name)["ResponseMetadata"]["HTTPStatusCode"] == 204
