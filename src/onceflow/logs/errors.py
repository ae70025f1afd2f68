"""CloudWatch Logs errors with AWS's exact messages (all HTTP 400; Logs error shapes carry no members).

Sources: LocalStack parity snapshots recorded against AWS (logs/test_logs_*.snapshot.json, 2026), the
botocore model's documentation, and AWS error texts quoted in public issues where noted.
"""

from __future__ import annotations

from onceflow.errors import ServiceError

MAX_NAME = 512
RETENTION_DAYS = (
    1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
)


def invalid_parameter(message: str) -> ServiceError:
    return ServiceError("InvalidParameterException", message, 400)


def group_not_found() -> ServiceError:
    return ServiceError("ResourceNotFoundException", "The specified log group does not exist.", 400)


def stream_not_found() -> ServiceError:
    return ServiceError("ResourceNotFoundException", "The specified log stream does not exist.", 400)


def group_exists() -> ServiceError:
    return ServiceError("ResourceAlreadyExistsException", "The specified log group already exists", 400)


def stream_exists() -> ServiceError:
    return ServiceError("ResourceAlreadyExistsException", "The specified log stream already exists", 400)


def name_too_long() -> ServiceError:
    return invalid_parameter("Invalid LogGroup or LogStream, both must have length less than or equal to 512.")


def invalid_token() -> ServiceError:
    return invalid_parameter("The specified nextToken is invalid.")


def out_of_order() -> ServiceError:
    return invalid_parameter("Log events in a single PutLogEvents request must be in chronological order.")


def span_too_long() -> ServiceError:
    # Quoted (truncated) from a real AWS error in lincheney/journald-2-cloudwatch#1.
    return invalid_parameter(
        "The batch of log events in a single PutLogEvents request cannot span more than 24 hours."
    )


def upload_too_large(size: int, limit: int) -> ServiceError:
    return invalid_parameter(f"Upload too large: {size} bytes exceeds limit of {limit}")


def name_and_arn_exclusive() -> ServiceError:
    return ServiceError(
        "ValidationException", "LogGroup name and LogGroup ARN are mutually exclusive parameters.", 400
    )


def name_or_arn_required() -> ServiceError:
    # UNCONFIRMED wording: AWS requires exactly one of logGroupName / logGroupIdentifier.
    return invalid_parameter("Should provide either name or arn of log group")


def prefix_and_pattern_exclusive() -> ServiceError:
    return invalid_parameter(
        "LogGroup name prefix and LogGroup name pattern are mutually exclusive parameters."
    )


def order_by_with_prefix() -> ServiceError:
    return invalid_parameter("Cannot order by LastEventTime with a logStreamNamePrefix.")


def stream_names_and_prefix() -> ServiceError:
    # UNCONFIRMED wording; the model documents InvalidParameterException for this combination.
    return invalid_parameter("logStreamNames and logStreamNamePrefix are mutually exclusive parameters.")


def invalid_retention(days: int) -> ServiceError:
    values = ", ".join(str(d) for d in RETENTION_DAYS)
    return invalid_parameter(
        f"1 validation error detected: Value '{days}' at 'retentionInDays' failed to satisfy constraint: "
        f"Member must satisfy enum value set: [{values}]"
    )


def invalid_arn(arn: str) -> ServiceError:
    return invalid_parameter(f"Invalid resource ARN: {arn}")
