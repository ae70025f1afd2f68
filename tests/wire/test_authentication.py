"""Every AWS request is authenticated as AWS does it: no signature, a malformed one, a wrong secret,
a missing or wrong session token and an expired session each get AWS's own code and status in the
protocol's shape; keys onceflow issued are verified with their secret; under --enforce-iam only
the configured root keys are the root."""

from __future__ import annotations

import http.client
import json
import sqlite3
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import botocore.config
import pytest
from botocore import UNSIGNED
from botocore.exceptions import ClientError

from serverproc import ServerProcess, signed_headers

MISSING = "Request is missing Authentication Token"
INVALID = "The security token included in the request is invalid."
EXPIRED = "The security token included in the request is expired"
MISMATCH = ("The request signature we calculated does not match the signature you provided. Check your AWS Secret "
            "Access Key and signing method. Consult the service documentation for details.")
TRUST = json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"}, "Action": "sts:AssumeRole"}]})


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def error(fn: Callable[..., Any], **kw: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as exc:
        fn(**kw)
    r = exc.value.response
    return r["Error"]["Code"], r["Error"].get("Message", ""), r["ResponseMetadata"]["HTTPStatusCode"]


def raw(endpoint: str, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str],
                                                                                              bytes]:
    url = urllib.parse.urlsplit(endpoint)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def user_keys(aws: Callable[..., Any]) -> tuple[str, str, str]:
    """A new IAM user with an access key (made with the root's test keys): (arn, key id, secret)."""
    iam = aws("iam")
    name = unique("alice")
    arn = iam.create_user(UserName=name)["User"]["Arn"]
    key = iam.create_access_key(UserName=name)["AccessKey"]
    return arn, key["AccessKeyId"], key["SecretAccessKey"]


def role_session(aws: Callable[..., Any]) -> dict[str, Any]:
    role = unique("r")
    arn = aws("iam").create_role(RoleName=role, AssumeRolePolicyDocument=TRUST)["Role"]["Arn"]
    return aws("sts").assume_role(RoleArn=arn, RoleSessionName="session")["Credentials"]  # type: ignore[no-any-return]


# ---------------------------------------------------------------- no signature / malformed
def test_an_unsigned_request_gets_aws_answer_per_protocol(aws: Callable[..., Any]) -> None:
    unsigned = botocore.config.Config(signature_version=UNSIGNED, retries={"max_attempts": 1})
    assert error(aws("dynamodb", config=unsigned).list_tables) == ("MissingAuthenticationTokenException", MISSING, 400)
    assert error(aws("logs", config=unsigned).describe_log_groups) == ("MissingAuthenticationTokenException", MISSING,
                                                                       400)
    assert error(aws("lambda", config=unsigned).list_functions) == ("MissingAuthenticationTokenException", MISSING,
                                                                    403)
    assert error(aws("iam", config=unsigned).list_roles) == ("MissingAuthenticationToken", MISSING, 403)
    assert error(aws("sts", config=unsigned).get_caller_identity) == ("MissingAuthenticationToken", MISSING, 403)


