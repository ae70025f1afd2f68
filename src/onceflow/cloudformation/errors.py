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
