"""IAM's checks of a policy document, in the order IAM applies them: it reports only the first
stage that fails, each stage with its own message.

  1. grammar: elements, their JSON types, Effect (any case), condition operators ("Syntax errors in policy.")
  2. version: a managed policy must say "2012-10-17"
  3. the legacy parser: Effect in its exact case, date condition values, resource ARN shapes
  4. unique Sids, then actions present, then (by kind) principals and resources
  5. the first resource ARN error, naming the resource
  6. action vendors

The kinds: `identity` (inline policies, boundaries, session policies), `managed` (CreatePolicy,
CreatePolicyVersion: an identity policy that must be version 2012-10-17), `trust` (a role's
AssumeRolePolicyDocument) and `resource` (a resource-based policy such as an S3 bucket policy:
Principal and Resource both required). The stages and messages follow IAM's answers to documents sent to it
(CreatePolicy and CreateRole); a message marked UNCONFIRMED is a best guess at AWS's wording.
"""

from __future__ import annotations

import re
from typing import Any

from onceflow.iam.policy.conditions import is_known, split_operator

VERSIONS = ("2012-10-17", "2008-10-17")
TOP_KEYS = frozenset({"Version", "Id", "Statement"})
STATEMENT_KEYS = frozenset(
    {"Sid", "Effect", "Action", "NotAction", "Resource", "NotResource"} | {"Principal", "NotPrincipal", "Condition"}
)
PRINCIPAL_TYPES = ("AWS", "Service", "Federated", "CanonicalUser")
PARTITIONS = frozenset({"aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b", "aws-iso-e", "aws-iso-f", "aws-eusc"})
IAM_PATHS = (
    "user/", "federated-user/", "role/", "group/", "instance-profile/", "mfa/", "server-certificate/", "policy/",
    "sms-mfa/", "saml-provider/", "oidc-provider/", "report/", "access-report/",
)

SYNTAX = "Syntax errors in policy."
OLD_VERSION = "Policy document must be version 2012-10-17 or greater."
LEGACY = "The policy failed legacy parsing"
NO_ACTIONS = "Policy statement must contain actions."
NO_RESOURCES = "Policy statement must contain resources."
HAS_PRINCIPAL = "Policy document should not specify a principal."
NO_VENDOR = "Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc."
ONE_COLON = "Actions/Condition can contain only one colon."
SID_UNIQUE = "Statement IDs (SID) in a single policy must be unique."
SID_ALNUM = (
    "Statement IDs (SID) must be alpha-numeric. Check that your input satisfies the regular expression [0-9A-Za-z]*"
)
VENDOR_WILDCARD = "Resource vendor must be fully qualified and cannot contain regexes."
# AWS's words as recorded in 2026 (LocalStack's test_iam_policies snapshot, invalid-35): "root" is named too.
IAM_PATH = 'IAM resource path must either be "*", root, or start with ' + ", ".join(IAM_PATHS) + "."
TRUST_NO_PRINCIPAL = (
    "Invalid principal in policy: com.amazon.balsa.error.InvalidPolicyException: "
    "The passed in policy has a statement with no principals!"
)
TRUST_ACTIONS = "AssumeRole policy may only specify STS AssumeRole actions."

_SID = re.compile(r"[0-9A-Za-z]*")
_VENDOR = re.compile(r"[A-Za-z0-9_.*?-]+")
_ACCOUNT = re.compile(r"\d{12}")
_AWS_PRINCIPAL = re.compile(
    r"arn:aws[a-z-]*:(iam::(\d{12}|\*):(root|user/.+|role/.+|federated-user/.+)|sts::\d{12}:assumed-role/.+/.+)"
)
_SERVICE = re.compile(r"[a-z0-9][a-z0-9.-]*\.amazonaws\.com(\.cn)?|[a-z0-9-]+\.amazon\.com")
# A date condition value: an ISO 8601 date, optionally with a time and a zone, in IAM's range.
_DATE = re.compile(r"(-?\d+)(?:-(\d+))?(?:-(\d+))?(?:t(?:(\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?)?"
                   r"(z|[+-]\d{2}(?::?\d{2})?)?)?")
_LONG = 2**63


