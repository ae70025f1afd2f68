"""What IAM offers the other services (onceflow/ports.py hands it to them): the role checks a
service makes itself, when it accepts a role or acts as one. IamService implements it."""

from __future__ import annotations

from typing import Any, Protocol


class RoleChecks(Protocol):
    def get_role_by_arn(self, account: str, role_arn: str) -> dict[str, Any] | None: ...

    def role_trusts(self, account: str, role_arn: str, principal: tuple[str, str],
                    context: dict[str, str] | None = None) -> bool: ...

    def role_allows(self, account: str, role_arn: str, action: str, resource: str) -> bool: ...
