"""SNS's errors (query protocol codes) with AWS's message texts."""

from __future__ import annotations

from onceflow.errors import ServiceError


def invalid(what: str) -> ServiceError:
    return ServiceError("InvalidParameter", f"Invalid parameter: {what}")


def invalid_value(message: str) -> ServiceError:
    return ServiceError("ParameterValueInvalid", message)


def not_found(message: str = "Topic does not exist") -> ServiceError:
    return ServiceError("NotFound", message, 404)


def batch_error(code: str, message: str) -> ServiceError:
    return ServiceError(code, message)


def resource_not_found(message: str) -> ServiceError:
    return ServiceError("ResourceNotFound", message, 404)


def user_error(message: str) -> ServiceError:
    return ServiceError("UserError", message)


def verification_failed(message: str, status: str) -> ServiceError:
    """VerificationException: the model names no other code for it, and gives it a Status member."""
    return ServiceError("VerificationException", message, extra={"Status": status})
