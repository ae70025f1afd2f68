"""Step Functions API errors with AWS's exact codes and messages (HTTP 400 unless noted)."""

from __future__ import annotations

from onceflow.errors import ServiceError


def _err(code: str, message: str, status: int = 400) -> ServiceError:
    return ServiceError(code, message, status)


def invalid_arn(value: str) -> ServiceError:
    return _err("InvalidArn", f"Invalid Arn: 'Invalid ARN prefix: {value}'")


def invalid_arn_reason(reason: str) -> ServiceError:
    return _err("InvalidArn", f"Invalid Arn: '{reason}'")


def state_machine_does_not_exist(arn: str) -> ServiceError:
    return _err("StateMachineDoesNotExist", f"State Machine Does Not Exist: '{arn}'")


def state_machine_already_exists(arn: str) -> ServiceError:
    return _err("StateMachineAlreadyExists", f"State Machine Already Exists: '{arn}'")


def execution_does_not_exist(arn: str) -> ServiceError:
    return _err("ExecutionDoesNotExist", f"Execution Does Not Exist: '{arn}'")


def execution_already_exists(arn: str) -> ServiceError:
    return _err("ExecutionAlreadyExists", f"Execution Already Exists: '{arn}'")


def invalid_name(name: str) -> ServiceError:
    return _err("InvalidName", f"Invalid Name: '{name}'")


def invalid_definition(message: str) -> ServiceError:
    return _err("InvalidDefinition", f"Invalid State Machine Definition: '{message}'")


def test_state_needs_mock() -> ServiceError:
    """TestState runs no Map iteration or Parallel branch: such a state needs a mock (AWS's
    recorded wording, bare: not "Invalid State Machine Definition: '...'")."""
    return _err("InvalidDefinition", "TestState API does not support Map or Parallel states. "
                "Supported state types include: [Task, Wait, Pass, Succeed, Fail, Choice]")


def test_state_pattern_needs_mock() -> ServiceError:
    """TestState waits on no job or callback: the API reference supports '.sync' and
    '.waitForTaskToken' tasks "only when a mock is specified". The code is the one AWS answers the
    same list's Map and Parallel with; the wording is UNCONFIRMED (no AWS recording found)."""
    return _err("InvalidDefinition", "TestState API does not support the '.sync' or '.waitForTaskToken' service "
                "integration patterns unless a mock is specified")


def invalid_execution_input(detail: str) -> ServiceError:
    return _err("InvalidExecutionInput", f"Invalid State Machine Execution Input: '{detail}'")


def invalid_output(detail: str) -> ServiceError:
    return _err("InvalidOutput", f"Invalid State Machine Execution Output: '{detail}'")


def task_does_not_exist(message: str = "Task Timed Out: 'Provided task does not exist anymore'") -> ServiceError:
    return _err("TaskTimedOut", message)


def invalid_page_token(token: str) -> ServiceError:
    """A listing's nextToken that onceflow did not issue (the page-token form kept from before)."""
    return _err("InvalidToken", f"Invalid Token: '{token}'")


def invalid_token() -> ServiceError:
    # [AWS] the quoted part is AWS's reason, not the token: SendTaskFailure/SendTaskSuccess with
    # taskToken="bad_token" answer "Invalid Token: 'Invalid token'" (recorded against AWS in moto's
    # aws_verified test_send_task_failure_invalid_token).
    return _err("InvalidToken", "Invalid Token: 'Invalid token'")


def resource_not_found(arn: str) -> ServiceError:
    return _err("ResourceNotFound", f"Resource not found: '{arn}'")


def nothing_to_update() -> ServiceError:
    # [AWS] UpdateStateMachine with none of its fields answers MissingRequiredParameter (recorded in
    # LocalStack's AWS-validated test_sfn_api snapshot, test_create_update_state_machine_base_update_none).
    # That 2023 recording predates EncryptionConfiguration and names four fields; the wording with
    # the fifth is UNCONFIRMED.
    return _err("MissingRequiredParameter", "Either the definition, the role ARN, the LoggingConfiguration, the "
                "EncryptionConfiguration or the TracingConfiguration must be specified")


def validation(message: str) -> ServiceError:
    return _err("ValidationException", message)


def execution_not_redrivable(message: str) -> ServiceError:
    return _err("ExecutionNotRedrivable", message)


def invalid_logging(message: str) -> ServiceError:
    return _err("InvalidLoggingConfiguration", message)


def too_many_tags(arn: str) -> ServiceError:
    return ServiceError("TooManyTags", "Too many tags", 400, extra={"resourceName": arn})


def state_machine_type_not_supported(message: str) -> ServiceError:
    return _err("StateMachineTypeNotSupported", message)
