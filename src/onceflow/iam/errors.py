"""IAM and STS errors with AWS's codes, statuses and messages (query protocol, <Type>Sender</Type>)."""

from __future__ import annotations

from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.iam.policy import Decision


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


def invalid_marker() -> ServiceError:
    return validation_error("Invalid Marker.")


def invalid_arn(arn: str) -> ServiceError:
    return invalid_input(f"ARN {arn} is not valid.")


def access_denied(code: str, status: int, message: str) -> ServiceError:
    return ServiceError(code, message, status)


def unmodifiable_role(name: str) -> ServiceError:
    return ServiceError("UnmodifiableEntity", f"Cannot perform the operation on the protected role '{name}' - this "
                        "role is only modifiable by AWS", 400)


# ---------------------------------------------------------------- authorization (authorizer.py)
# (error code, HTTP status) of each service's access denial.
DENIALS = {
    "dynamodb": ("AccessDeniedException", 400),
    "stepfunctions": ("AccessDeniedException", 400),
    "logs": ("AccessDeniedException", 400),
    "lambda": ("AccessDeniedException", 403),
    "iam": ("AccessDenied", 403),
    "sts": ("AccessDenied", 403),
    "s3": ("AccessDenied", 403),
}



def denial_message(
    principal: Principal, action: str, resource: str, decision: Decision, kind: str = "identity-based policy"
) -> str:
    article = "an" if kind[0] in "aeiou" else "a"
    reason = (
        f"with an explicit deny in {article} {kind}"
        if decision is Decision.EXPLICIT_DENY
        else f"because no {kind} allows the {action} action"
    )
    return f"User: {principal.arn} is not authorized to perform: {action} on resource: {resource} {reason}"


def access_denied_in(service: str, message: str) -> ServiceError:
    """An authorization's refusal, in the words of the service called."""
    code, status = DENIALS.get(service, ("AccessDeniedException", 400))
    return ServiceError(code, message, status)