class MalformedPolicy(ValueError):
    """A document IAM would refuse; `message` is AWS's text for MalformedPolicyDocument."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# S3 resources that live in a region (access points, Batch Operations jobs, Storage Lens, Access
# Grants) name it in their ARN; only buckets and objects may not.
S3_REGIONAL = ("accesspoint/", "job/", "storage-lens/", "storage-lens-group/", "access-grants/", "async-request/")

def statements_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    raw = doc["Statement"]
    return [raw] if isinstance(raw, dict) else raw


def values(statement: dict[str, Any], name: str) -> list[Any]:
    """An element that is a string or a list, as a list (empty when absent)."""
    raw = statement.get(name)
    return [] if raw is None else [raw] if isinstance(raw, str) else raw


def check(doc: Any, kind: str) -> None:
    """Raise MalformedPolicy with IAM's message for the first stage `doc` fails."""
    _grammar(doc)
    statements = statements_of(doc)
    if kind == "managed" and doc.get("Version") != "2012-10-17":
        raise MalformedPolicy(OLD_VERSION)
    for s in statements:
        _legacy(s)
    sids = [s["Sid"] for s in statements if s.get("Sid")]
    if len(sids) != len(set(sids)):
        raise MalformedPolicy(SID_UNIQUE)
    if any(not _SID.fullmatch(sid) for sid in sids):
        raise MalformedPolicy(SID_ALNUM)
    if any(not (values(s, "Action") or values(s, "NotAction")) for s in statements):
        raise MalformedPolicy(NO_ACTIONS)
    if kind == "trust":
        _trust(statements)
        return
    if kind == "resource":  # a resource-based policy (an S3 bucket policy) names its principals
        if any("Principal" not in s and "NotPrincipal" not in s for s in statements):
            raise MalformedPolicy(TRUST_NO_PRINCIPAL)
    elif any("Principal" in s or "NotPrincipal" in s for s in statements):
        raise MalformedPolicy(HAS_PRINCIPAL)
    if any(not (values(s, "Resource") or values(s, "NotResource")) for s in statements):
        raise MalformedPolicy(NO_RESOURCES)
    for s in statements:
        for resource in values(s, "Resource") or values(s, "NotResource"):
            if (message := resource_error(resource)) is not None:
                raise MalformedPolicy(message)
    for s in statements:
        for action in values(s, "Action") or values(s, "NotAction"):
            _action(action)


# ---------------------------------------------------------------------- 1. grammar
def _grammar(doc: Any) -> None:
    if not isinstance(doc, dict) or not set(doc) <= TOP_KEYS or "Statement" not in doc:
        raise MalformedPolicy(SYNTAX)
    if doc.get("Version", VERSIONS[0]) not in VERSIONS or not isinstance(doc.get("Id", ""), str):
        raise MalformedPolicy(SYNTAX)
    raw = doc["Statement"]
    if not isinstance(raw, (dict, list)) or not raw:
        raise MalformedPolicy(SYNTAX)
    for s in statements_of(doc):
        if not _statement_grammar(s):
            raise MalformedPolicy(SYNTAX)


def _statement_grammar(s: Any) -> bool:
    if not isinstance(s, dict) or not set(s) <= STATEMENT_KEYS:
        return False
    effect = s.get("Effect")
    if not isinstance(effect, str) or effect.lower() not in ("allow", "deny"):
        return False
    if not isinstance(s.get("Sid", ""), str):
        return False
    for name, twin in (("Action", "NotAction"), ("Resource", "NotResource"), ("Principal", "NotPrincipal")):
        if name in s and twin in s:
            return False
    for name in ("Action", "NotAction", "Resource", "NotResource"):
        if name in s and not _strings(s[name]):
            return False
    for name in ("Principal", "NotPrincipal"):
        if name in s and not _principal_grammar(s[name]):
            return False
    return "Condition" not in s or _condition_grammar(s["Condition"])


