"""Stored content is not onceflow's own page. An S3 object or a function URL's answer is anyone's
HTML (an uploaded file, a handler echoing its input): a page served on a content host
(`<bucket>.localhost`, `<id>.lambda-url.<region>.localhost`) is refused as another origin when it
calls the API or the own endpoints through its own host, and content served at onceflow's own
origin (path-style GetObject, `/_onceflow/lambda-url/`, where the console lives) carries a CSP
sandbox, so a browser runs it in an opaque origin whose calls say `Origin: null`."""

from __future__ import annotations

import io
import json
import urllib.parse
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

from test_front_door import TRUST, raw

from onceflow.wire.guard import CONTENT_SANDBOX
from serverproc import signed_headers

SANDBOX = CONTENT_SANDBOX[1]
HANDLER = ("def handler(event, context):\n"
           "    return {'statusCode': 200, 'headers': {'Content-Type': 'text/html'}, 'body': '<script>x()</script>'}\n")


def _list_tables_from(endpoint: str, host: str, browser: dict[str, str]) -> tuple[int, bytes]:
    """A DynamoDB call a page on `host` makes through its own host (same-origin to the browser)."""
    body = b"{}"
    headers = signed_headers("POST", f"http://{host}/", "dynamodb", body, {
        "X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"})
    status, _, answer = raw(endpoint, "POST", "/", body, {**headers, "Host": host, **browser})
    return status, answer


def test_a_page_on_a_bucket_or_url_host_cannot_call_the_api_through_its_host(endpoint: str) -> None:
    port = urllib.parse.urlsplit(endpoint).port
    bucket_host = f"site-{uuid.uuid4().hex[:8]}.localhost:{port}"
    status, answer = _list_tables_from(endpoint, bucket_host, {"Origin": f"http://{bucket_host}"})
    assert status == 403 and json.loads(answer)["__type"].endswith("#AccessDeniedException")
    status, _ = _list_tables_from(endpoint, bucket_host, {"Sec-Fetch-Site": "same-origin"})  # a GET sends no Origin
    assert status == 403
    assert _list_tables_from(endpoint, bucket_host, {})[0] == 200  # no browser: the SDKs' own calls still work
    # a URL host: refused by the front door (403), or, once Lambda is set up, a call to a URL that is not (404)
    url_host = f"abc.lambda-url.us-east-1.localhost:{port}"
    for browser in ({"Origin": f"http://{url_host}"}, {"Sec-Fetch-Site": "same-origin"}):
        status, answer = _list_tables_from(endpoint, url_host, browser)
        assert status in (403, 404) and b"TableNames" not in answer, browser
    # onceflow's own origin is still its own
    assert _list_tables_from(endpoint, f"localhost:{port}", {"Origin": f"http://localhost:{port}"})[0] == 200


def test_a_page_on_a_url_host_cannot_reset_or_set_faults(endpoint: str) -> None:
    port = urllib.parse.urlsplit(endpoint).port
    host = f"abc.lambda-url.us-east-1.localhost:{port}"
    status, _, _ = raw(endpoint, "POST", "/_onceflow/faults", b'{"rules": []}',
                       {"Host": host, "Origin": f"http://{host}", "Content-Type": "application/json"})
    # refused by the front door (403), or, once Lambda is set up, taken as a call to a URL that is not (404)
    assert status in (403, 404)


def test_an_object_served_path_style_runs_sandboxed_and_a_bucket_page_cannot_sign(
        endpoint: str, aws: Callable[..., Any]) -> None:  # fmt: skip
    s3 = aws("s3")
    bucket = f"content-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="page.html", Body=b"<script>x()</script>", ContentType="text/html")
    url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "page.html"})
    parts = urllib.parse.urlsplit(url)
    status, headers, body = raw(endpoint, "GET", f"{parts.path}?{parts.query}")
    assert status == 200 and body == b"<script>x()</script>"
    assert headers["content-security-policy"] == SANDBOX  # not a page of the console's origin
    # virtual-hosted: its own origin, nothing added; a signed call its page makes through its host is
    # refused (with the default keys it could copy any bucket's objects into its own and read them)
    port = urllib.parse.urlsplit(endpoint).port
    vhost = f"{bucket}.localhost:{port}"
    signed = signed_headers("GET", f"http://{vhost}/page.html", "s3",
                            headers={"x-amz-content-sha256": "UNSIGNED-PAYLOAD"})
    status, headers, body = raw(endpoint, "GET", "/page.html", headers={**signed, "Host": vhost})
    assert status == 200 and body == b"<script>x()</script>" and "content-security-policy" not in headers
    for browser in ({"Origin": f"http://{vhost}"}, {"Sec-Fetch-Site": "same-origin"}):
        copy = signed_headers("PUT", f"http://{vhost}/stolen", "s3", headers={
            "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-copy-source": f"/{bucket}/page.html"})
        status, _, _ = raw(endpoint, "PUT", "/stolen", headers={**copy, "Host": vhost, **browser})
        assert status == 403, browser
    assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 1  # nothing was copied


def test_a_function_url_answer_at_onceflows_origin_runs_sandboxed(endpoint: str, aws: Callable[..., Any]) -> None:
    lam = aws("lambda")
    name = f"content-{uuid.uuid4().hex[:10]}"
    role = aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as zf:
        zf.writestr("app.py", HANDLER)
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": code.getvalue()})  # fmt: skip
    url = lam.create_function_url_config(FunctionName=name, AuthType="NONE")["FunctionUrl"]
    lam.add_permission(FunctionName=name, StatementId="url", Action="lambda:InvokeFunctionUrl", Principal="*",
                       FunctionUrlAuthType="NONE")  # fmt: skip
    lam.add_permission(FunctionName=name, StatementId="fn", Action="lambda:InvokeFunction", Principal="*",
                       InvokedViaFunctionUrl=True)  # fmt: skip
    url_id = urllib.parse.urlsplit(url).hostname.split(".")[0]  # type: ignore[union-attr]
    status, headers, body = raw(endpoint, "GET", f"/_onceflow/lambda-url/{url_id}/")
    assert status == 200 and body == b"<script>x()</script>"
    assert headers["content-security-policy"] == SANDBOX
    # at its own host it is its own origin, as on AWS: nothing added
    status, headers, _ = raw(endpoint, "GET", "/", headers={"Host": urllib.parse.urlsplit(url).netloc})
    assert status == 200 and "content-security-policy" not in headers
