"""What STS needs from IAM, as typed ports (and, last, SessionIssuer: what it offers the other
services). IAM's setup publishes the objects that implement these
(iam/__init__.py); STS keeps its own sessions (sts/store.py). STS imports none of IAM's classes,
only its pure policy core and its shared helpers (iam/common.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from onceflow.context import Principal
    from onceflow.iam.policy import Policy

Row = dict[str, Any]


class Directory(Protocol):
    """IAM's store as STS reads it: roles, users, access keys, providers."""

    generation: int  # bumped by every IAM write: what was read from the store before is stale

    def role_by_arn(self, arn: str) -> Row | None: ...

    def user(self, account: str, name: str) -> Row | None: ...

    def access_key(self, key_id: str) -> Row | None: ...

    def obj(self, account: str, kind: str, key: str) -> Row | None: ...


class Roles(Protocol):
    """IAM's rules STS applies: trust policies and managed policies."""

    def role_trusts(self, account: str, role_arn: str, principal: tuple[str, str],
                    context: dict[str, str] | None = None, action: str = "sts:AssumeRole") -> bool: ...

    def policy(self, account: str, arn: str) -> Row: ...

    def default_document(self, account: str, arn: str) -> str | None: ...


class Providers(Protocol):
    """IAM's OpenID Connect providers, by the issuer a token names."""

    def oidc_by_issuer(self, account: str, iss: str, partition: str = "aws") -> Row | None: ...


class SessionIssuer(Protocol):
    """What STS offers the other services (onceflow/ports.py hands it to them): a session of a role
    without a trust check, for AWS services acting as it (Lambda for a function's role), and the
    session rules IAM's authorizer applies. StsService implements it."""

    def issue_role_session(self, account: str, role_arn: str, session_name: str, duration_s: int = ...,
                           policy: str | None = None, policy_arns: list[str] | None = None) -> Row: ...

    def role_is_current(self, principal: Principal) -> bool: ...

    def session_policies(self, principal: Principal) -> list[Policy] | None: ...

    def session_tags(self, principal: Principal) -> dict[str, dict[str, str]]: ...

    def unique_id(self, principal: Principal) -> str: ...
