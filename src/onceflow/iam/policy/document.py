"""Policy documents: parse and validate once, giving an immutable Policy the evaluator walks.

Validation follows IAM's MalformedPolicyDocument messages. The kind decides the rules:
`identity` (role, user and managed policies: no Principal, Resource required), `trust` (a role's
AssumeRolePolicyDocument: Principal required, no Resource, only sts actions) and `resource` (an S3
bucket policy: Principal and Resource required). Messages marked
UNCONFIRMED in docs are best guesses at AWS's wording.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

VERSIONS = ("2012-10-17", "2008-10-17")
TOP_KEYS = frozenset({"Version", "Id", "Statement"})
STATEMENT_KEYS = frozenset(
    {"Sid", "Effect", "Action", "NotAction", "Resource", "NotResource"} | {"Principal", "NotPrincipal", "Condition"}
)
PRINCIPAL_TYPES = ("AWS", "Service", "Federated", "CanonicalUser")

INVALID_JSON = "This policy contains invalid Json"
SYNTAX = "Syntax errors in policy."
LEGACY = "The policy failed legacy parsing"  # an unknown Version (UNCONFIRMED wording for this case)
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
TRUST_NO_PRINCIPAL = (
    "Invalid principal in policy: com.amazon.balsa.error.InvalidPolicyException: "
    "The passed in policy has a statement with no principals!"
)
TRUST_RESOURCE = "Has prohibited field Resource"
TRUST_ACTIONS = "AssumeRole policy may only specify STS AssumeRole actions."

_SID = re.compile(r"[0-9A-Za-z]*")
_ACCOUNT = re.compile(r"\d{12}")
_AWS_PRINCIPAL = re.compile(
    r"arn:aws[a-z-]*:(iam::(\d{12}|\*):(root|user/.+|role/.+|federated-user/.+)|sts::\d{12}:assumed-role/.+/.+)"
)
_SERVICE = re.compile(r"[a-z0-9][a-z0-9.-]*\.amazonaws\.com(\.cn)?|[a-z0-9-]+\.amazon\.com")


class MalformedPolicy(ValueError):
    """A document IAM would refuse; `message` is AWS's text for MalformedPolicyDocument."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ConditionClause:
    operator: str  # as written, e.g. "ForAnyValue:StringLikeIfExists"
    key: str  # condition keys are case-insensitive: kept as written, compared lowered
    values: tuple[str, ...]


@dataclass(frozen=True)
class Statement:
    effect: str  # "Allow" | "Deny"
    sid: str | None = None
    actions: tuple[str, ...] | None = None
    not_actions: tuple[str, ...] | None = None
    resources: tuple[str, ...] | None = None
    not_resources: tuple[str, ...] | None = None
    principals: dict[str, tuple[str, ...]] | None = None  # {"*": ("*",)} for Principal "*"
    not_principals: dict[str, tuple[str, ...]] | None = None
    conditions: tuple[ConditionClause, ...] = ()


@dataclass(frozen=True)
class Policy:
    version: str
    statements: tuple[Statement, ...]

    @property
    def supports_variables(self) -> bool:
        return self.version == "2012-10-17"


