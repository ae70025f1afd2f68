"""CloudFormation's errors, with AWS's codes and messages (query protocol, Sender faults)."""

from __future__ import annotations

from onceflow.errors import ServiceError


def validation(message: str) -> ServiceError:
    return ServiceError("ValidationError", message, 400)


def no_stack(name: str) -> ServiceError:
    return validation(f"Stack with id {name} does not exist")


def already_exists(name: str) -> ServiceError:
    return ServiceError("AlreadyExistsException", f"Stack [{name}] already exists", 400)


def change_set_not_found(name: str) -> ServiceError:
    return ServiceError("ChangeSetNotFound", f"ChangeSet [{name}] does not exist", 404)


def insufficient_capabilities(capability: str) -> ServiceError:
    return ServiceError("InsufficientCapabilitiesException", f"Requires capabilities : [{capability}]", 400)


def invalid_change_set_status(message: str) -> ServiceError:
    return ServiceError("InvalidChangeSetStatus", message, 400)


def handler_code(exc: ServiceError) -> str:
    """The HandlerErrorCode a resource's failure reason names, from the service's error code."""
    if "AlreadyExists" in exc.code or "InUse" in exc.code or "Exists" in exc.code:
        return "AlreadyExists"
    if "NotFound" in exc.code or "NoSuch" in exc.code:
        return "NotFound"
    if "AccessDenied" in exc.code:
        return "AccessDenied"
    return "InvalidRequest"


def handler_reason(exc: ServiceError) -> str:
    """A resource's failure reason as CloudFormation words it."""
    return f'Resource handler returned message: "{exc.message}" (HandlerErrorCode: {handler_code(exc)})'


def nested_rollback(stack_id: str, root_id: str | None) -> ServiceError:
    return validation(f"RollbackStack or ContinueUpdateRollback cannot be called on nested stack {stack_id}. "
                      f"Call it on the root stack {root_id}.")