def test_an_unsigned_write_changes_nothing(endpoint: str, aws: Callable[..., Any]) -> None:
    role = unique("unsigned")
    form = urllib.parse.urlencode({"Action": "CreateRole", "Version": "2010-05-08", "RoleName": role,
                                   "AssumeRolePolicyDocument": TRUST}).encode()
    status, _, body = raw(endpoint, "POST", "/", form, {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 403 and b"<Code>MissingAuthenticationToken</Code>" in body
    assert error(aws("iam").get_role, RoleName=role)[0] == "NoSuchEntity"


def test_a_malformed_authorization_header_is_an_incomplete_signature(endpoint: str) -> None:
    auth = "AWS4-HMAC-SHA256 Credential=test"
    status, headers, body = raw(endpoint, "POST", "/", b"{}", {
        "X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0",
        "Authorization": auth, "X-Amz-Date": "20261201T000000Z"})
    assert status == 400 and headers["x-amzn-errortype"] == "IncompleteSignatureException"
    assert json.loads(body)["message"] == ("Authorization header requires 'Signature' parameter. Authorization header "
                                           f"requires 'SignedHeaders' parameter. Authorization={auth}")
    status, _, body = raw(endpoint, "POST", "/", b"Action=ListRoles&Version=2010-05-08", {
        "Content-Type": "application/x-www-form-urlencoded", "Authorization": "AWS test:abc"})
    assert status == 400 and b"<Code>IncompleteSignature</Code>" in body
    assert (b"<Message>Authorization header requires 'Credential' parameter. Authorization header requires "
            b"'Signature' parameter. Authorization header requires 'SignedHeaders' parameter. Authorization header "
            b"requires existence of either a 'X-Amz-Date' or a 'Date' header. Authorization=AWS test:abc</Message>"
            ) in body


# ---------------------------------------------------------------- keys onceflow issued
def test_a_user_key_is_verified_with_its_secret(aws: Callable[..., Any]) -> None:
    arn, key, secret = user_keys(aws)
    assert aws("sts", access_key=key, secret_key=secret).get_caller_identity()["Arn"] == arn
    wrong = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    assert error(aws("sts", access_key=key, secret_key=wrong).get_caller_identity) == ("SignatureDoesNotMatch",
                                                                                        MISMATCH, 403)
    assert error(aws("dynamodb", access_key=key, secret_key=wrong).list_tables) == ("InvalidSignatureException",
                                                                                     MISMATCH, 400)
    assert error(aws("lambda", access_key=key, secret_key=wrong).list_functions) == ("InvalidSignatureException",
                                                                                      MISMATCH, 403)
    # a deleted key is refused as AWS refuses it, with its secret or any other: never taken for the root
    aws("iam").delete_access_key(UserName=arn.rsplit("/", 1)[1], AccessKeyId=key)
    for used in (secret, wrong):
        assert error(aws("sts", access_key=key, secret_key=used).get_caller_identity) == ("InvalidClientTokenId",
                                                                                           INVALID, 403)
    assert error(aws("dynamodb", access_key=key, secret_key=secret).list_tables)[0] == "UnrecognizedClientException"


def test_a_deleted_users_key_is_refused(aws: Callable[..., Any]) -> None:
    arn, key, secret = user_keys(aws)
    name = arn.rsplit("/", 1)[1]
    aws("iam").delete_access_key(UserName=name, AccessKeyId=key)
    aws("iam").delete_user(UserName=name)
    assert error(aws("sqs", access_key=key, secret_key=secret).list_queues)[2] in (400, 403)
    assert aws("sts", access_key="AKIAIOSFODNN7EXAMPLE", secret_key="x").get_caller_identity()["Arn"].endswith(":root")


def test_a_session_key_needs_its_secret_and_its_token(aws: Callable[..., Any]) -> None:
    creds = role_session(aws)
    key, secret, token = creds["AccessKeyId"], creds["SecretAccessKey"], creds["SessionToken"]
    who = aws("sts", access_key=key, secret_key=secret, session_token=token).get_caller_identity()
    assert ":assumed-role/" in who["Arn"]
    assert error(aws("sts", access_key=key, secret_key=secret).get_caller_identity) == ("InvalidClientTokenId",
                                                                                         INVALID, 403)
    assert error(aws("sts", access_key=key, secret_key=secret, session_token=token[:-4] + "AAAA").get_caller_identity
                 ) == ("InvalidClientTokenId", INVALID, 403)
    assert error(aws("dynamodb", access_key=key, secret_key=secret).list_tables) == ("UnrecognizedClientException",
                                                                                      INVALID, 400)
    assert error(aws("lambda", access_key=key, secret_key=secret).list_functions) == ("UnrecognizedClientException",
                                                                                       INVALID, 403)
    assert error(aws("sts", access_key=key, secret_key="not-the-secret", session_token=token).get_caller_identity
                 ) == ("SignatureDoesNotMatch", MISMATCH, 403)


def test_an_expired_session_is_refused(server_factory: Callable[..., ServerProcess], tmp_path: Path) -> None:
    server = server_factory(tmp_path / "data")
    creds = role_session(server.client)
    server.stop()
    with sqlite3.connect(tmp_path / "data" / "onceflow.db") as db:  # an hour on, in the session's eyes
        (data,) = db.execute("SELECT data FROM sts_sessions WHERE access_key_id=?", (creds["AccessKeyId"],)).fetchone()
        session = json.loads(data)
        session["Expiration"] = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
        db.execute("UPDATE sts_sessions SET data=? WHERE access_key_id=?", (json.dumps(session), creds["AccessKeyId"]))
    server = server_factory(tmp_path / "data")
    keys = {"access_key": creds["AccessKeyId"], "secret_key": creds["SecretAccessKey"],
            "session_token": creds["SessionToken"]}
    assert error(server.client("sts", **keys).get_caller_identity) == ("ExpiredToken", EXPIRED, 403)
    assert error(server.client("dynamodb", **keys).list_tables) == ("ExpiredTokenException", EXPIRED, 400)
    assert error(server.client("lambda", **keys).list_functions) == ("ExpiredTokenException", EXPIRED, 403)


def test_presigned_urls_work_and_are_verified(aws: Callable[..., Any]) -> None:
    arn, key, secret = user_keys(aws)
    # botocore presigns a query-protocol call with its method, POST (AWS checks the method used)
    url = aws("sts", access_key=key, secret_key=secret).generate_presigned_url("get_caller_identity")
    with urllib.request.urlopen(urllib.request.Request(url, data=b"", method="POST"), timeout=30) as resp:
        assert f"<Arn>{arn}</Arn>" in resp.read().decode()
    forged = url.replace("X-Amz-Signature=", "X-Amz-Signature=0")[:-1]
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(urllib.request.Request(forged, data=b"", method="POST"), timeout=30)
    assert exc.value.code == 403 and b"<Code>SignatureDoesNotMatch</Code>" in exc.value.read()
    with urllib.request.urlopen(aws("lambda", access_key=key, secret_key=secret).generate_presigned_url(
            "list_functions"), timeout=30) as resp:  # a GET, signed as one
        assert "Functions" in json.loads(resp.read())
    creds = role_session(aws)  # a session's token travels in the query string too
    session_url = aws("sts", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                      session_token=creds["SessionToken"]).generate_presigned_url("get_caller_identity")
    assert "X-Amz-Security-Token=" in session_url
    with urllib.request.urlopen(urllib.request.Request(session_url, data=b"", method="POST"), timeout=30) as resp:
        assert ":assumed-role/" in resp.read().decode()


def test_unsigned_payloads_and_claimed_payload_hashes(endpoint: str, aws: Callable[..., Any]) -> None:
    arn, key, secret = user_keys(aws)
    body = b"Action=GetCallerIdentity&Version=2011-06-15"
    form = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
    for claimed in ("UNSIGNED-PAYLOAD", __import__("hashlib").sha256(body).hexdigest()):
        headers = signed_headers("POST", endpoint + "/", "sts", body, {**form, "X-Amz-Content-SHA256": claimed},
                                 access_key=key, secret_key=secret)
        status, _, answer = raw(endpoint, "POST", "/", body, headers)
        assert status == 200 and f"<Arn>{arn}</Arn>".encode() in answer
    # the claimed hash is signed, so the body cannot be swapped under it
    headers = signed_headers("POST", endpoint + "/", "sts", body, {
        **form, "X-Amz-Content-SHA256": __import__("hashlib").sha256(body).hexdigest()}, access_key=key,
        secret_key=secret)
    status, _, answer = raw(endpoint, "POST", "/", b"Action=GetCallerIdentity&Version=2011-06-16", headers)
    assert status == 403 and b"<Code>SignatureDoesNotMatch</Code>" in answer


def test_a_lambda_handler_calls_back_with_its_role_session(aws: Callable[..., Any]) -> None:
    """The worker signs with the session credentials STS issued for the execution role."""
    import io
    import zipfile

    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as z:
        z.writestr("app.py", "import boto3\n"
                             "def handler(event, context):\n"
                             "    return boto3.client('sts').get_caller_identity()['Arn']\n")
    role = unique("exec")
    trust = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]})
    role_arn = aws("iam").create_role(RoleName=role, AssumeRolePolicyDocument=trust)["Role"]["Arn"]
    fn = unique("whoami")
    lam = aws("lambda")
    lam.create_function(FunctionName=fn, Runtime="python3.12", Handler="app.handler", Role=role_arn,
                        Code={"ZipFile": code.getvalue()})
    lam.get_waiter("function_active_v2").wait(FunctionName=fn)
    out = lam.invoke(FunctionName=fn)
    assert "FunctionError" not in out, out["Payload"].read()
    assert json.loads(out["Payload"].read()) == f"arn:aws:sts::000000000000:assumed-role/{role}/{fn}"


