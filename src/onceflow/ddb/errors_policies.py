"""The messages of resource-based policies on tables and streams (PutResourcePolicy,
GetResourcePolicy, DeleteResourcePolicy: ddb/policies.py). Split from errors.py by concept; the same
rules: AWS's wording, raised by name."""

from __future__ import annotations

from onceflow.ddb.errors import ddb_error, not_found
from onceflow.errors import ServiceError, validation_error

NO_POLICY = "NO_POLICY"  # the ExpectedRevisionId that asks for no policy to be present yet
_POLICY_NOT_FOUND = "Resource-based policy not found for the provided ResourceArn: "


def resource_arn_not_found(arn: str) -> ServiceError:
    # UNCONFIRMED wording for an ARN that names no table (a table's own ARN answers table_not_found).
    return not_found(f"Requested resource not found: ResourceArn: {arn} not found")


def policy_too_large(most: int) -> ServiceError:
    # UNCONFIRMED wording.
    return validation_error(f"Resource-based policy document exceeds the maximum size of {most} bytes")


def policy_malformed(detail: str) -> ServiceError:
    # UNCONFIRMED wording: DynamoDB refuses a document IAM would refuse.
    return validation_error(f"Invalid policy document: {detail}")


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
