"""IAM roles and inline role policies through boto3 and the AWS CLI against a real server."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

import botocore.awsrequest
import pytest
from botocore.exceptions import ClientError
from iam_setup import error

# The seed lab's two documents, byte for byte (002: workflow-trust.json and workflow-invoke.json).
TRUST = """{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Principal": {
        "Service": "states.amazonaws.com"
      },
      "Action": "sts:AssumeRole"
    }
  ]
}
"""
WORKER_ARN = "arn:aws:lambda:us-east-1:000000000000:function:labex-ev04-worker"
INVOKE = f"""{{
  "Version": "2012-10-17",
  "Statement": [
    {{
      "Effect": "Allow",
      "Action": "lambda:InvokeFunction",
      "Resource": "{WORKER_ARN}"
    }}
  ]
}}
"""


def unique(prefix: str = "role") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def test_create_get_and_list_role(iam: Any) -> None:
    name = unique()
    created = iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST, Description="d")["Role"]
    assert created["Arn"] == f"arn:aws:iam::000000000000:role/{name}"
    assert created["RoleId"].startswith("AROA") and len(created["RoleId"]) == 21
    assert created["Path"] == "/"
    assert created["AssumeRolePolicyDocument"] == json.loads(TRUST)
    # AWS's CreateRole answer leaves out the Description it was given (recorded: LocalStack's
    # test_iam_roles snapshot, "create-role-with-boundary"); GetRole has it.
    assert "Description" not in created and "MaxSessionDuration" not in created
    got = iam.get_role(RoleName=name)["Role"]
    assert got["RoleId"] == created["RoleId"]
    assert got["MaxSessionDuration"] == 3600
    assert got["Description"] == "d"
    assert got["CreateDate"] == created["CreateDate"]
    names = [r["RoleName"] for r in iam.list_roles()["Roles"]]
    assert name in names


def test_role_names_are_unique_regardless_of_case(iam: Any) -> None:
    name = unique("Case")
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    with pytest.raises(ClientError) as exc:
        iam.create_role(RoleName=name.upper(), AssumeRolePolicyDocument=TRUST)
    assert error(exc) == ("EntityAlreadyExists", f"Role with name {name.upper()} already exists.", 409)
    assert iam.get_role(RoleName=name.lower())["Role"]["RoleName"] == name


def test_a_marker_onceflow_did_not_issue_is_refused(iam: Any) -> None:
    for listing in (iam.list_roles, iam.list_users, iam.list_policies):
        for marker in ("not-a-marker!", "bm90LWpzb24"):  # not base64; base64 of something else
            with pytest.raises(ClientError) as exc:
                listing(Marker=marker)
            assert error(exc) == ("ValidationError", "Invalid Marker.", 400)


def test_list_roles_pages_with_marker(iam: Any) -> None:
    prefix = f"/{unique('p')}/"
    names = sorted(unique("pg") for _ in range(5))
    for n in names:
        iam.create_role(RoleName=n, Path=prefix, AssumeRolePolicyDocument=TRUST)
    first = iam.list_roles(PathPrefix=prefix, MaxItems=2)
    assert first["IsTruncated"] is True and len(first["Roles"]) == 2
    seen = [r["RoleName"] for r in first["Roles"]]
    marker = first["Marker"]
    while marker:
        page = iam.list_roles(PathPrefix=prefix, MaxItems=2, Marker=marker)
        seen += [r["RoleName"] for r in page["Roles"]]
        marker = page.get("Marker")
        assert page["IsTruncated"] is bool(marker)
    assert seen == names
    arn = iam.get_role(RoleName=names[0])["Role"]["Arn"]
    assert arn == f"arn:aws:iam::000000000000:role{prefix}{names[0]}"
    paginated = [
        r["RoleName"]
        for p in iam.get_paginator("list_roles").paginate(PathPrefix=prefix, PaginationConfig={"PageSize": 3})
        for r in p["Roles"]
    ]
    assert paginated == names


def test_update_role_and_trust_policy(iam: Any) -> None:
    name = unique()
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    iam.update_role(RoleName=name, Description="new", MaxSessionDuration=7200)
    role = iam.get_role(RoleName=name)["Role"]
    assert (role["Description"], role["MaxSessionDuration"]) == ("new", 7200)
    lam = TRUST.replace("states.amazonaws.com", "lambda.amazonaws.com")
    iam.update_assume_role_policy(RoleName=name, PolicyDocument=lam)
    doc = iam.get_role(RoleName=name)["Role"]["AssumeRolePolicyDocument"]
    assert doc["Statement"][0]["Principal"] == {"Service": "lambda.amazonaws.com"}
    # UpdateRoleDescription answers the role as CreateRole does (AWS's recorded answer).
    described = iam.update_role_description(RoleName=name, Description="via description")["Role"]
    assert described["Description"] == "via description"
    assert "MaxSessionDuration" not in described and "RoleLastUsed" not in described
    assert iam.get_role(RoleName=name)["Role"]["MaxSessionDuration"] == 7200


def test_role_tags(iam: Any) -> None:
    name = unique()
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST, Tags=[{"Key": "team", "Value": "a"}])
    iam.tag_role(RoleName=name, Tags=[{"Key": "Team", "Value": "b"}, {"Key": "env", "Value": "dev"}])
    tags = iam.list_role_tags(RoleName=name)["Tags"]
    assert sorted((t["Key"], t["Value"]) for t in tags) == [("Team", "b"), ("env", "dev")]
    iam.untag_role(RoleName=name, TagKeys=["TEAM"])
    assert iam.list_role_tags(RoleName=name)["Tags"] == [{"Key": "env", "Value": "dev"}]
    assert iam.get_role(RoleName=name)["Role"]["Tags"] == [{"Key": "env", "Value": "dev"}]
    with pytest.raises(ClientError) as exc:
        iam.tag_role(RoleName=name, Tags=[{"Key": "a", "Value": "1"}, {"Key": "A", "Value": "2"}])
    assert error(exc) == (
        "InvalidInput",
        "Duplicate tag keys found. Please note that Tag keys are case insensitive.",
        400,
    )


def test_inline_policy_lifecycle_and_delete_conflict(iam: Any) -> None:
    name = unique()
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    iam.put_role_policy(RoleName=name, PolicyName="InvokeWorker", PolicyDocument=INVOKE)
    got = iam.get_role_policy(RoleName=name, PolicyName="InvokeWorker")
    assert got["RoleName"] == name and got["PolicyName"] == "InvokeWorker"
    assert got["PolicyDocument"] == json.loads(INVOKE)
    assert iam.list_role_policies(RoleName=name)["PolicyNames"] == ["InvokeWorker"]
    with pytest.raises(ClientError) as exc:
        iam.delete_role(RoleName=name)
    assert error(exc) == ("DeleteConflict", "Cannot delete entity, must delete policies first.", 409)
    iam.get_role(RoleName=name)  # still there
    iam.delete_role_policy(RoleName=name, PolicyName="InvokeWorker")
    assert iam.list_role_policies(RoleName=name)["PolicyNames"] == []
    iam.delete_role(RoleName=name)
    with pytest.raises(ClientError) as exc:
        iam.get_role(RoleName=name)
    assert error(exc) == ("NoSuchEntity", f"The role with name {name} cannot be found.", 404)


def test_put_role_policy_replaces_a_document(iam: Any) -> None:
    name = unique()
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=INVOKE)
    other = INVOKE.replace("labex-ev04-worker", "other")
    iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=other)
    doc = iam.get_role_policy(RoleName=name, PolicyName="p")["PolicyDocument"]
    assert doc["Statement"][0]["Resource"].endswith(":function:other")


def test_documents_go_out_url_encoded_and_verbatim(endpoint: str, iam: Any) -> None:
    """The raw XML carries the submitted text percent-encoded (RFC 3986), whitespace and order kept."""
    name = unique()
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    iam.put_role_policy(RoleName=name, PolicyName="InvokeWorker", PolicyDocument=INVOKE)
    captured: list[bytes] = []

    def keep(http_response: botocore.awsrequest.AWSResponse, **_: Any) -> None:
        captured.append(http_response.content)

    iam.meta.events.register("after-call.iam.GetRolePolicy", keep)
    iam.get_role_policy(RoleName=name, PolicyName="InvokeWorker")
    body = captured[-1].decode()
    raw = body.split("<PolicyDocument>")[1].split("</PolicyDocument>")[0]
    assert raw.startswith("%7B%0A%20%20%22Version%22%3A%20%222012-10-17%22%2C")
    assert "%2A" not in raw and "/" not in raw and ":" not in raw
    assert unquote(raw) == INVOKE


def test_missing_role_and_policy_errors(iam: Any) -> None:
    name = unique()
    for call in (
        lambda: iam.get_role(RoleName=name),
        lambda: iam.delete_role(RoleName=name),
        lambda: iam.update_role(RoleName=name, Description="x"),
        lambda: iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=INVOKE),
        lambda: iam.get_role_policy(RoleName=name, PolicyName="p"),
        lambda: iam.list_role_policies(RoleName=name),
        lambda: iam.update_assume_role_policy(RoleName=name, PolicyDocument=TRUST),
        lambda: iam.list_role_tags(RoleName=name),
    ):
        with pytest.raises(ClientError) as exc:
            call()
        assert error(exc) == ("NoSuchEntity", f"The role with name {name} cannot be found.", 404)
    iam.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)
    for call in (
        lambda: iam.get_role_policy(RoleName=name, PolicyName="nope"),
        lambda: iam.delete_role_policy(RoleName=name, PolicyName="nope"),
    ):
        with pytest.raises(ClientError) as exc:
            call()
        assert error(exc) == ("NoSuchEntity", "The role policy with name nope cannot be found.", 404)


def test_cli_create_role_and_get_role_policy_prints_the_decoded_document(
    aws_cli: Callable[..., Any], tmp_path: Any
) -> None:
    name = unique("cli")
    (tmp_path / "workflow-trust.json").write_text(TRUST)
    (tmp_path / "workflow-invoke.json").write_text(INVOKE)
    out = aws_cli(
        "iam",
        "create-role",
        "--role-name",
        name,
        "--assume-role-policy-document",
        "file://workflow-trust.json",
        "--query",
        "Role.Arn",
        "--output",
        "text",
        cwd=str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"arn:aws:iam::000000000000:role/{name}\n"
    out = aws_cli(
        "iam",
        "put-role-policy",
        "--role-name",
        name,
        "--policy-name",
        "InvokeWorker",
        "--policy-document",
        "file://workflow-invoke.json",
        cwd=str(tmp_path),
    )
    assert out.returncode == 0 and out.stdout == "", out.stderr
    out = aws_cli("iam", "get-role-policy", "--role-name", name, "--policy-name", "InvokeWorker")
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    assert printed == {"RoleName": name, "PolicyName": "InvokeWorker", "PolicyDocument": json.loads(INVOKE)}
    assert '"Resource": "arn:aws:lambda:us-east-1:000000000000:function:labex-ev04-worker"' in out.stdout
    out = aws_cli("iam", "delete-role", "--role-name", name)
    assert out.returncode == 255
    assert out.stderr.strip() == (
        "An error occurred (DeleteConflict) when calling the DeleteRole operation: "
        "Cannot delete entity, must delete policies first."
    )
    assert aws_cli("iam", "delete-role-policy", "--role-name", name, "--policy-name", "InvokeWorker").returncode == 0
    assert aws_cli("iam", "delete-role", "--role-name", name).returncode == 0
    out = aws_cli("iam", "list-roles", "--query", "Roles[].RoleName")
    assert name not in json.loads(out.stdout)


def test_accounts_are_isolated(aws: Callable[..., Any]) -> None:
    other = aws("iam", access_key="111122223333")
    name = unique("acct")
    created = other.create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)["Role"]
    assert created["Arn"] == f"arn:aws:iam::111122223333:role/{name}"
    with pytest.raises(ClientError) as exc:
        aws("iam").get_role(RoleName=name)
    assert error(exc)[0] == "NoSuchEntity"
    aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=TRUST)  # the same name, another account
    assert name not in [r["RoleName"] for r in aws("iam", access_key="222233334444").list_roles()["Roles"]]
    creds = aws("sts", access_key="111122223333").assume_role(RoleArn=created["Arn"], RoleSessionName="x1")
    assert creds["AssumedRoleUser"]["Arn"] == f"arn:aws:sts::111122223333:assumed-role/{name}/x1"
    with pytest.raises(ClientError) as exc:
        aws("sts").assume_role(RoleArn=created["Arn"], RoleSessionName="x1")  # cross-account: not trusted
    assert error(exc)[0] == "AccessDenied"
