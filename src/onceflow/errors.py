"""Every AWS error is data: a ServiceError carries the code, message and status; wire/ renders it."""

from __future__ import annotations

from typing import Any


class _JsonNull:
    """An error member sent as an explicit JSON null (an `extra` value of None leaves the member out)."""

    def __repr__(self) -> str:
        return "JSON_NULL"


JSON_NULL = _JsonNull()


class ServiceError(Exception):
    """An error AWS would return. `extra` holds modeled error members (e.g. DynamoDB's `Item`)."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        *,
        sender_fault: bool = True,
        extra: dict[str, Any] | None = None,
        namespace: str | None = None,
        query_code: str | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.sender_fault = sender_fault
        self.extra = extra or {}
        # JSON protocols put a namespace before '#' in __type; None lets the wire layer pick the default.
        self.namespace = namespace
        # A JSON service that was a query one (SQS) still names its errors the old way too: the
        # query protocol's code, also sent in JSON answers' `x-amzn-query-error` header.
        self.query_code = query_code


def validation_error(message: str) -> ServiceError:
    """The coral ValidationException most JSON services use for shape-level mistakes."""
    return ServiceError("ValidationException", message, 400, namespace="com.amazon.coral.validate")


class NotImplementedOperation(ServiceError):
    def __init__(self, service: str, operation: str) -> None:
        super().__init__(
            "NotImplementedException" if service != "iam" and service != "sts" else "NotImplemented",
            f"onceflow does not implement the {service} operation {operation} yet",
            501,
            sender_fault=False,
        )
