"""Policy evaluation for one request: explicit deny > allow > implicit deny. Pure: no I/O.

Identity policies are evaluated against (action, resource, context). Trust policies are evaluated
against the principal asking to assume the role (Principal/NotPrincipal) as well.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from onceflow.iam.policy import conditions
from onceflow.iam.policy.document import Policy, Statement
from onceflow.iam.policy.matching import PolicyPattern, action_matches, arn_matches


class Decision(Enum):
    ALLOW = "allow"
    EXPLICIT_DENY = "explicit-deny"
    IMPLICIT_DENY = "implicit-deny"

    @property
    def allowed(self) -> bool:
        return self is Decision.ALLOW


@dataclass(frozen=True)
class Request:
    action: str  # "lambda:InvokeFunction"
    resource: str = "*"  # an ARN, or "*" for actions that take no resource
    context: Mapping[str, list[str]] = field(default_factory=dict)  # lower-cased keys
    # For trust policies: ("Service", "states.amazonaws.com") or ("AWS", "<principal arn>").
    principal: tuple[str, str] | None = None


_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_LITERALS = {"*": "*", "?": "?", "$": "$"}
_REGIONAL_SERVICE = re.compile(r"([a-z0-9-]+)\.[a-z]{2}(-[a-z]+)+-\d\.amazonaws\.com")


def substituter(policy: Policy, context: Mapping[str, list[str]]) -> conditions.Substitute:
    """Resolve ${key} (and ${key, 'default'}) from single-valued context keys; 2012-10-17 only.
    The `*` and `?` that ${*} and ${?} put in are literal: the result is then a PolicyPattern."""

    def substitute(text: str) -> str | None:
        if not policy.supports_variables or "${" not in text:
            return text
        out: list[str] = []
        literal: list[int] = []
        length = pos = 0
        for m in _VARIABLE.finditer(text):
            out.append(text[pos : m.start()])
            length += m.start() - pos
            pos = m.end()
            name, _, default = m.group(1).partition(",")
            name = name.strip()
            value: str | None = None
            if name in _LITERALS:
                value = _LITERALS[name]
                if value != "$":
                    literal.append(length)
            else:
                values = context.get(name.lower())
                default = default.strip()
                if values and len(values) == 1:
                    value = values[0]
                elif len(default) >= 2 and default[0] == default[-1] == "'":
                    value = default[1:-1]
            if value is None:
                return None
            out.append(value)
            length += len(value)
        out.append(text[pos:])
        result = "".join(out)
        return PolicyPattern(result, frozenset(literal)) if literal else result

    return substitute


def _resource_matches(stmt: Statement, resource: str, substitute: conditions.Substitute) -> bool:
    if stmt.resources is None and stmt.not_resources is None:
        return True  # trust policies name no resource
    patterns = stmt.resources if stmt.resources is not None else stmt.not_resources
    hit = any(p is not None and arn_matches(p, resource) for p in map(substitute, patterns or ()))
    return hit if stmt.resources is not None else not hit


def _action_matches(stmt: Statement, action: str) -> bool:
    if stmt.actions is not None:
        return any(action_matches(p, action) for p in stmt.actions)
    return not any(action_matches(p, action) for p in stmt.not_actions or ())


def _normalise_service(name: str) -> str:
    m = _REGIONAL_SERVICE.fullmatch(name.lower())
    return f"{m.group(1)}.amazonaws.com" if m else name.lower()


def principal_matches(principals: Mapping[str, tuple[str, ...]], who: tuple[str, str]) -> bool:
    """Whether a Principal element names `who` (an account id or :root names every principal in it)."""
    if "*" in principals:
        return True
    ptype, ident = who
    names = principals.get(ptype, ())
    if ptype == "Service":
        return "*" in names or _normalise_service(ident) in {_normalise_service(n) for n in names}
    if ptype != "AWS":
        return ident in names
    account = ident.split(":")[4] if ident.count(":") >= 5 else ident
    root = f":iam::{account}:root"
    for name in names:
        # The account's root in any partition (arn:aws-cn:iam::<account>:root too) names all of it.
        if name in ("*", ident, account) or (name.endswith(root) and name.count(":") == 5):
            return True
    return False


def _principal_applies(stmt: Statement, request: Request) -> bool:
    if request.principal is None or (stmt.principals is None and stmt.not_principals is None):
        return True
    if stmt.principals is not None:
        return principal_matches(stmt.principals, request.principal)
    return not principal_matches(stmt.not_principals or {}, request.principal)


def statement_applies(stmt: Statement, request: Request, substitute: conditions.Substitute) -> bool:
    if not _action_matches(stmt, request.action):
        return False
    if not _resource_matches(stmt, request.resource, substitute):
        return False
    if not _principal_applies(stmt, request):
        return False
    # All clauses must hold; an unknown operator (None) makes the statement not apply.
    return all(conditions.evaluate(c, request.context, substitute) is True for c in stmt.conditions)


def evaluate(policies: Iterable[Policy], request: Request) -> Decision:
    """Explicit deny in any policy wins; otherwise any applicable Allow; otherwise implicit deny."""
    allowed = False
    for policy in policies:
        substitute = substituter(policy, request.context)
        for stmt in policy.statements:
            if not statement_applies(stmt, request, substitute):
                continue
            if stmt.effect == "Deny":
                return Decision.EXPLICIT_DENY
            allowed = True
    return Decision.ALLOW if allowed else Decision.IMPLICIT_DENY
