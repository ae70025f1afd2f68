"""EventBridge Scheduler errors. Status codes come from the botocore model (ValidationException
400, ResourceNotFoundException 404, ConflictException 409); texts not confirmed against AWS say so."""

from __future__ import annotations

from onceflow.errors import ServiceError


def validation(message: str) -> ServiceError:
    return ServiceError("ValidationException", message, 400)


def schedule_not_found(name: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Schedule {name} does not exist.", 404)


def group_not_found(name: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Schedule group {name} does not exist.", 404)


def schedule_exists(name: str) -> ServiceError:
    return ServiceError("ConflictException", f"Schedule {name} already exists.", 409)


def group_exists(name: str) -> ServiceError:
    return ServiceError("ConflictException", f"Schedule group {name} already exists.", 409)


def bad_expression(expression: str) -> ServiceError:
    return validation(f"Invalid Schedule Expression {expression}.")  # UNCONFIRMED wording


def bad_timezone(tz: str) -> ServiceError:
    return validation(f"Invalid ScheduleExpressionTimezone {tz}.")  # UNCONFIRMED wording


def window_needs_maximum() -> ServiceError:
    # UNCONFIRMED wording: FLEXIBLE needs MaximumWindowInMinutes, OFF must not have it.
    return validation("MaximumWindowInMinutes is required when FlexibleTimeWindow Mode is FLEXIBLE.")


def window_off_with_maximum() -> ServiceError:
    return validation("MaximumWindowInMinutes must not be provided when FlexibleTimeWindow Mode is OFF.")  # UNCONFIRMED


def default_group() -> ServiceError:
    return validation("Cannot delete the default schedule group.")  # UNCONFIRMED wording


def bad_target_arn(arn: str) -> ServiceError:
    return validation(f"Invalid target ARN {arn}.")  # UNCONFIRMED wording


def end_before_start() -> ServiceError:
    return validation("The EndDate must be after the StartDate.")  # UNCONFIRMED wording


def resource_not_found(arn: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Resource {arn} does not exist.", 404)  # UNCONFIRMED
