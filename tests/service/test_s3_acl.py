"""S3 ACLs: a new bucket has ACLs disabled (BucketOwnerEnforced) and refuses any but the owner's
full control; with ObjectWriter ownership canned ACLs, grant headers and AccessControlPolicy
bodies are stored and returned for buckets and object versions; Block Public Access refuses
public grants."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

Aws = Callable[..., Any]
ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def error(info: pytest.ExceptionInfo[ClientError]) -> tuple[str, int]:
    return info.value.response["Error"]["Code"], info.value.response["ResponseMetadata"]["HTTPStatusCode"]


def summary(acl: dict[str, Any]) -> list[tuple[str, str]]:
    return [(g["Grantee"].get("URI") or g["Grantee"]["Type"], g["Permission"]) for g in acl["Grants"]]


def test_a_new_bucket_has_acls_disabled(aws: Aws) -> None:
    s3, name = aws("s3"), uid("acloff")
    s3.create_bucket(Bucket=name)
    owner = s3.get_bucket_acl(Bucket=name)["Owner"]
    assert summary(s3.get_bucket_acl(Bucket=name)) == [("CanonicalUser", "FULL_CONTROL")]
    with pytest.raises(ClientError) as info:
        s3.put_bucket_acl(Bucket=name, ACL="public-read")
    assert error(info) == ("AccessControlListNotSupported", 400)
    s3.put_bucket_acl(Bucket=name, ACL="private")  # nothing beyond the owner's full control: accepted
    with pytest.raises(ClientError) as info:
        s3.put_object(Bucket=name, Key="k", Body=b"x", ACL="public-read")
    assert error(info) == ("AccessControlListNotSupported", 400)
    with pytest.raises(ClientError) as info:  # refused before anything is stored
        s3.head_object(Bucket=name, Key="k")
    assert error(info)[1] == 404
    s3.put_object(Bucket=name, Key="k", Body=b"x", ACL="bucket-owner-full-control")
    got = s3.get_object_acl(Bucket=name, Key="k")
    assert got["Owner"] == owner and summary(got) == [("CanonicalUser", "FULL_CONTROL")]
    with pytest.raises(ClientError) as info:
        s3.create_bucket(Bucket=uid("aclbad"), ACL="public-read")
    assert error(info) == ("InvalidBucketAclWithObjectOwnership", 400)


def test_with_object_writer_ownership_acls_are_kept_per_bucket_and_version(aws: Aws) -> None:
    s3, name = aws("s3"), uid("aclon")
    s3.create_bucket(Bucket=name, ObjectOwnership="ObjectWriter", ACL="public-read")
    assert summary(s3.get_bucket_acl(Bucket=name)) == [("CanonicalUser", "FULL_CONTROL"), (ALL_USERS, "READ")]
    s3.put_bucket_acl(Bucket=name, GrantRead=f'uri="{ALL_USERS}"', GrantWrite=f'uri="{ALL_USERS}"')
    assert summary(s3.get_bucket_acl(Bucket=name)) == [(ALL_USERS, "READ"), (ALL_USERS, "WRITE")]
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    first = s3.put_object(Bucket=name, Key="doc", Body=b"1", ACL="authenticated-read")["VersionId"]
    s3.put_object(Bucket=name, Key="doc", Body=b"2")
    assert summary(s3.get_object_acl(Bucket=name, Key="doc")) == [("CanonicalUser", "FULL_CONTROL")]
    assert summary(s3.get_object_acl(Bucket=name, Key="doc", VersionId=first))[1] == (
        "http://acs.amazonaws.com/groups/global/AuthenticatedUsers", "READ")
    owner = s3.get_bucket_acl(Bucket=name)["Owner"]
    body = {"Owner": owner, "Grants": [
        {"Grantee": {"Type": "CanonicalUser", "ID": owner["ID"]}, "Permission": "FULL_CONTROL"},
        {"Grantee": {"Type": "Group", "URI": ALL_USERS}, "Permission": "READ"}]}
    s3.put_object_acl(Bucket=name, Key="doc", AccessControlPolicy=body)
    assert summary(s3.get_object_acl(Bucket=name, Key="doc")) == [("CanonicalUser", "FULL_CONTROL"),
                                                                   (ALL_USERS, "READ")]
    copied = s3.copy_object(Bucket=name, Key="copy", CopySource={"Bucket": name, "Key": "doc"})
    assert copied["VersionId"]
    assert summary(s3.get_object_acl(Bucket=name, Key="copy")) == [("CanonicalUser", "FULL_CONTROL")]

    with pytest.raises(ClientError) as info:
        s3.put_object_acl(Bucket=name, Key="doc", ACL="private", GrantRead=f'uri="{ALL_USERS}"')
    assert error(info) == ("InvalidRequest", 400)
    with pytest.raises(ClientError) as info:
        s3.put_object_acl(Bucket=name, Key="doc", GrantRead='emailAddress="someone@example.com"')
    assert error(info) == ("UnresolvableGrantByEmailAddress", 400)
    s3.put_public_access_block(Bucket=name, PublicAccessBlockConfiguration={"BlockPublicAcls": True})
    with pytest.raises(ClientError) as info:
        s3.put_object_acl(Bucket=name, Key="doc", ACL="public-read")
    assert error(info) == ("AccessDenied", 403)
    assert summary(s3.get_object_acl(Bucket=name, Key="doc"))[1] == (ALL_USERS, "READ")  # unchanged
