"""botocore_memo: clients share the alias cache and endpoint provider, and send what stock botocore
sends. Each case runs in a child interpreter: install() changes botocore for the whole process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("botocore")

SRC = str(Path(__file__).resolve().parents[3] / "src")

# Requests of clients made one after the other from one session (as a handler's boto3.client(...)
# per invocation), captured before they are sent: their URL, signed headers and body.
PROBE = r"""
import json, sys
import boto3
from botocore.awsrequest import AWSResponse
if sys.argv[1] == "memo":
    from onceflow.lambda_.runtime import botocore_memo
    assert botocore_memo.install()
session = boto3.session.Session(aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")
seen = []

class Raw:
    def __init__(self, body):
        self.body = body

    def stream(self, **_):
        yield self.body

SKIP = ("X-Amz-Date", "Authorization", "User-Agent", "amz-sdk-invocation-id")


def capture(request, **_):
    headers = {k: v if isinstance(v, str) else v.decode() for k, v in request.headers.items() if k not in SKIP}
    seen.append([request.method, request.url, headers, request.body.decode() if request.body else ""])
    json_rpc = "X-Amz-Target" in request.headers
    return AWSResponse(request.url, 200, {}, Raw(b"{}" if json_rpc else b"<ListBucketResult/>"))

clients = []
for region, endpoint in (("us-east-1", None), ("us-east-1", None), ("eu-west-1", None),
                         ("us-east-1", "http://127.0.0.1:9")):
    for name in ("dynamodb", "s3"):
        c = session.client(name, region_name=region, endpoint_url=endpoint)
        c.meta.events.register("before-send", capture)
        if name == "dynamodb":
            c.get_item(TableName="orders", Key={"id": {"S": "a"}})
        else:
            c.list_objects_v2(Bucket="bucket", Prefix="p/")
        clients.append(c)
a, b = clients[0], clients[2]
print(json.dumps({
    "requests": seen,
    "cache_shared": a.meta.events._alias_name_cache is b.meta.events._alias_name_cache,
    "provider_shared": a._ruleset_resolver._provider is b._ruleset_resolver._provider,
    "s3_provider_not_dynamodb": clients[1]._ruleset_resolver._provider is not a._ruleset_resolver._provider,
}))
"""


def _probe(mode: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": SRC, "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull}
    for var in ("AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"):
        env.pop(var, None)
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_clients_share_the_caches_and_send_the_same_requests() -> None:
    stock, memo = _probe("stock"), _probe("memo")
    assert stock["cache_shared"] is False and stock["provider_shared"] is False
    assert memo["cache_shared"] is True and memo["provider_shared"] is True
    assert memo["s3_provider_not_dynamodb"] is True
    assert memo["requests"] == stock["requests"]
    urls = [r[1] for r in stock["requests"]]  # type: ignore[union-attr, index]  # JSON lists
    assert "https://dynamodb.eu-west-1.amazonaws.com/" in urls and "http://127.0.0.1:9/" in urls


def test_install_is_idempotent_and_reports_success() -> None:
    script = ("from onceflow.lambda_.runtime import botocore_memo as m\n"
              "import botocore.hooks as h\n"
              "assert m.install() and m.install()\n"
              "c = h.EventAliaser.__copy__\n"
              "assert m.install() and h.EventAliaser.__copy__ is c\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": SRC}, timeout=60)
    assert out.returncode == 0, out.stderr
