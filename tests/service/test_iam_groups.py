"""IAM groups (issue 22): groups, membership, inline and attached group policies, and what a
group's policies grant its members when their calls are authorized."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from iam_setup import error, unique

ACCOUNT = "000000000000"
DOC = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "iam:ListRoles", "Resource": "*"}]}
)


def refused(call: Callable[..., Any], **params: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as exc:
        call(**params)
    return error(exc)


def test_group_lifecycle_membership_and_rename(iam: Any) -> None:
    name, user = unique("grp"), unique("user")
    group = iam.create_group(GroupName=name, Path="/team/")["Group"]
    assert group["Arn"] == f"arn:aws:iam::{ACCOUNT}:group/team/{name}"
    assert group["GroupId"].startswith("AGPA") and group["Path"] == "/team/"
    assert refused(iam.create_group, GroupName=name.upper()) == (
        "EntityAlreadyExists", f"Group with name {name.upper()} already exists.", 409)
    assert name in [g["GroupName"] for g in iam.list_groups(PathPrefix="/team/")["Groups"]]
    assert name not in [g["GroupName"] for g in iam.list_groups(PathPrefix="/other/")["Groups"]]

    iam.create_user(UserName=user)
    iam.add_user_to_group(GroupName=name, UserName=user)
    got = iam.get_group(GroupName=name)
    assert got["Group"]["GroupId"] == group["GroupId"] and [u["UserName"] for u in got["Users"]] == [user]
    assert [g["GroupName"] for g in iam.list_groups_for_user(UserName=user)["Groups"]] == [name]
    assert refused(iam.delete_group, GroupName=name) == (
        "DeleteConflict", "Cannot delete entity, must remove users from group first.", 409)
    assert refused(iam.delete_user, UserName=user) == (
        "DeleteConflict", "Cannot delete entity, must remove users from group first.", 409)

    renamed = unique("grp")
    iam.update_group(GroupName=name, NewGroupName=renamed, NewPath="/ops/")
    assert refused(iam.get_group, GroupName=name) == (
        "NoSuchEntity", f"The group with name {name} cannot be found.", 404)
    moved = iam.get_group(GroupName=renamed)
    assert moved["Group"]["Arn"] == f"arn:aws:iam::{ACCOUNT}:group/ops/{renamed}"
    assert moved["Group"]["GroupId"] == group["GroupId"]
    assert [u["UserName"] for u in moved["Users"]] == [user]  # members move with the name
    assert [g["GroupName"] for g in iam.list_groups_for_user(UserName=user)["Groups"]] == [renamed]

    iam.remove_user_from_group(GroupName=renamed, UserName=user)
    assert iam.get_group(GroupName=renamed)["Users"] == []
    iam.remove_user_from_group(GroupName=renamed, UserName=user)  # no longer a member: AWS answers 200
    nobody, nogroup = unique("nobody"), unique("nogroup")
    for call in (iam.add_user_to_group, iam.remove_user_from_group):  # the user is named first
        with pytest.raises(ClientError) as exc:
            call(GroupName=nogroup, UserName=nobody)
        assert exc.value.response["Error"]["Message"] == f"The user with name {nobody} cannot be found."
        with pytest.raises(ClientError) as exc:
            call(GroupName=nogroup, UserName=user)
        assert exc.value.response["Error"]["Message"] == f"The group with name {nogroup} cannot be found."
    assert iam.list_groups_for_user(UserName=user)["Groups"] == []
    iam.delete_group(GroupName=renamed)
    iam.delete_user(UserName=user)
    assert renamed not in [g["GroupName"] for g in iam.list_groups()["Groups"]]


def test_missing_groups_and_users_are_refused_and_change_nothing(iam: Any) -> None:
    name, user, ghost = unique("grp"), unique("user"), unique("ghost")
    iam.create_group(GroupName=name)
    iam.create_user(UserName=user)
    assert refused(iam.add_user_to_group, GroupName=ghost, UserName=user) == (
        "NoSuchEntity", f"The group with name {ghost} cannot be found.", 404)
    assert refused(iam.add_user_to_group, GroupName=name, UserName=ghost) == (
        "NoSuchEntity", f"The user with name {ghost} cannot be found.", 404)
    assert refused(iam.list_groups_for_user, UserName=ghost)[0] == "NoSuchEntity"
    assert refused(iam.delete_group, GroupName=ghost)[0] == "NoSuchEntity"
    assert refused(iam.update_group, GroupName=ghost, NewGroupName=unique("g"))[0] == "NoSuchEntity"
    other = unique("grp")
    iam.create_group(GroupName=other)
    assert refused(iam.update_group, GroupName=name, NewGroupName=other) == (
        "EntityAlreadyExists", f"Group with name {other} already exists.", 409)
    assert iam.get_group(GroupName=name)["Users"] == []
    assert iam.list_groups_for_user(UserName=user)["Groups"] == []


def test_group_inline_and_attached_policies(iam: Any) -> None:
    name = unique("grp")
    iam.create_group(GroupName=name)
    iam.put_group_policy(GroupName=name, PolicyName="list", PolicyDocument=DOC)
    got = iam.get_group_policy(GroupName=name, PolicyName="list")
    assert (got["GroupName"], got["PolicyName"], got["PolicyDocument"]) == (name, "list", json.loads(DOC))
    assert iam.list_group_policies(GroupName=name)["PolicyNames"] == ["list"]
    assert refused(iam.get_group_policy, GroupName=name, PolicyName="nope") == (
        "NoSuchEntity", "The group policy with name nope cannot be found.", 404)
    assert refused(iam.put_group_policy, GroupName=name, PolicyName="bad", PolicyDocument="{")[0] == (
        "MalformedPolicyDocument")
    assert iam.list_group_policies(GroupName=name)["PolicyNames"] == ["list"]
    assert refused(iam.delete_group, GroupName=name) == (
        "DeleteConflict", "Cannot delete entity, must delete policies first.", 409)
    iam.delete_group_policy(GroupName=name, PolicyName="list")
    assert refused(iam.delete_group_policy, GroupName=name, PolicyName="list")[0] == "NoSuchEntity"

    arn = iam.create_policy(PolicyName=unique("pol"), PolicyDocument=DOC)["Policy"]["Arn"]
    iam.attach_group_policy(GroupName=name, PolicyArn=arn)
    assert [p["PolicyArn"] for p in iam.list_attached_group_policies(GroupName=name)["AttachedPolicies"]] == [arn]
    assert iam.get_policy(PolicyArn=arn)["Policy"]["AttachmentCount"] == 1
    entities = iam.list_entities_for_policy(PolicyArn=arn)
    assert [g["GroupName"] for g in entities["PolicyGroups"]] == [name]
    assert entities["PolicyUsers"] == [] and entities["PolicyRoles"] == []
    assert refused(iam.delete_group, GroupName=name) == (
        "DeleteConflict", "Cannot delete entity, must detach all policies first.", 409)
    iam.detach_group_policy(GroupName=name, PolicyArn=arn)
    assert iam.list_attached_group_policies(GroupName=name)["AttachedPolicies"] == []
    iam.delete_group(GroupName=name)


def test_simulation_counts_a_users_group_policies(iam: Any) -> None:
    name, user = unique("grp"), unique("user")
    iam.create_group(GroupName=name)
    user_arn = iam.create_user(UserName=user)["User"]["Arn"]
    iam.put_group_policy(GroupName=name, PolicyName="list", PolicyDocument=DOC)

    def decision() -> str:
        result = iam.simulate_principal_policy(PolicySourceArn=user_arn, ActionNames=["iam:ListRoles"])
        return result["EvaluationResults"][0]["EvalDecision"]

    assert decision() == "implicitDeny"
    iam.add_user_to_group(GroupName=name, UserName=user)
    assert decision() == "allowed"
    iam.remove_user_from_group(GroupName=name, UserName=user)
    assert decision() == "implicitDeny"


def test_a_members_calls_are_authorized_by_the_groups_policies(server_factory: Callable[..., Any]) -> None:
    server = server_factory(extra_args=("--enforce-iam",))
    iam = server.client("iam")
    iam.create_user(UserName="member")
    key = iam.create_access_key(UserName="member")["AccessKey"]
    as_member = server.client("iam", access_key=key["AccessKeyId"], secret_key=key["SecretAccessKey"])
    iam.create_group(GroupName="readers")

    assert refused(as_member.list_roles)[0] == "AccessDenied"
    iam.add_user_to_group(GroupName="readers", UserName="member")
    assert refused(as_member.list_roles)[0] == "AccessDenied"  # a group with no policies grants nothing
    arn = iam.create_policy(PolicyName="list-roles", PolicyDocument=DOC)["Policy"]["Arn"]
    iam.attach_group_policy(GroupName="readers", PolicyArn=arn)
    assert "Roles" in as_member.list_roles()
    deny = json.dumps({"Version": "2012-10-17",
                       "Statement": [{"Effect": "Deny", "Action": "iam:ListRoles", "Resource": "*"}]})
    iam.put_group_policy(GroupName="readers", PolicyName="deny", PolicyDocument=deny)
    message = refused(as_member.list_roles)[1]
    assert "with an explicit deny" in message
    iam.delete_group_policy(GroupName="readers", PolicyName="deny")
    assert "Roles" in as_member.list_roles()
    iam.remove_user_from_group(GroupName="readers", UserName="member")
    assert refused(as_member.list_roles)[0] == "AccessDenied"
