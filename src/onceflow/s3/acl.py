"""S3 access control lists: canned ACLs, x-amz-grant-* headers and AccessControlPolicy bodies
turned into one list of grants, and the rules that refuse them (S3 User Guide, "Access control
list (ACL) overview" and "Controlling ownership of objects").

A pure module. A grant is {"Grantee": {"Type": ..., "ID" | "URI": ...}, "Permission": ...} as the
API shapes it; the owner's FULL_CONTROL grant is always first. Since April 2023 a bucket's Object
Ownership defaults to BucketOwnerEnforced: ACLs are disabled, and only an ACL that gives nothing
beyond the owner's full control may be written (reading one always works). ACLs are stored and
returned; access is decided by IAM and bucket policies, which onceflow evaluates - not by grants.
"""

from __future__ import annotations

import json
import re
from typing import Any

from onceflow.errors import ServiceError
from onceflow.s3 import errors

ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
AUTHENTICATED = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"
LOG_DELIVERY = "http://acs.amazonaws.com/groups/s3/LogDelivery"
PUBLIC = (ALL_USERS, AUTHENTICATED)
PERMISSIONS = ("FULL_CONTROL", "WRITE", "WRITE_ACP", "READ", "READ_ACP")
# Grant header members -> the permission each grants.
HEADERS = {"GrantFullControl": "FULL_CONTROL", "GrantRead": "READ", "GrantReadACP": "READ_ACP",
           "GrantWrite": "WRITE", "GrantWriteACP": "WRITE_ACP"}
# Canned ACLs -> (group URI, permission) grants beside the owner's FULL_CONTROL. bucket-owner-read and
# bucket-owner-full-control add a grant to the bucket owner, who is the object's owner here (one
# account writes its own buckets), so they collapse to private.
CANNED: dict[str, tuple[tuple[str, str], ...]] = {
    "private": (), "bucket-owner-read": (), "bucket-owner-full-control": (),
    "public-read": ((ALL_USERS, "READ"),),
    "public-read-write": ((ALL_USERS, "READ"), (ALL_USERS, "WRITE")),
    "authenticated-read": ((AUTHENTICATED, "READ"),),
    "aws-exec-read": (),  # EC2's bundle-read grant: no such account here
    "log-delivery-write": ((LOG_DELIVERY, "WRITE"), (LOG_DELIVERY, "READ_ACP")),
}
_HEADER_GRANTEE = re.compile(r'\s*(id|uri|emailAddress)\s*=\s*"?([^",]*)"?\s*(?:,|$)')
_CANONICAL_ID = re.compile(r"^[0-9a-f]{64}$")


def owner_grant(owner: dict[str, str]) -> dict[str, Any]:
    return {"Grantee": {"DisplayName": owner["DisplayName"], "ID": owner["ID"], "Type": "CanonicalUser"},
            "Permission": "FULL_CONTROL"}


def private(owner: dict[str, str]) -> list[dict[str, Any]]:
    return [owner_grant(owner)]


def _group(uri: str, permission: str) -> dict[str, Any]:
    return {"Grantee": {"Type": "Group", "URI": uri}, "Permission": permission}


def _grantee(kind: str, value: str) -> dict[str, Any]:
    if kind == "uri":
        if value not in (ALL_USERS, AUTHENTICATED, LOG_DELIVERY):
            raise errors.invalid_argument("Invalid group uri", "uri", value)
        return {"Type": "Group", "URI": value}
    if kind == "emailAddress":
        raise ServiceError("UnresolvableGrantByEmailAddress", "The e-mail address you provided does not match any "
                           "account on record.", 400, extra={"EmailAddressProvided": value})
    if not _CANONICAL_ID.match(value):
        raise errors.invalid_argument("Invalid id", "CanonicalUser/ID", value)
    return {"Type": "CanonicalUser", "ID": value}


def requested(params: dict[str, Any], owner: dict[str, str], canned: tuple[str, ...] = tuple(CANNED)
              ) -> list[dict[str, Any]] | None:
    """The grants a request asks for (canned ACL, grant headers or an AccessControlPolicy body);
    None when it asks for none."""
    headers = [m for m in HEADERS if params.get(m)]
    body = params.get("AccessControlPolicy")
    if params.get("ACL") and (headers or body):
        raise ServiceError("InvalidRequest", "Specifying both Canned ACLs and Header Grants is not allowed", 400)
    if params.get("ACL"):
        name = params["ACL"]
        if name not in canned:
            raise errors.invalid_argument(f"The canned ACL {name} is not supported", "x-amz-acl", name)
        return private(owner) + [_group(uri, perm) for uri, perm in CANNED[name]]
    if headers:
        if body:
            raise ServiceError("UnexpectedContent", "This request does not support content", 400)
        grants = []
        for member in headers:
            for kind, value in _HEADER_GRANTEE.findall(params[member]):
                grants.append({"Grantee": _grantee(kind, value), "Permission": HEADERS[member]})
        if not grants:
            raise errors.invalid_argument("Invalid grant header", member, params[member])
        return grants
    if body is not None:
        return _from_body(body)
    return None


def _from_body(body: dict[str, Any]) -> list[dict[str, Any]]:
    if "Owner" not in body:
        raise errors.malformed_xml()
    grants = []
    for grant in body.get("Grants") or []:
        who, permission = grant.get("Grantee") or {}, grant.get("Permission")
        if permission not in PERMISSIONS:
            raise errors.malformed_xml()
        kinds = {"CanonicalUser": "id", "Group": "uri", "AmazonCustomerByEmail": "emailAddress"}
        kind = kinds.get(str(who.get("Type")))
        value = who.get({"id": "ID", "uri": "URI", "emailAddress": "EmailAddress"}.get(kind or "", ""), "")
        if kind is None or not value:
            raise errors.malformed_xml()
        grantee = _grantee(kind, value)
        if who.get("DisplayName"):
            grantee["DisplayName"] = who["DisplayName"]
        grants.append({"Grantee": grantee, "Permission": permission})
    return grants


def owner_only(grants: list[dict[str, Any]], owner: dict[str, str]) -> bool:
    """True when the grants give nothing beyond the owner's full control (what an ACL-disabled bucket accepts)."""
    return all(g["Grantee"].get("ID") == owner["ID"] and g["Permission"] == "FULL_CONTROL" for g in grants)


def ownership(configs: dict[str, Any]) -> str:
    rules = (configs.get("ownership") or {}).get("Rules") or []
    return (rules[0].get("ObjectOwnership") if rules else None) or "BucketOwnerEnforced"


def stored(text: str | None, owner: dict[str, str]) -> list[dict[str, Any]]:
    """A version's or bucket's grants as kept (JSON text; empty for the default, private)."""
    return json.loads(text) if text else private(owner)


def check_writable(grants: list[dict[str, Any]], owner: dict[str, str], configs: dict[str, Any]) -> None:
    """Refuse an ACL the bucket's Object Ownership or Block Public Access does not allow."""
    if ownership(configs) == "BucketOwnerEnforced" and not owner_only(grants, owner):
        raise ServiceError("AccessControlListNotSupported", "The bucket does not allow ACLs", 400)
    block = configs.get("public_access_block") or {}
    if block.get("BlockPublicAcls") and any(g["Grantee"].get("URI") in PUBLIC for g in grants):
        raise ServiceError("AccessDenied", "Access Denied", 403)
