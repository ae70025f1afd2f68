"""IAM and STS errors with AWS's codes, statuses and messages (query protocol, <Type>Sender</Type>)."""

from __future__ import annotations

from onceflow.errors import ServiceError


def no_such_entity(message: str) -> ServiceError:
    return ServiceError("NoSuchEntity", message, 404)


def role_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The role with name {name} cannot be found.")


def user_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The user with name {name} cannot be found.")


def group_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The group with name {name} cannot be found.")


def group_policy_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The group policy with name {name} cannot be found.")


def role_policy_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The role policy with name {name} cannot be found.")


def user_policy_not_found(name: str) -> ServiceError:
    return no_such_entity(f"The user policy with name {name} cannot be found.")


def policy_not_found(arn: str) -> ServiceError:
    return no_such_entity(f"Policy {arn} was not found.")


def policy_not_attachable(arn: str) -> ServiceError:
    return no_such_entity(f"Policy {arn} does not exist or is not attachable.")


def policy_version_not_found(arn: str, version: str) -> ServiceError:
    # UNCONFIRMED wording.
    return no_such_entity(f"Policy {arn} version {version} does not exist or is not attachable.")


def access_key_not_found(key_id: str) -> ServiceError:
    return no_such_entity(f"The Access Key with id {key_id} cannot be found.")


def already_exists(message: str) -> ServiceError:
    return ServiceError("EntityAlreadyExists", message, 409)


def delete_conflict(message: str) -> ServiceError:
    return ServiceError("DeleteConflict", message, 409)


def malformed_policy(message: str) -> ServiceError:
    return ServiceError("MalformedPolicyDocument", message, 400)


def limit_exceeded(message: str) -> ServiceError:
    return ServiceError("LimitExceeded", message, 409)


def invalid_input(message: str) -> ServiceError:
    return ServiceError("InvalidInput", message, 400)


def validation_error(message: str) -> ServiceError:
    return ServiceError("ValidationError", message, 400)


def invalid_arn(arn: str) -> ServiceError:
    return invalid_input(f"ARN {arn} is not valid.")


def access_denied(code: str, status: int, message: str) -> ServiceError:
    return ServiceError(code, message, status)
