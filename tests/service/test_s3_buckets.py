"""Buckets through boto3: create with a region constraint, head, list with paging, location,
versioning, the stored configurations (tagging, policy, CORS, lifecycle, notification, ownership
controls, public access block, encryption), and IAM's S3 actions for a role session."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError


def _code(info: Any) -> tuple[str, int]:
    response = info.value.response
    return response["Error"]["Code"], response["ResponseMetadata"]["HTTPStatusCode"]


def _name() -> str:
    return f"bkt-{uuid.uuid4().hex[:16]}"


def test_create_head_locate_and_delete(aws: Callable[..., Any]) -> None:
    s3, eu = aws("s3"), aws("s3", region="eu-west-1")
    home, there = _name(), _name()
    s3.create_bucket(Bucket=home)
    eu.create_bucket(Bucket=there, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    assert s3.get_bucket_location(Bucket=home)["LocationConstraint"] is None
    assert s3.get_bucket_location(Bucket=there)["LocationConstraint"] == "eu-west-1"
    assert s3.head_bucket(Bucket=there)["BucketRegion"] == "eu-west-1"
    with pytest.raises(ClientError) as info:
        eu.create_bucket(Bucket=_name())  # no constraint at a regional endpoint
    assert _code(info) == ("IllegalLocationConstraintException", 400)
    with pytest.raises(ClientError) as info:
        eu.create_bucket(Bucket=_name(), CreateBucketConfiguration={"LocationConstraint": "ap-south-1"})
    assert _code(info) == ("IllegalLocationConstraintException", 400)
    with pytest.raises(ClientError) as info:
        eu.create_bucket(Bucket=there, CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})
    assert _code(info) == ("BucketAlreadyOwnedByYou", 409)
    other = aws("s3", access_key="111111111111")  # another account: the namespace is shared
    with pytest.raises(ClientError) as info:
        other.create_bucket(Bucket=home)
    assert _code(info) == ("BucketAlreadyExists", 409)
    with pytest.raises(ClientError) as info:
        other.head_bucket(Bucket=home)
    assert _code(info)[1] == 403
    s3.delete_bucket(Bucket=home)
    with pytest.raises(ClientError) as info:
        s3.head_bucket(Bucket=home)
    assert _code(info)[1] == 404
    with pytest.raises(ClientError) as info:
        s3.delete_bucket(Bucket=home)
    assert _code(info) == ("NoSuchBucket", 404)


def test_list_buckets_pages(aws: Callable[..., Any]) -> None:
    s3 = aws("s3", access_key="222222222222")  # an account of its own: only these buckets
    names = sorted(f"page-{uuid.uuid4().hex[:10]}-{i}" for i in range(5))
    for name in names:
        s3.create_bucket(Bucket=name)
    first = s3.list_buckets(MaxBuckets=2)
    assert [b["Name"] for b in first["Buckets"]] == names[:2] and first["ContinuationToken"]
    pages = s3.get_paginator("list_buckets").paginate(PaginationConfig={"PageSize": 2})
    assert [b["Name"] for page in pages for b in page["Buckets"]] == names
    assert [b["Name"] for b in s3.list_buckets(Prefix=names[3][:16])["Buckets"]] == [names[3]]


def test_stored_configurations_round_trip(aws: Callable[..., Any]) -> None:
    s3 = aws("s3")
    name = _name()
    s3.create_bucket(Bucket=name)
    with pytest.raises(ClientError) as info:
        s3.get_bucket_tagging(Bucket=name)
    assert _code(info) == ("NoSuchTagSet", 404)
    s3.put_bucket_tagging(Bucket=name, Tagging={"TagSet": [{"Key": "team", "Value": "a"}]})
    assert s3.get_bucket_tagging(Bucket=name)["TagSet"] == [{"Key": "team", "Value": "a"}]
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                                                      "Resource": f"arn:aws:s3:::{name}/*"}]}
    s3.put_bucket_policy(Bucket=name, Policy=json.dumps(policy))
    assert json.loads(s3.get_bucket_policy(Bucket=name)["Policy"]) == policy
    assert s3.get_bucket_policy_status(Bucket=name)["PolicyStatus"] == {"IsPublic": True}  # anyone may read
    assert s3.get_bucket_request_payment(Bucket=name)["Payer"] == "BucketOwner"
    with pytest.raises(ClientError) as info:
        s3.put_bucket_policy(Bucket=name, Policy="not json")
    assert _code(info) == ("MalformedPolicy", 400)
    cors = {"CORSRules": [{"AllowedMethods": ["GET"], "AllowedOrigins": ["https://example.com"], "MaxAgeSeconds": 60}]}
    s3.put_bucket_cors(Bucket=name, CORSConfiguration=cors)
    assert s3.get_bucket_cors(Bucket=name)["CORSRules"] == cors["CORSRules"]
    rules = [{"ID": "expire", "Status": "Enabled", "Filter": {"Prefix": "tmp/"}, "Expiration": {"Days": 7}}]
    s3.put_bucket_lifecycle_configuration(Bucket=name, LifecycleConfiguration={"Rules": rules})
    assert s3.get_bucket_lifecycle_configuration(Bucket=name)["Rules"] == rules
    queue = {"QueueArn": "arn:aws:sqs:us-east-1:000000000000:q", "Events": ["s3:ObjectCreated:*"]}
    s3.put_bucket_notification_configuration(Bucket=name, NotificationConfiguration={"QueueConfigurations": [queue]},
                                             SkipDestinationValidation=True)  # no such queue: stored unchecked
    got = s3.get_bucket_notification_configuration(Bucket=name)
    assert got["QueueConfigurations"][0]["Events"] == ["s3:ObjectCreated:*"]
    enforced = {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    assert s3.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"] == enforced  # a new bucket's default
    s3.put_bucket_ownership_controls(Bucket=name, OwnershipControls=enforced)
    assert s3.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"]["Rules"][0]["ObjectOwnership"] == \
        "BucketOwnerEnforced"
    block = {flag: True for flag in ("BlockPublicAcls", "IgnorePublicAcls", "BlockPublicPolicy",
                                     "RestrictPublicBuckets")}
    s3.put_public_access_block(Bucket=name, PublicAccessBlockConfiguration=block)
    website = {"IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "404.html"}}
    s3.put_bucket_website(Bucket=name, WebsiteConfiguration=website)
    assert {k: v for k, v in s3.get_bucket_website(Bucket=name).items() if k != "ResponseMetadata"} == website
    for bad, message in (({"ErrorDocument": {"Key": "e.html"}}, "A value for IndexDocument Suffix must be provided "
                                                                 "if RedirectAllRequestsTo is empty"),
                         ({"IndexDocument": {"Suffix": "a/b.html"}}, "The IndexDocument Suffix is not well formed"),
                         ({"RedirectAllRequestsTo": {"HostName": "example.com"}, **website},
                          "RedirectAllRequestsTo cannot be provided in conjunction with other Routing Rules.")):
        with pytest.raises(ClientError) as info:
            s3.put_bucket_website(Bucket=name, WebsiteConfiguration=bad)
        assert (*_code(info), info.value.response["Error"]["Message"]) == ("InvalidArgument", 400, message)
    assert s3.get_bucket_website(Bucket=name)["IndexDocument"] == {"Suffix": "index.html"}  # unchanged
    s3.delete_bucket_website(Bucket=name)
    with pytest.raises(ClientError) as info:
        s3.get_bucket_website(Bucket=name)
    assert _code(info) == ("NoSuchWebsiteConfiguration", 404)
    assert s3.get_public_access_block(Bucket=name)["PublicAccessBlockConfiguration"] == block
    assert s3.get_bucket_encryption(Bucket=name)["ServerSideEncryptionConfiguration"]["Rules"][0][
        "ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    for delete, get, code in ((s3.delete_bucket_tagging, s3.get_bucket_tagging, "NoSuchTagSet"),
                              (s3.delete_bucket_policy, s3.get_bucket_policy, "NoSuchBucketPolicy"),
                              (s3.delete_bucket_cors, s3.get_bucket_cors, "NoSuchCORSConfiguration"),
                              (s3.delete_public_access_block, s3.get_public_access_block,
                               "NoSuchPublicAccessBlockConfiguration"),
                              (s3.delete_bucket_ownership_controls, s3.get_bucket_ownership_controls,
                               "OwnershipControlsNotFoundError")):
        delete(Bucket=name)
        with pytest.raises(ClientError) as info:
            get(Bucket=name)
        assert _code(info) == (code, 404)
    s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Suspended"})
    assert s3.get_bucket_versioning(Bucket=name)["Status"] == "Suspended"


def test_a_role_session_is_held_to_s3_actions(aws: Callable[..., Any]) -> None:
    s3, iam = aws("s3"), aws("iam")
    name = _name()
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="readable", Body=b"r")
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"},
                                                     "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName=f"reader-{uuid.uuid4().hex[:8]}", AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(RoleName=role["Role"]["RoleName"], PolicyName="read", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": f"arn:aws:s3:::{name}/*"},
            {"Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": f"arn:aws:s3:::{name}"}]}))
    creds = aws("sts").assume_role(RoleArn=role["Role"]["Arn"], RoleSessionName="reader")["Credentials"]
    reader = aws("s3", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                 session_token=creds["SessionToken"])
    assert reader.head_object(Bucket=name, Key="readable")["ContentLength"] == 1  # s3:GetObject
    assert reader.get_object(Bucket=name, Key="readable")["Body"].read() == b"r"
    assert [o["Key"] for o in reader.list_objects_v2(Bucket=name)["Contents"]] == ["readable"]  # s3:ListBucket
    with pytest.raises(ClientError) as info:
        reader.put_object(Bucket=name, Key="written", Body=b"w")
    assert _code(info) == ("AccessDenied", 403)
    assert "s3:PutObject" in info.value.response["Error"]["Message"]
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=name)["Contents"]] == ["readable"]


def test_a_bucket_policy_grants_and_denies_to_a_role_session(aws: Callable[..., Any]) -> None:
    s3, iam = aws("s3"), aws("iam")
    name = _name()
    s3.create_bucket(Bucket=name)
    s3.put_object(Bucket=name, Key="shared/doc", Body=b"d")
    s3.put_object(Bucket=name, Key="secret/doc", Body=b"s")
    trust = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"},
                                                     "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName=f"nopolicy-{uuid.uuid4().hex[:8]}", AssumeRolePolicyDocument=json.dumps(trust))
    arn = role["Role"]["Arn"]
    s3.put_bucket_policy(Bucket=name, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": arn}, "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{name}/*"},
        {"Effect": "Deny", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{name}/secret/*"}]}))
    creds = aws("sts").assume_role(RoleArn=arn, RoleSessionName="visitor")["Credentials"]
    visitor = aws("s3", access_key=creds["AccessKeyId"], secret_key=creds["SecretAccessKey"],
                  session_token=creds["SessionToken"])
    assert visitor.get_object(Bucket=name, Key="shared/doc")["Body"].read() == b"d"  # the bucket policy grants
    with pytest.raises(ClientError) as info:
        visitor.get_object(Bucket=name, Key="secret/doc")  # its explicit deny wins
    assert _code(info) == ("AccessDenied", 403)
    with pytest.raises(ClientError) as info:
        visitor.put_object(Bucket=name, Key="shared/new", Body=b"n")  # granted by neither
    assert _code(info) == ("AccessDenied", 403)
