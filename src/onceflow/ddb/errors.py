"""DynamoDB's error codes and exact messages. Modeled errors use DynamoDB's JSON namespace;
shape-level mistakes are the coral ValidationException (onceflow.errors.validation_error)."""

from __future__ import annotations

from typing import Any

from onceflow.errors import ServiceError, validation_error

NAMESPACE = "com.amazonaws.dynamodb.v20120810"
INVALID = "One or more parameter values were invalid: "
KEY_MISMATCH = "The provided key element does not match the schema"


def ddb_error(code: str, message: str, extra: dict[str, Any] | None = None) -> ServiceError:
    return ServiceError(code, message, 400, extra=extra, namespace=NAMESPACE)


def not_found(message: str = "Requested resource not found") -> ServiceError:
    return ddb_error("ResourceNotFoundException", message)


def table_not_found(name: str) -> ServiceError:
    return not_found(f"Requested resource not found: Table: {name} not found")


# ---------------------------------------------------------------- resource-based policies
NO_POLICY = "NO_POLICY"  # the ExpectedRevisionId that asks for no policy to be present yet
_POLICY_NOT_FOUND = "Resource-based policy not found for the provided ResourceArn: "


def resource_arn_not_found(arn: str) -> ServiceError:
    # UNCONFIRMED wording for an ARN that names no table (a table's own ARN answers table_not_found).
    return not_found(f"Requested resource not found: ResourceArn: {arn} not found")


def policy_not_found(arn: str) -> ServiceError:
    return ddb_error("PolicyNotFoundException", _POLICY_NOT_FOUND + arn)


def policy_revision_mismatch(table: str, expected: str, current: str | None) -> ServiceError:
    if current is None:
        # UNCONFIRMED wording: a revision expected of a table that has no policy.
        return ddb_error("PolicyNotFoundException", _POLICY_NOT_FOUND + f"Requested update for policy with "
                         f"revision id {expected}, but no policy is associated to target table {table}.")
    return ddb_error("PolicyNotFoundException", _POLICY_NOT_FOUND + f"Requested update for policy with revision id "
                     f"{expected}, but the policy associated to target table {table} has revision id {current}.")


def policy_exists(table: str, current: str) -> ServiceError:
    return ddb_error("PolicyNotFoundException", _POLICY_NOT_FOUND + "Requested policy update expecting none to be "
                     f"present for table {table}, but a policy exists with revision id {current}.")


def warm_below_on_demand(member: str, index: str | None) -> ServiceError:
    # UNCONFIRMED wording (as moto's tests quote it; not found in AWS's documentation).
    where = f"index {index}" if index else "table"
    return invalid(f"Requested {member} for WarmThroughput for {where} is lower than initial throughput for OnDemand")


def in_use(message: str) -> ServiceError:
    return ddb_error("ResourceInUseException", message)


CONDITIONAL_FAILED = "The conditional request failed"


def conditional_failed(item: dict[str, Any] | None) -> ServiceError:
    if item is None:
        return ddb_error("ConditionalCheckFailedException", CONDITIONAL_FAILED)
    # With the old item (ReturnValuesOnConditionCheckFailure=ALL_OLD) DynamoDB spells the member
    # "Message", not the modeled "message": SDKs then read the message but no `message` member.
    return ddb_error("ConditionalCheckFailedException", "", {"Message": CONDITIONAL_FAILED, "Item": item})


def transaction_canceled(reasons: list[dict[str, Any]]) -> ServiceError:
    codes = ", ".join(r["Code"] for r in reasons)
    message = f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]"
    return ServiceError("TransactionCanceledException", message, 400, namespace=NAMESPACE,
                        extra={"Message": message, "CancellationReasons": reasons})


def idempotent_mismatch() -> ServiceError:
    return ddb_error("IdempotentParameterMismatchException",
                     "The request uses the same client token as a previous, but non-identical request.")


def key_mismatch() -> ServiceError:
    return validation_error(KEY_MISMATCH)


def invalid(message: str) -> ServiceError:
    return validation_error(INVALID + message)


__all__ = ["INVALID", "KEY_MISMATCH", "NAMESPACE", "ddb_error", "validation_error"]
