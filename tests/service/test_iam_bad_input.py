"""Bad input to IAM and STS: AWS's error code and message with a 4xx, and nothing changes."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode
from xml.sax.saxutils import escape

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ClientError
from iam_setup import error

TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "states.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)
GOOD = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
NAME_PATTERN = r"[\w+=,.@-]+"


def unique(prefix: str = "bad") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def raw(endpoint: str, service: str, body: str) -> tuple[int, str]:
    """A signed query-protocol POST with a body botocore would never send."""
    request = AWSRequest(
        "POST",
        endpoint + "/",
        data=body.encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"},
    )
    SigV4Auth(Credentials("test", "test"), service, "us-east-1").add_auth(request)
    prepared = request.prepare()
    req = urllib.request.Request(prepared.url, data=prepared.body, headers=dict(prepared.headers), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


MALFORMED_TRUST = [
    ("not json", "This policy contains invalid Json"),
    ("workflow-trust.json", "This policy contains invalid Json"),
    ("null", "Syntax errors in policy."),
    (
        json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole"}]}),
        "Invalid principal in policy: com.amazon.balsa.error.InvalidPolicyException: "
        "The passed in policy has a statement with no principals!",
    ),
    (TRUST.replace('"Action"', '"Resource": "*", "Action"'), "Has prohibited field Resource"),
    (TRUST.replace("sts:AssumeRole", "s3:GetObject"), "AssumeRole policy may only specify STS AssumeRole actions."),
    (TRUST.replace("states.amazonaws.com", "states"), 'Invalid principal in policy: "SERVICE":"states"'),
]


@pytest.mark.parametrize(("document", "message"), MALFORMED_TRUST)
def test_create_role_with_a_malformed_trust_policy_creates_nothing(iam: Any, document: str, message: str) -> None:
    name = unique()
    with pytest.raises(ClientError) as exc:
        iam.create_role(RoleName=name, AssumeRolePolicyDocument=document)
    assert error(exc) == ("MalformedPolicyDocument", message, 400)
    with pytest.raises(ClientError) as exc:
        iam.get_role(RoleName=name)
    assert error(exc)[0] == "NoSuchEntity"


MALFORMED_PERMISSIONS = [
    ('{"Version": "2012-10-17", "Statement": [', "This policy contains invalid Json"),
    (json.dumps({"Version": "2012-10-17", "Statement": None}), "Syntax errors in policy."),
    (
        json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Resource": "*"}]}),
        "Policy statement must contain actions.",
    ),
    (
        json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*"}]}),
        "Policy statement must contain resources.",
    ),
    (
        json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "GetObject", "Resource": "*"}]}
        ),
        "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.",
    ),
    (
        json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "bucket"}]}
        ),
        'Resource bucket must be in ARN format or "*".',
    ),
    (TRUST, "Policy document should not specify a principal."),
    (
        json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Maybe", "Action": "s3:*", "Resource": "*"}]}),
        "Syntax errors in policy.",
    ),
]


@pytest.mark.parametrize(("document", "message"), MALFORMED_PERMISSIONS)
def test_put_role_policy_refuses_malformed_documents_and_keeps_the_old_one(
    iam: Any, document: str, message: str
) -> None:
    name = unique()
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=GOOD)
    with pytest.raises(ClientError) as exc:
        iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=document)
    assert error(exc) == ("MalformedPolicyDocument", message, 400)
    with pytest.raises(ClientError) as exc:
        iam.put_role_policy(RoleName=name, PolicyName="q", PolicyDocument=document)
    assert error(exc) == ("MalformedPolicyDocument", message, 400)
    assert iam.list_role_policies(RoleName=name)["PolicyNames"] == ["p"]
    assert iam.get_role_policy(RoleName=name, PolicyName="p")["PolicyDocument"] == json.loads(GOOD)
    with pytest.raises(ClientError) as exc:
        iam.create_policy(PolicyName=name, PolicyDocument=document)
    assert error(exc) == ("MalformedPolicyDocument", message, 400)
    with pytest.raises(ClientError) as exc:
        iam.update_assume_role_policy(RoleName=name, PolicyDocument=document if document != TRUST else "{}")
    assert error(exc)[0] == "MalformedPolicyDocument"
    assert iam.get_role(RoleName=name)["Role"]["AssumeRolePolicyDocument"] == json.loads(TRUST)


@pytest.mark.parametrize(
    ("name", "constraint"),
    [
        ("bad name!", f"Member must satisfy regular expression pattern: {NAME_PATTERN}"),
        ("r" * 65, "Member must have length less than or equal to 64"),
    ],
)
def test_invalid_role_names_are_validation_errors(iam: Any, name: str, constraint: str) -> None:
    with pytest.raises(ClientError) as exc:
        iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    assert error(exc) == (
        "ValidationError",
        f"1 validation error detected: Value '{name}' at 'roleName' failed to satisfy constraint: {constraint}",
        400,
    )


def test_out_of_range_max_session_duration(endpoint: str, iam: Any) -> None:
    """botocore refuses this client-side, so the request is sent raw, as another SDK might."""
    name = unique()
    body = urlencode(
        {
            "Action": "CreateRole",
            "Version": "2010-05-08",
            "RoleName": name,
            "AssumeRolePolicyDocument": TRUST,
            "MaxSessionDuration": "60",
        }
    )
    status, text = raw(endpoint, "iam", body)
    assert status == 400 and "<Code>ValidationError</Code>" in text
    message = (
        "1 validation error detected: Value '60' at 'maxSessionDuration' failed to satisfy constraint: "
        "Member must have value greater than or equal to 3600"
    )
    assert (
        f"<Message>{escape(message, {chr(39): '&apos;'})}</Message>" in text or f"<Message>{message}</Message>" in text
    )
    with pytest.raises(ClientError):
        iam.get_role(RoleName=name)


def test_oversized_inline_policies_are_refused(iam: Any) -> None:
    name = unique()
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    resources = [f"arn:aws:s3:::bucket-{i:05d}/*" for i in range(400)]
    big = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": resources}]}
    )
    with pytest.raises(ClientError) as exc:
        iam.put_role_policy(RoleName=name, PolicyName="big", PolicyDocument=big)
    assert error(exc) == ("LimitExceeded", f"Maximum policy size of 10240 bytes exceeded for role {name}", 409)
    assert iam.list_role_policies(RoleName=name)["PolicyNames"] == []


def test_raw_query_mistakes_are_4xx_with_aws_errors(endpoint: str) -> None:
    status, body = raw(endpoint, "iam", "Action=CreateRole&Version=2010-05-08")
    assert status == 400 and "<Code>ValidationError</Code>" in body
    assert "Value null at &apos;roleName&apos;" in body or "Value null at 'roleName'" in body
    status, body = raw(endpoint, "iam", "Action=FlyToTheMoon&Version=2010-05-08")
    assert status == 400 and "<Code>InvalidAction</Code>" in body
    status, body = raw(endpoint, "iam", "Action=GetRole&Version=2010-05-08&RoleName=%FF%FE")
    assert 400 <= status < 500
    status, body = raw(endpoint, "sts", "Action=AssumeRole&Version=2011-06-15&RoleSessionName=s")
    assert status == 400 and "<Code>ValidationError</Code>" in body
    status, body = raw(endpoint, "iam", "Action=ListRoles&Version=2010-05-08&MaxItems=lots")
    assert 400 <= status < 500 and "<ErrorResponse" in body


def test_sts_assume_role_errors(aws: Callable[..., Any]) -> None:
    sts = aws("sts")
    with pytest.raises(ClientError) as exc:
        sts.assume_role(RoleArn="arn:a:::something/test-role", RoleSessionName="s1")
    assert error(exc) == ("ValidationError", "arn:a:::something/test-role is invalid", 400)
    missing = "arn:aws:iam::000000000000:role/does-not-exist"
    with pytest.raises(ClientError) as exc:
        sts.assume_role(RoleArn=missing, RoleSessionName="s1")
    assert error(exc) == (
        "AccessDenied",
        f"User: arn:aws:iam::000000000000:root is not authorized to perform: sts:AssumeRole on resource: {missing}",
        403,
    )


def test_trust_policy_naming_a_missing_role_is_an_invalid_principal(iam: Any) -> None:
    missing = f"arn:aws:iam::000000000000:role/{unique('missing')}"
    doc = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"AWS": missing}, "Action": "sts:AssumeRole"}],
        }
    )
    name = unique()
    with pytest.raises(ClientError) as exc:
        iam.create_role(RoleName=name, AssumeRolePolicyDocument=doc)
    assert error(exc) == ("MalformedPolicyDocument", f'Invalid principal in policy: "AWS":"{missing}"', 400)
    iam.create_role(RoleName=missing.rsplit("/", 1)[1], AssumeRolePolicyDocument=TRUST)
    assert iam.create_role(RoleName=name, AssumeRolePolicyDocument=doc)["Role"]["RoleName"] == name
