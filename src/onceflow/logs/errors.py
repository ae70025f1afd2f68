"""CloudWatch Logs errors with AWS's exact messages (all HTTP 400; Logs error shapes carry no members).

Sources: LocalStack parity snapshots recorded against AWS (logs/test_logs_*.snapshot.json, 2026), the
botocore model's documentation, and AWS error texts quoted in public issues where noted.
"""

from __future__ import annotations

import uuid

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


def resource_not_found() -> ServiceError:
    # UNCONFIRMED wording: TagResource & co. on a destination or delivery resource that does not exist.
    return ServiceError("ResourceNotFoundException", "The specified resource does not exist.", 400)


# ---------------------------------------------------------------------------------- vended logs deliveries
def _not_in_account(what: str) -> ServiceError:
    # Snapshot-recorded on AWS (LocalStack test_logs_delivery, 2026-02) for sources, destinations, deliveries.
    return ServiceError("ResourceNotFoundException", f"Requested {what} does not exist in this account.", 400)


def delivery_source_not_found() -> ServiceError:
    return _not_in_account("Delivery Source")


def delivery_destination_not_found() -> ServiceError:
    return _not_in_account("Delivery Destination")


def delivery_not_found() -> ServiceError:
    return _not_in_account("Delivery")


def source_service_refused() -> ServiceError:
    # Snapshot-recorded on AWS: a resource of a service that cannot be a delivery source (an S3 bucket).
    return ServiceError("ResourceNotFoundException", "Cannot access provided service.", 400)


def validation(message: str) -> ServiceError:
    return ServiceError("ValidationException", message, 400)


def conflict(message: str) -> ServiceError:
    return ServiceError("ConflictException", message, 400)


# ---------------------------------------------------------------------------------- destinations, export tasks
def destination_not_found() -> ServiceError:
    # UNCONFIRMED wording (Logs' "The specified ... does not exist." pattern).
    return ServiceError("ResourceNotFoundException", "The specified destination does not exist.", 400)


def export_task_not_found() -> ServiceError:
    # Snapshot-recorded on AWS (LocalStack test_logs_export_tasks, 2026-02) and moto's aws_verified test.
    return ServiceError("ResourceNotFoundException", "The specified export task does not exist.", 400)


def export_task_finished() -> ServiceError:
    # moto's aws_verified test quotes this message for a task that has already finished.
    return ServiceError("InvalidOperationException", "The specified export task has already finished", 400)


def export_bucket_missing() -> ServiceError:
    # Snapshot-recorded on AWS and moto's aws_verified test.
    return invalid_parameter("The given bucket does not exist. Please make sure the bucket is valid.")


def export_bucket_acl_refused() -> ServiceError:
    # Quoted from AWS in public issues (DistributedScience/Distributed-CellProfiler#144, 2023, as
    # InvalidParameterException; aws/amazon-ecs-agent#5116, 2026, as AccessDeniedException, which the
    # model does not list for CreateExportTask: the modeled one is kept).
    return invalid_parameter(
        "GetBucketAcl call on the given bucket failed. Please check if CloudWatch Logs has been granted "
        "permission to perform this operation."
    )


def export_bucket_put_refused() -> ServiceError:
    # Quoted from AWS in awsdocs/amazon-cloudwatch-logs-user-guide#17 (an errorMessage of a task).
    return invalid_parameter("Please ensure that the CreateExportTask caller has been granted s3:PutObject access "
                             "to the bucket.")


def query_group_not_found(name: str, account: str) -> ServiceError:
    # StartQuery's own wording, snapshot-recorded on AWS (LocalStack test_logs_queries, 2026-02): the text of
    # an inner call's error, its request id included (a fresh one here).
    return ServiceError("ResourceNotFoundException", f"Log group '{name}' does not exist for account ID '{account}' "
                        f"(Service: AWSLogs; Status Code: 400; Error Code: ResourceNotFoundException; Request ID: "
                        f"{uuid.uuid4()}; Proxy: null)", 400)


def deletion_protected() -> ServiceError:
    # UNCONFIRMED wording; DeleteLogGroup's model lists ValidationException since deletion protection came.
    return ServiceError("ValidationException", "Cannot delete a log group that has deletion protection enabled. "
                        "Disable deletion protection first.", 400)