# ---------------------------------------------------------------- --enforce-iam
@pytest.fixture(scope="module")
def enforcing() -> Iterator[ServerProcess]:
    proc = ServerProcess(extra_args=("--enforce-iam", "--root-key", "test:test", "--root-key", "admin:sekret")).start()
    yield proc
    proc.stop()


def test_under_enforcement_unknown_keys_are_refused(enforcing: ServerProcess) -> None:
    make = enforcing.client
    for key in ("anything", "ASIA" + "X" * 15, "AKIA" + "Z" * 16, "123456789012"):
        assert error(make("iam", access_key=key, secret_key="x").list_roles) == ("InvalidClientTokenId", INVALID, 403)
        assert error(make("dynamodb", access_key=key, secret_key="x").list_tables) == (
            "UnrecognizedClientException", INVALID, 400)
    assert error(make("sts", secret_key="wrong").get_caller_identity) == ("SignatureDoesNotMatch", MISMATCH, 403)
    assert make("sts").get_caller_identity()["Arn"] == "arn:aws:iam::000000000000:root"
    assert make("sts", access_key="admin", secret_key="sekret").get_caller_identity()["Arn"] == \
        "arn:aws:iam::000000000000:root"


def test_under_enforcement_a_user_without_policies_cannot_give_itself_any(enforcing: ServerProcess) -> None:
    iam = enforcing.client("iam")
    name = unique("mallory")
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    as_user = enforcing.client("iam", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    code, _, status = error(as_user.attach_user_policy, UserName=name,
                            PolicyArn="arn:aws:iam::aws:policy/AdministratorAccess")
    assert (code, status) == ("AccessDenied", 403)
    assert iam.list_attached_user_policies(UserName=name)["AttachedPolicies"] == []
    # and its key with a guessed secret is no key at all
    assert error(enforcing.client("iam", access_key=key["AccessKeyId"], secret_key="guess").list_roles)[0] == \
        "SignatureDoesNotMatch"


def test_the_cli_with_test_keys_keeps_working(aws_cli: Callable[..., Any]) -> None:
    done = aws_cli("sts", "get-caller-identity", "--output", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["Arn"] == "arn:aws:iam::000000000000:root"


def test_default_clients_are_unchanged(aws: Callable[..., Any]) -> None:
    assert aws("sts").get_caller_identity()["Account"] == "000000000000"
    assert aws("sts", access_key="123456789012", secret_key="anything").get_caller_identity()["Account"] == \
        "123456789012"


def test_hostile_signatures_and_tokens_get_a_4xx(endpoint: str, aws: Callable[..., Any]) -> None:
    _, key, _ = user_keys(aws)
    session = role_session(aws)
    now = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    cases = [(key, {}, b"SignatureDoesNotMatch"),
             (session["AccessKeyId"], {"X-Amz-Security-Token": "t\u00e9\u00ff"}, b"InvalidClientTokenId"),
             (session["AccessKeyId"], {"X-Amz-Security-Token": ""}, b"InvalidClientTokenId")]
    for access_key, extra, code in cases:
        auth = (f"AWS4-HMAC-SHA256 Credential={access_key}/{now[:8]}/us-east-1/sts/aws4_request, "
                "SignedHeaders=host;x-amz-date, Signature=\u00e9\u00e9")
        status, _, body = raw(endpoint, "POST", "/", b"Action=GetCallerIdentity&Version=2011-06-15", {
            "Content-Type": "application/x-www-form-urlencoded", "X-Amz-Date": now, "Authorization": auth, **extra})
        assert status == 403 and b"<Code>" + code + b"</Code>" in body, body
    status, _, body = raw(endpoint, "POST", "/", b"{}", {
        "X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Date": "yesterday", "Authorization": f"AWS4-HMAC-SHA256 Credential={key}/20261201/us-east-1/"
        "dynamodb/aws4_request, SignedHeaders=host, Signature=00"})
    assert status == 400 and json.loads(body)["__type"].endswith("#InvalidSignatureException")
    assert json.loads(body)["message"].startswith("Date must be in ISO-8601 'basic format'. Got 'yesterday'.")