@lru_cache(maxsize=2048)
def parse(text: str, kind: str = "identity") -> Policy:
    """Parse and validate `text`; raises MalformedPolicy with IAM's message. Cached by text."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise MalformedPolicy(INVALID_JSON) from None
    return from_json(doc, kind)


def from_json(doc: Any, kind: str = "identity") -> Policy:
    if not isinstance(doc, dict) or not set(doc) <= TOP_KEYS:
        raise MalformedPolicy(SYNTAX)
    version = doc.get("Version", "2008-10-17")
    if version not in VERSIONS:
        raise MalformedPolicy(LEGACY)
    raw = doc.get("Statement")
    items = [raw] if isinstance(raw, dict) else raw
    if not isinstance(items, list) or not items:
        raise MalformedPolicy(SYNTAX)
    statements = tuple(_statement(s, kind) for s in items)
    sids = [s.sid for s in statements if s.sid]
    if len(sids) != len(set(sids)):
        raise MalformedPolicy(SID_UNIQUE)
    return Policy(version, statements)


def _statement(raw: Any, kind: str) -> Statement:
    if not isinstance(raw, dict) or not set(raw) <= STATEMENT_KEYS:
        raise MalformedPolicy(SYNTAX)
    effect = raw.get("Effect")
    if effect not in ("Allow", "Deny"):
        raise MalformedPolicy(SYNTAX)
    sid = raw.get("Sid")
    if sid is not None and (not isinstance(sid, str) or not _SID.fullmatch(sid)):
        raise MalformedPolicy(SID_ALNUM if isinstance(sid, str) else SYNTAX)
    actions, not_actions = _pair(raw, "Action", "NotAction", NO_ACTIONS)
    for action in actions or not_actions or ():
        _check_action(action, kind)
    resources = not_resources = None
    if kind == "trust":
        if "Resource" in raw or "NotResource" in raw:
            raise MalformedPolicy(TRUST_RESOURCE if "Resource" in raw else "Has prohibited field NotResource")
        if "Principal" not in raw and "NotPrincipal" not in raw:
            raise MalformedPolicy(TRUST_NO_PRINCIPAL)
    else:
        if kind == "resource" and "Principal" not in raw and "NotPrincipal" not in raw:
            raise MalformedPolicy(TRUST_NO_PRINCIPAL)
        if kind != "resource" and ("Principal" in raw or "NotPrincipal" in raw):
            raise MalformedPolicy(HAS_PRINCIPAL)
        resources, not_resources = _pair(raw, "Resource", "NotResource", NO_RESOURCES)
        for resource in resources or not_resources or ():
            _check_resource(resource)
    return Statement(
        effect=effect,
        sid=sid or None,
        actions=actions,
        not_actions=not_actions,
        resources=resources,
        not_resources=not_resources,
        principals=_principal(raw["Principal"]) if "Principal" in raw else None,
        not_principals=_principal(raw["NotPrincipal"]) if "NotPrincipal" in raw else None,
        conditions=_conditions(raw.get("Condition")),
    )


def _pair(raw: dict[str, Any], name: str, not_name: str, missing: str) -> tuple[Any, Any]:
    """An element and its Not- twin: exactly one must be present, as a string or a list of strings."""
    if name in raw and not_name in raw:
        raise MalformedPolicy(SYNTAX)
    if name not in raw and not_name not in raw:
        raise MalformedPolicy(missing)
    key = name if name in raw else not_name
    values = _strings(raw[key])
    if not values:
        raise MalformedPolicy(missing)
    return (values, None) if key == name else (None, values)


def _strings(value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        raise MalformedPolicy(SYNTAX)
    return tuple(items)


def _check_action(action: str, kind: str) -> None:
    if action == "*":
        return
    colons = action.count(":")
    if colons == 0:
        raise MalformedPolicy(NO_VENDOR)
    if colons > 1:
        raise MalformedPolicy(ONE_COLON)
    if kind == "trust" and not action.lower().startswith("sts:"):
        raise MalformedPolicy(TRUST_ACTIONS)


def _check_resource(resource: str) -> None:
    if resource == "*":
        return
    parts = resource.split(":", 5)
    if parts[0] != "arn" or len(parts) < 6:
        raise MalformedPolicy(f'Resource {resource} must be in ARN format or "*".')
    if "*" in parts[2] or "?" in parts[2] or not parts[2]:
        raise MalformedPolicy(VENDOR_WILDCARD)


def _principal(value: Any) -> dict[str, tuple[str, ...]]:
    if value == "*":
        return {"*": ("*",)}
    if not isinstance(value, dict) or not value or not set(value) <= set(PRINCIPAL_TYPES):
        raise MalformedPolicy(SYNTAX)
    out = {}
    for ptype, raw in value.items():
        ids = _strings(raw)
        for ident in ids:
            if not _valid_principal(ptype, ident):
                raise MalformedPolicy(f'Invalid principal in policy: "{ptype.upper()}":"{ident}"')
        out[ptype] = ids
    return out


def _valid_principal(ptype: str, ident: str) -> bool:
    if ptype == "AWS":
        if ident == "*" or _ACCOUNT.fullmatch(ident):
            return True
        # `.` stops at a newline, where `assumed-role/.+/.+` would retry every `/`: quadratic.
        return "\n" not in ident and bool(_AWS_PRINCIPAL.fullmatch(ident))
    if ptype == "Service":
        return ident == "*" or bool(_SERVICE.fullmatch(ident))
    return bool(ident)


def _conditions(raw: Any) -> tuple[ConditionClause, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise MalformedPolicy(SYNTAX)
    clauses = []
    for operator, block in raw.items():
        if not isinstance(block, dict) or not block:
            raise MalformedPolicy(SYNTAX)
        for key, values in block.items():
            items = values if isinstance(values, list) else [values]
            if not all(isinstance(v, (str, int, float, bool)) for v in items):
                raise MalformedPolicy(SYNTAX)
            clauses.append(ConditionClause(operator, key, tuple(_scalar(v) for v in items)))
    return tuple(clauses)


def _scalar(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
