"""EventBridge errors with AWS's messages (all HTTP 400).

Sources: AWS error texts quoted in public issues and SDK tests (moto's and other emulators' tests
recorded against AWS), and the botocore model. Texts not confirmed that way say UNCONFIRMED.
"""

from __future__ import annotations

from onceflow.errors import ServiceError


def validation(message: str) -> ServiceError:
    return ServiceError("ValidationException", message, 400)


def bus_not_found(name: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Event bus {name} does not exist.", 400)


def event_source_not_found(name: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Event source {name} does not exist.", 400)


def rule_not_found(name: str, bus: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Rule {name} does not exist on EventBus {bus}.", 400)


def bus_exists(name: str) -> ServiceError:
    return ServiceError("ResourceAlreadyExistsException", f"Event bus {name} already exists.", 400)


def invalid_pattern(reason: str) -> ServiceError:
    return ServiceError("InvalidEventPatternException", f"Event pattern is not valid. Reason: {reason}", 400)


def no_pattern_or_schedule() -> ServiceError:
    return validation("Parameter(s) EventPattern or ScheduleExpression must be specified.")


def schedule_not_on_default() -> ServiceError:
    return validation("ScheduleExpression is supported only on the default event bus.")


def bad_schedule() -> ServiceError:
    return validation("Parameter ScheduleExpression is not valid.")


def rule_has_targets() -> ServiceError:
    return validation("Rule can't be deleted since it has targets.")


def managed_rule(name: str) -> ServiceError:
    """A rule a service made (an archive's): AWS's text, quoted in public issues for DeleteRule and RemoveTargets."""
    return ServiceError("ManagedRuleException", f"{name} is a managed rule. Set 'force' parameter to true to override.",
                        400)


def cannot_delete_default() -> ServiceError:
    return validation("Cannot delete event bus default.")


def bad_target_arn(arn: str) -> ServiceError:
    return validation(f"Parameter {arn} is not valid. Reason: Provided Arn is not in correct format.")


def role_required(target_id: str) -> ServiceError:
    # UNCONFIRMED wording, after AWS's "Parameter(s) SqsParameters must be specified for target".
    return validation(f"Parameter(s) RoleArn must be specified for target: {target_id}.")


def sqs_parameters_required(target_id: str) -> ServiceError:
    return validation(f"Parameter(s) SqsParameters must be specified for target: {target_id}.")


def input_exclusive(target_id: str) -> ServiceError:
    # UNCONFIRMED wording: AWS takes at most one of Input, InputPath and InputTransformer.
    return validation(f"Only one of Input, InputPath, or InputTransformer must be provided for target {target_id}.")


def bad_input_json(target_id: str) -> ServiceError:
    # UNCONFIRMED wording.
    return validation(f"Parameter Input is not valid for target {target_id}: it must be valid JSON.")


def bad_input_path(path: str) -> ServiceError:
    # UNCONFIRMED wording.
    return validation(f"Parameter InputPath is not valid. Reason: {path} is not a valid JSON path.")


def bad_input_paths_map(name: str) -> ServiceError:
    # UNCONFIRMED wording.
    return validation(f"InputPathsMap is not valid. Reason: {name} is not a valid JSON path or is reserved.")


def too_many_targets() -> ServiceError:
    return ServiceError("LimitExceededException", "The requested resource exceeds the maximum number allowed.", 400)


def entries_too_large() -> ServiceError:
    return validation("Total size of the entries in the request is over the limit.")


def invalid_event() -> ServiceError:
    # UNCONFIRMED wording: TestEventPattern's Event lacks a field every event has.
    return validation("Parameter Event is not valid.")


def policy_not_found() -> ServiceError:
    return ServiceError("ResourceNotFoundException", "EventBus does not have a policy.", 400)


def statement_not_found() -> ServiceError:
    return ServiceError("ResourceNotFoundException", "Statement with the provided id does not exist.", 400)


def bad_policy_json() -> ServiceError:
    return validation("This policy contains invalid Json")


def resource_not_found_arn(arn: str) -> ServiceError:
    return ServiceError("ResourceNotFoundException", f"Resource {arn} not found.", 400)
