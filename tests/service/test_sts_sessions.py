"""STS against a real server: caller identity per principal, AssumeRole sessions acting as their
role (evaluated against its policies), GetSessionToken, and the CLI."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError

from serverproc import client_factory

ACCT = "000000000000"


def trust(principal: dict[str, Any]) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": principal, "Action": "sts:AssumeRole"}],
        }
    )


def unique(prefix: str = "sts") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    r = exc.value.response
    return r["Error"]["Code"], r["Error"]["Message"], r["ResponseMetadata"]["HTTPStatusCode"]


def as_session(aws: Callable[..., Any], service: str, creds: dict[str, Any]) -> Any:
    return aws(
        service,
        access_key=creds["AccessKeyId"],
        secret_key=creds["SecretAccessKey"],
        session_token=creds["SessionToken"],
    )


def test_root_caller_identity(aws: Callable[..., Any]) -> None:
    ident = aws("sts").get_caller_identity()
    assert (ident["UserId"], ident["Account"], ident["Arn"]) == (ACCT, ACCT, f"arn:aws:iam::{ACCT}:root")


def test_a_twelve_digit_access_key_selects_that_account(aws: Callable[..., Any]) -> None:
    ident = aws("sts", access_key="111122223333").get_caller_identity()
    assert ident["Account"] == "111122223333" and ident["Arn"] == "arn:aws:iam::111122223333:root"


def test_cli_get_caller_identity(aws_cli: Callable[..., Any]) -> None:
    out = aws_cli("sts", "get-caller-identity")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"UserId": ACCT, "Account": ACCT, "Arn": f"arn:aws:iam::{ACCT}:root"}
    assert list(json.loads(out.stdout)) == ["UserId", "Account", "Arn"]


def test_assume_role_gives_a_session_that_acts_as_the_role(aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    name = unique("role")
    role = iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust({"AWS": ACCT}))["Role"]
    before = datetime.now(UTC).replace(microsecond=0)
    out = aws("sts").assume_role(RoleArn=role["Arn"], RoleSessionName="my-session", DurationSeconds=900)
    creds = out["Credentials"]
    assert creds["AccessKeyId"].startswith("ASIA") and len(creds["AccessKeyId"]) == 20
    assert len(creds["SecretAccessKey"]) == 40 and creds["SessionToken"]
    assert 890 <= (creds["Expiration"] - before).total_seconds() <= 910
    session_arn = f"arn:aws:sts::{ACCT}:assumed-role/{name}/my-session"
    assert out["AssumedRoleUser"] == {"AssumedRoleId": f"{role['RoleId']}:my-session", "Arn": session_arn}
    ident = as_session(aws, "sts", creds).get_caller_identity()
    assert ident == {**ident, "UserId": f"{role['RoleId']}:my-session", "Account": ACCT, "Arn": session_arn}

    # The session is evaluated against the role's policies, whatever the server mode.
    session_iam = as_session(aws, "iam", creds)
    with pytest.raises(ClientError) as exc:
        session_iam.get_role(RoleName=name)
    assert error(exc) == (
        "AccessDenied",
        f"User: {session_arn} is not authorized to perform: iam:GetRole on resource: {role['Arn']} "
        "because no identity-based policy allows the iam:GetRole action",
        403,
    )
    policy = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "iam:GetRole", "Resource": f"arn:aws:iam::{ACCT}:role/{name}"}],
        }
    )
    iam.put_role_policy(RoleName=name, PolicyName="self", PolicyDocument=policy)
    assert session_iam.get_role(RoleName=name)["Role"]["Arn"] == role["Arn"]  # applies to the next call
    with pytest.raises(ClientError) as exc:
        session_iam.list_roles()
    assert error(exc)[0] == "AccessDenied"
    iam.attach_role_policy(RoleName=name, PolicyArn="arn:aws:iam::aws:policy/AdministratorAccess")
    assert session_iam.list_roles()["Roles"]


def test_assume_role_from_a_session_needs_the_trust_policy(aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    first, second = unique("first"), unique("second")
    admin = "arn:aws:iam::aws:policy/AdministratorAccess"
    iam.create_role(RoleName=first, AssumeRolePolicyDocument=trust({"AWS": ACCT}))
    iam.attach_role_policy(RoleName=first, PolicyArn=admin)
    iam.create_role(RoleName=second, AssumeRolePolicyDocument=trust({"Service": "states.amazonaws.com"}))
    creds = aws("sts").assume_role(RoleArn=f"arn:aws:iam::{ACCT}:role/{first}", RoleSessionName="a1")["Credentials"]
    chained = as_session(aws, "sts", creds)
    target = f"arn:aws:iam::{ACCT}:role/{second}"
    with pytest.raises(ClientError) as exc:
        chained.assume_role(RoleArn=target, RoleSessionName="b1")
    assert error(exc) == (
        "AccessDenied",
        f"User: arn:aws:sts::{ACCT}:assumed-role/{first}/a1 is not authorized to perform: sts:AssumeRole "
        f"on resource: {target}",
        403,
    )
    iam.update_assume_role_policy(RoleName=second, PolicyDocument=trust({"AWS": f"arn:aws:iam::{ACCT}:role/{first}"}))
    out = chained.assume_role(RoleArn=target, RoleSessionName="b1")
    assert out["AssumedRoleUser"]["Arn"] == f"arn:aws:sts::{ACCT}:assumed-role/{second}/b1"


def test_assume_role_duration_is_bounded_by_the_role(aws: Callable[..., Any]) -> None:
    name = unique("role")
    arn = aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=trust({"AWS": ACCT}))["Role"]["Arn"]
    with pytest.raises(ClientError) as exc:
        aws("sts").assume_role(RoleArn=arn, RoleSessionName="s1", DurationSeconds=7200)
    assert error(exc) == (
        "ValidationError",
        "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.",
        400,
    )


def test_get_session_token(aws: Callable[..., Any]) -> None:
    creds = aws("sts").get_session_token()["Credentials"]
    assert creds["AccessKeyId"].startswith("ASIA")
    remaining = (creds["Expiration"] - datetime.now(UTC)).total_seconds()
    assert 3500 <= remaining <= 3600  # the root's sessions last at most an hour
    ident = as_session(aws, "sts", creds).get_caller_identity()
    assert ident["Arn"] == f"arn:aws:iam::{ACCT}:root"
    role_arn = aws("iam").create_role(RoleName=unique("r"), AssumeRolePolicyDocument=trust({"AWS": ACCT}))["Role"][
        "Arn"
    ]
    session = aws("sts").assume_role(RoleArn=role_arn, RoleSessionName="s1")["Credentials"]
    with pytest.raises(ClientError) as exc:
        as_session(aws, "sts", session).get_session_token()
    assert error(exc) == ("AccessDenied", "Cannot call GetSessionToken with session credentials", 403)


def test_sessions_survive_a_restart(server_factory: Callable[..., Any], tmp_path: Any) -> None:
    srv = server_factory(tmp_path / "data")
    aws = client_factory(srv.url)
    name = unique("durable")
    arn = aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=trust({"AWS": ACCT}))["Role"]["Arn"]
    creds = aws("sts").assume_role(RoleArn=arn, RoleSessionName="s1")["Credentials"]
    srv.kill()
    srv = server_factory(tmp_path / "data")
    aws = client_factory(srv.url)
    assert aws("iam").get_role(RoleName=name)["Role"]["Arn"] == arn
    ident = as_session(aws, "sts", creds).get_caller_identity()
    assert ident["Arn"] == f"arn:aws:sts::{ACCT}:assumed-role/{name}/s1"


def test_enforce_iam_applies_users_policies(server_factory: Callable[..., Any], tmp_path: Any) -> None:
    srv = server_factory(tmp_path / "strict", extra_args=("--enforce-iam",))
    aws = client_factory(srv.url)
    iam = aws("iam")
    iam.create_user(UserName="alice")
    key = iam.create_access_key(UserName="alice")["AccessKey"]
    alice = aws("iam", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    with pytest.raises(ClientError) as exc:
        alice.list_roles()
    assert error(exc) == (
        "AccessDenied",
        f"User: arn:aws:iam::{ACCT}:user/alice is not authorized to perform: iam:ListRoles on resource: * "
        "because no identity-based policy allows the iam:ListRoles action",
        403,
    )
    # Under --enforce-iam the account root may not assume roles, as on AWS.
    iam.create_role(RoleName="svc", AssumeRolePolicyDocument=trust({"AWS": ACCT}))
    with pytest.raises(ClientError) as exc:
        aws("sts").assume_role(RoleArn=f"arn:aws:iam::{ACCT}:role/svc", RoleSessionName="s1")
    assert error(exc) == ("AccessDenied", "Roles may not be assumed by root accounts.", 403)
    # A user needs both sts:AssumeRole in its own policies and the role's trust.
    alice_sts = aws("sts", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    assume = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": "*"}]}
    )
    iam.put_user_policy(UserName="alice", PolicyName="assume", PolicyDocument=assume)
    assert alice_sts.assume_role(RoleArn=f"arn:aws:iam::{ACCT}:role/svc", RoleSessionName="s1")["Credentials"]
    iam.update_assume_role_policy(RoleName="svc", PolicyDocument=trust({"Service": "lambda.amazonaws.com"}))
    with pytest.raises(ClientError) as exc:
        alice_sts.assume_role(RoleArn=f"arn:aws:iam::{ACCT}:role/svc", RoleSessionName="s2")
    assert error(exc) == (
        "AccessDenied",
        f"User: arn:aws:iam::{ACCT}:user/alice is not authorized to perform: sts:AssumeRole on resource: "
        f"arn:aws:iam::{ACCT}:role/svc",
        403,
    )
    # Plain keys still act as the root, who may do everything.
    assert iam.list_roles()["Roles"]
    allow = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "iam:List*", "Resource": "*"}]}
    )
    iam.put_user_policy(UserName="alice", PolicyName="list", PolicyDocument=allow)
    assert [r["RoleName"] for r in alice.list_roles()["Roles"]] == ["svc"]
    assert aws("sts", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"]).get_caller_identity()


def test_session_policies_narrow_what_the_role_allows(aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    name = unique("narrow")
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust({"AWS": ACCT}))["Role"]["Arn"]
    iam.attach_role_policy(RoleName=name, PolicyArn="arn:aws:iam::aws:policy/AdministratorAccess")
    only_get = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "iam:GetRole", "Resource": arn}]}
    )
    creds = aws("sts").assume_role(RoleArn=arn, RoleSessionName="narrow", Policy=only_get)["Credentials"]
    session = as_session(aws, "iam", creds)
    assert session.get_role(RoleName=name)["Role"]["Arn"] == arn
    with pytest.raises(ClientError) as exc:
        session.list_roles()
    assert error(exc) == (
        "AccessDenied",
        f"User: arn:aws:sts::{ACCT}:assumed-role/{name}/narrow is not authorized to perform: iam:ListRoles "
        "on resource: * because no session policy allows the iam:ListRoles action",
        403,
    )
    with pytest.raises(ClientError) as exc:
        aws("sts").assume_role(RoleArn=arn, RoleSessionName="bad", Policy='{"Statement": [')
    assert error(exc) == ("MalformedPolicyDocument", "This policy contains invalid Json", 400)
    managed = as_session(
        aws,
        "iam",
        aws("sts").assume_role(
            RoleArn=arn,
            RoleSessionName="managed",
            PolicyArns=[{"arn": "arn:aws:iam::aws:policy/service-role/AWSLambdaRole"}],
        )["Credentials"],
    )
    with pytest.raises(ClientError) as exc:
        managed.get_role(RoleName=name)
    assert "because no session policy allows the iam:GetRole action" in error(exc)[1]


def test_permissions_boundary_caps_the_role(aws: Callable[..., Any]) -> None:
    iam = aws("iam")
    name = unique("bounded")
    only_get = json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "iam:Get*", "Resource": "*"}]}
    )
    boundary = iam.create_policy(PolicyName=unique("boundary"), PolicyDocument=only_get)["Policy"]["Arn"]
    arn = iam.create_role(RoleName=name, AssumeRolePolicyDocument=trust({"AWS": ACCT}), PermissionsBoundary=boundary)[
        "Role"
    ]["Arn"]
    role = iam.get_role(RoleName=name)["Role"]
    assert role["PermissionsBoundary"] == {"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": boundary}
    assert iam.get_policy(PolicyArn=boundary)["Policy"]["PermissionsBoundaryUsageCount"] == 1
    iam.attach_role_policy(RoleName=name, PolicyArn="arn:aws:iam::aws:policy/AdministratorAccess")
    session = as_session(aws, "iam", aws("sts").assume_role(RoleArn=arn, RoleSessionName="b1")["Credentials"])
    assert session.get_role(RoleName=name)["Role"]["Arn"] == arn
    with pytest.raises(ClientError) as exc:
        session.list_roles()
    assert error(exc) == (
        "AccessDenied",
        f"User: arn:aws:sts::{ACCT}:assumed-role/{name}/b1 is not authorized to perform: iam:ListRoles "
        "on resource: * because no permissions boundary allows the iam:ListRoles action",
        403,
    )
    with pytest.raises(ClientError) as exc:
        iam.delete_policy(PolicyArn=boundary)
    assert error(exc) == ("DeleteConflict", "Cannot delete a policy attached to entities.", 409)
    iam.delete_role_permissions_boundary(RoleName=name)
    assert "PermissionsBoundary" not in iam.get_role(RoleName=name)["Role"]
    assert session.list_roles()["Roles"]  # the next call sees the change
    iam.put_role_permissions_boundary(RoleName=name, PermissionsBoundary=boundary)
    with pytest.raises(ClientError):
        session.list_roles()
    missing = f"arn:aws:iam::{ACCT}:policy/no-such-boundary"
    with pytest.raises(ClientError) as exc:
        iam.put_role_permissions_boundary(RoleName=name, PermissionsBoundary=missing)
    assert error(exc)[0] == "NoSuchEntity"


def test_a_role_of_another_account_is_assumed_when_its_trust_policy_says_so(aws: Callable[..., Any]) -> None:
    other = "111111111111"  # a 12-digit access key acts as that account's root
    iam_b = aws("iam", access_key=other)
    trusting, closed = unique("cross"), unique("closed")
    doc = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCT}:root"}, "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"sts:ExternalId": "shared-secret"}}}]}
    arn = iam_b.create_role(RoleName=trusting, AssumeRolePolicyDocument=json.dumps(doc))["Role"]["Arn"]
    closed_arn = iam_b.create_role(RoleName=closed, AssumeRolePolicyDocument=trust({"AWS": other}))["Role"]["Arn"]
    sts = aws("sts")
    for role_arn, params in ((arn, {}), (arn, {"ExternalId": "wrong"}), (closed_arn, {})):
        with pytest.raises(ClientError) as exc:
            sts.assume_role(RoleArn=role_arn, RoleSessionName="x1", **params)
        assert error(exc) == ("AccessDenied", f"User: arn:aws:iam::{ACCT}:root is not authorized to perform: "
                              f"sts:AssumeRole on resource: {role_arn}", 403)
    creds = sts.assume_role(RoleArn=arn, RoleSessionName="x1", ExternalId="shared-secret")["Credentials"]
    ident = as_session(aws, "sts", creds).get_caller_identity()
    assert (ident["Account"], ident["Arn"]) == (other, f"arn:aws:sts::{other}:assumed-role/{trusting}/x1")


def test_session_tags_need_tag_session_and_reach_principal_tag_conditions(aws: Callable[..., Any]) -> None:
    iam, sts = aws("iam"), aws("sts")
    gate, target = unique("gate"), unique("target")
    admin = "arn:aws:iam::aws:policy/AdministratorAccess"
    iam.create_role(RoleName=gate, AssumeRolePolicyDocument=trust({"AWS": ACCT}))
    iam.attach_role_policy(RoleName=gate, PolicyArn=admin)
    target_arn = f"arn:aws:iam::{ACCT}:role/{target}"
    gate_arn = f"arn:aws:iam::{ACCT}:role/{gate}"
    only_assume = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": gate_arn}, "Action": "sts:AssumeRole"}]}
    iam.create_role(RoleName=target, AssumeRolePolicyDocument=json.dumps(only_assume))
    blue_only = {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Action": "iam:ListRoles", "Resource": "*",
        "Condition": {"StringEquals": {"aws:PrincipalTag/team": "blue"}}}]}
    iam.put_role_policy(RoleName=target, PolicyName="abac", PolicyDocument=json.dumps(blue_only))

    # The first hop (the account root, lenient mode) tags its session and makes the tag transitive.
    first = sts.assume_role(RoleArn=gate_arn, RoleSessionName="g1", Tags=[{"Key": "Team", "Value": "blue"}],
                            TransitiveTagKeys=["Team"])["Credentials"]
    hop = as_session(aws, "sts", first)
    # Passing tags needs sts:TagSession in the trust policy; setting an inherited transitive key again is refused.
    with pytest.raises(ClientError) as exc:
        hop.assume_role(RoleArn=target_arn, RoleSessionName="t1", Tags=[{"Key": "x", "Value": "y"}])
    assert error(exc) == ("AccessDenied", f"User: arn:aws:sts::{ACCT}:assumed-role/{gate}/g1 is not authorized to "
                          f"perform: sts:TagSession on resource: {target_arn}", 403)
    with pytest.raises(ClientError) as exc:
        hop.assume_role(RoleArn=target_arn, RoleSessionName="t1", Tags=[{"Key": "team", "Value": "red"}])
    assert error(exc)[0::2] == ("InvalidParameterValue", 400)
    # The transitive tag rides down the chain: the target's ABAC statement allows the blue session.
    chained = hop.assume_role(RoleArn=target_arn, RoleSessionName="t1")["Credentials"]
    assert as_session(aws, "iam", chained).list_roles(MaxItems=1)["Roles"]

    # A session tagged red (its own, not inherited) is refused by the same statement.
    iam.update_assume_role_policy(RoleName=target, PolicyDocument=trust({"AWS": ACCT}))
    red = sts.assume_role(RoleArn=target_arn, RoleSessionName="t2", Tags=[{"Key": "team", "Value": "red"}])
    with pytest.raises(ClientError) as exc:
        as_session(aws, "iam", red["Credentials"]).list_roles(MaxItems=1)
    assert error(exc)[0] == "AccessDenied"
    with pytest.raises(ClientError) as exc:
        sts.assume_role(RoleArn=target_arn, RoleSessionName="t3", Tags=[{"Key": "a", "Value": "1"}],
                        TransitiveTagKeys=["b"])
    assert error(exc) == ("InvalidParameterValue",
                          "The specified transitive tag key must be included in the requested tags.", 400)
