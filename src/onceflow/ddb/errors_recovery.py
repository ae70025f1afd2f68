"""The messages of backups, point-in-time recovery, exports and imports (split from errors.py by
concept; the same rules: AWS's wording, raised by name)."""

from __future__ import annotations

from onceflow.ddb.errors import ddb_error
from onceflow.errors import ServiceError, validation_error


def backup_table_not_found(name: str) -> ServiceError:
    return ddb_error("TableNotFoundException", f"Table not found: {name}")


def backup_not_found(arn: str) -> ServiceError:
    return ddb_error("BackupNotFoundException", f"Backup not found: {arn}")


def table_already_exists(name: str) -> ServiceError:
    return ddb_error("TableAlreadyExistsException", f"Table already exists: {name}")


def pitr_unavailable(table: str) -> ServiceError:
    return ddb_error("PointInTimeRecoveryUnavailableException",
                     f"Point in time recovery is not enabled for table '{table}'")


def restore_source_missing() -> ServiceError:
    # A modeled-namespace ValidationException, as DynamoDB's own checks answer.
    return ddb_error("ValidationException", "Either SourceTableName or SourceTableArn must be specified")


def restore_time_out_of_range() -> ServiceError:
    # UNCONFIRMED wording: the model's documentation of the exception, no recorded answer found.
    return ddb_error("InvalidRestoreTimeException", "An invalid restore time was specified. RestoreDateTime must be "
                     "between EarliestRestorableDateTime and LatestRestorableDateTime.")


def export_time(message: str = "Export Time is invalid") -> ServiceError:
    # DynamoDB's answer to an ExportTime before the PITR window, as scylladb/scylladb
    # test/alternator/test_export.py quotes it; the incremental-export messages stay UNCONFIRMED.
    return ddb_error("InvalidExportTimeException", message)


EXPORT_FROM_OUTSIDE = "ExportFromTime is outside the point in time recovery window"
INCREMENT_PERIOD = "The incremental export period must be between 15 minutes and 24 hours"
EXPORT_TIME_WITH_INCREMENTAL = "ExportTime cannot be specified for an INCREMENTAL_EXPORT"
EXPORT_FROM_REQUIRED = "IncrementalExportSpecification.ExportFromTime is required for an INCREMENTAL_EXPORT"
ONLY_DYNAMODB_JSON = "Only the DYNAMODB_JSON export format is supported by onceflow"
ZSTD_UNSUPPORTED = "ZSTD input is not supported by onceflow: use GZIP or NONE"


def export_not_found(arn: str) -> ServiceError:
    return ddb_error("ExportNotFoundException", f"Export not found: {arn}")  # UNCONFIRMED wording


def import_not_found(arn: str) -> ServiceError:
    return ddb_error("ImportNotFoundException", f"Import not found: {arn}")  # UNCONFIRMED wording


def input_format_unsupported(fmt: str) -> ServiceError:
    return validation_error(f"Input format {fmt} is not supported by onceflow: use DYNAMODB_JSON or CSV")
