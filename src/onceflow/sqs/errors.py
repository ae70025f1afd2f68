"""SQS's errors: the JSON protocol's code (the model's shape name) with the code the query
protocol used, which AWS still sends in `x-amzn-query-error` and which botocore shows as
the error's Code. Messages are AWS's text."""

from __future__ import annotations

from onceflow.errors import ServiceError

# JSON code -> query (legacy) code, from the SQS query API reference.
QUERY_CODES = {
    "QueueDoesNotExist": "AWS.SimpleQueueService.NonExistentQueue",
    "QueueNameExists": "QueueAlreadyExists",
    "QueueDeletedRecently": "AWS.SimpleQueueService.QueueDeletedRecently",
    "MessageNotInflight": "AWS.SimpleQueueService.MessageNotInflight",
    "InvalidBatchEntryId": "AWS.SimpleQueueService.InvalidBatchEntryId",
    "BatchEntryIdsNotDistinct": "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
    "EmptyBatchRequest": "AWS.SimpleQueueService.EmptyBatchRequest",
    "TooManyEntriesInBatchRequest": "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
    "BatchRequestTooLong": "AWS.SimpleQueueService.BatchRequestTooLong",
    "PurgeQueueInProgress": "AWS.SimpleQueueService.PurgeQueueInProgress",
    "UnsupportedOperation": "AWS.SimpleQueueService.UnsupportedOperation",
    "InvalidParameterValueException": "InvalidParameterValue",
    "MissingRequiredParameterException": "MissingParameter",
}


def sqs_error(code: str, message: str, status: int = 400) -> ServiceError:
    return ServiceError(code, message, status, query_code=QUERY_CODES.get(code, code))


def no_queue() -> ServiceError:
    return sqs_error("QueueDoesNotExist", "The specified queue does not exist.")


def invalid_value(message: str) -> ServiceError:
    return sqs_error("InvalidParameterValueException", message)


def bad_parameter(name: str, value: object, reason: str) -> ServiceError:
    return invalid_value(f"Value {value} for parameter {name} is invalid. Reason: {reason}")


def missing(name: str) -> ServiceError:
    return sqs_error("MissingRequiredParameterException", f"The request must contain the parameter {name}.")


def not_found(message: str) -> ServiceError:
    """A move task's missing queue or task: 404, as AWS answers (LocalStack's AWS-recorded
    test_sqs_move_task snapshots), where SQS's other errors are 400."""
    return sqs_error("ResourceNotFoundException", message, 404)


def no_move_source() -> ServiceError:
    return not_found("The resource that you specified for the SourceArn parameter doesn't exist.")


def invalid_handle(handle: str) -> ServiceError:
    return sqs_error("ReceiptHandleIsInvalid", f'The input receipt handle "{handle}" is not a valid receipt handle.')


def invalid_attribute_name(name: str) -> ServiceError:
    return sqs_error("InvalidAttributeName", f"Unknown Attribute {name}.")


def invalid_attribute_value(name: str) -> ServiceError:
    return sqs_error("InvalidAttributeValue", f"Invalid value for the parameter {name}.")