def _strings(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _principal_grammar(value: Any) -> bool:
    if value == "*":
        return True
    return (
        isinstance(value, dict)
        and bool(value)
        and set(value) <= set(PRINCIPAL_TYPES)
        and all(_strings(v) for v in value.values())
    )


def _condition_grammar(condition: Any) -> bool:
    if not isinstance(condition, dict):
        return False
    for operator, block in condition.items():
        if not isinstance(block, dict):
            return False
        if block and not is_known(operator):  # IAM lets an unknown operator through only with no keys
            return False
        for value in block.values():
            items = value if isinstance(value, list) else [value]
            if not all(isinstance(v, (str, int, float, bool)) for v in items):
                return False
    return True


# ---------------------------------------------------------------------- 3. the legacy parser
def _legacy(s: dict[str, Any]) -> None:
    if s["Effect"] not in ("Allow", "Deny"):
        raise MalformedPolicy(LEGACY)
    for operator, block in (s.get("Condition") or {}).items():
        if block and split_operator(operator)[1].startswith("Date"):
            for value in block.values():
                if not all(is_date(str(v)) for v in (value if isinstance(value, list) else [value])):
                    raise MalformedPolicy(LEGACY)
    for resource in values(s, "Resource") + values(s, "NotResource"):
        parts = resource.split(":")
        # Only ARNs of a known partition reach the legacy parser (others fail later, by name).
        if parts[0] == "arn" and len(parts) > 1 and parts[1] in PARTITIONS:
            if ("::" in resource and len(parts) < 6) or (len(parts) > 2 and not parts[2]):
                raise MalformedPolicy(LEGACY)


def is_date(text: str) -> bool:
    """A date condition value IAM accepts: epoch seconds (a Java long) or an ISO 8601 date-time."""
    if re.fullmatch(r"-?\d+", text):
        return -_LONG <= int(text) < _LONG
    m = _DATE.fullmatch(text.lower())
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) if g else None for g in m.groups()[:6])
    return (
        -292275054 <= (year or 0) <= 292278993
        and (month is None or 1 <= month <= 12)
        and (day is None or 1 <= day <= 31)
        and (hour is None or hour <= 23)
        and (minute is None or minute <= 59)
        and (second is None or second <= 59)
    )


# ---------------------------------------------------------------------- 4-6. content
def resource_error(resource: str) -> str | None:
    """IAM's message for a Resource that is not a usable ARN, or None."""
    if resource == "*":
        return None
    parts = resource.split(":")
    if len(parts) < 2:
        return f'Resource {resource} must be in ARN format or "*".'
    if parts[1] not in PARTITIONS:
        # IAM names the resource as it read it: "arn" first, padded to six parts with "*".
        shown = ":".join(["arn", *parts[1:]] + ["*"] * (6 - len(parts)))
        return f'Partition "{parts[1]}" is not valid for resource "{shown}".'
    if len(parts) < 3 or not parts[2] or "*" in parts[2] or "?" in parts[2]:
        return VENDOR_WILDCARD
    vendor, region = parts[2], parts[3] if len(parts) > 3 else ""
    if region and vendor == "iam":
        return f"IAM resource {resource} cannot contain region information."
    if region and vendor == "s3" and not ":".join(parts[5:]).startswith(S3_REGIONAL):
        return f"Resource {resource} can not contain region information."
    if vendor == "iam" and len(parts) > 5:
        path = ":".join(parts[5:])
        if path != "*" and path != "root" and not path.startswith(IAM_PATHS):
            return IAM_PATH
    return None


def _action(action: str) -> None:
    if action == "*":
        return
    vendor, colon, rest = action.partition(":")
    if not colon:
        raise MalformedPolicy(NO_VENDOR)
    if ":" in rest:
        raise MalformedPolicy(ONE_COLON)
    if not _VENDOR.fullmatch(vendor):
        raise MalformedPolicy(f"Vendor {vendor} is not valid")


def _trust(statements: list[dict[str, Any]]) -> None:
    for s in statements:
        for name in ("Resource", "NotResource"):
            if name in s:
                raise MalformedPolicy(f"Has prohibited field {name}")
        if "Principal" not in s and "NotPrincipal" not in s:
            raise MalformedPolicy(TRUST_NO_PRINCIPAL)
    for s in statements:
        for action in values(s, "Action") or values(s, "NotAction"):
            _action(action)
            if action != "*" and not action.lower().startswith("sts:"):
                raise MalformedPolicy(TRUST_ACTIONS)
        for name in ("Principal", "NotPrincipal"):
            principal = s.get(name)
            if isinstance(principal, dict):
                for ptype, ids in principal.items():
                    for ident in [ids] if isinstance(ids, str) else ids:
                        if not _valid_principal(ptype, ident):
                            raise MalformedPolicy(f'Invalid principal in policy: "{ptype.upper()}":"{ident}"')


def _valid_principal(ptype: str, ident: str) -> bool:
    if ptype == "AWS":
        if ident == "*" or _ACCOUNT.fullmatch(ident):
            return True
        # `.` stops at a newline, where `assumed-role/.+/.+` would retry every `/`: quadratic.
        return "\n" not in ident and bool(_AWS_PRINCIPAL.fullmatch(ident))
    if ptype == "Service":
        return ident == "*" or bool(_SERVICE.fullmatch(ident))
    return bool(ident)
