"""Lambda's error codes and exact messages (see aws-semantics.md 2.2; botocore model for statuses).

Lambda's REST-JSON errors carry `Type` ("User" for the caller's mistakes) and a message member whose
case differs per shape: ResourceNotFoundException and ServiceException use `Message`, the others
`message`. The wire layer renders `extra` as the body, so both are put there.
"""

from __future__ import annotations

from collections.abc import Sequence

from onceflow.awsmodels.partitions import partition
from onceflow.errors import JSON_NULL, ServiceError

# Limits of a direct ZipFile upload and of the unpacked code (Lambda quotas).
# The request limit AWS names for a direct upload: a 50 MiB zip base64-encoded plus 256 KiB (recorded
# 2023-11 by LocalStack's aws-validated test_oversized_request_create_lambda, and in users' reports
# since; 69,905,067, the encoded zip alone, is the older figure).
MAX_ZIP_REQUEST_BYTES = 70_167_211
MAX_ZIP_BYTES = 50 * 1024 * 1024
MAX_UNZIPPED_BYTES = 262_144_000
MAX_SYNC_PAYLOAD = 6_291_456
MAX_ASYNC_PAYLOAD = 1_048_576  # raised from 256 KB (Invoke docs: "For asynchronous invocations, ... 1 MB")


def _err(code: str, message: str, status: int, *, capital: bool = False, typed: bool = True) -> ServiceError:
    extra = {"Type": "User" if typed else None, "Message" if capital else "message": message}
    return ServiceError(code, message, status, extra=extra)


def function_arn(region: str, account: str, name: str, qualifier: str | None = None) -> str:
    arn = f"arn:{partition(region)}:lambda:{region}:{account}:function:{name}"
    return f"{arn}:{qualifier}" if qualifier else arn


def function_not_found(arn: str) -> ServiceError:
    return _err("ResourceNotFoundException", f"Function not found: {arn}", 404, capital=True)


def other_region(function_region: str, region: str) -> ServiceError:
    return _err(
        "ResourceNotFoundException",
        f"Functions from '{function_region}' are not reachable in this region ('{region}')",
        404,
        capital=True,
    )


def not_found(message: str, *, typed: bool = True) -> ServiceError:
    return _err("ResourceNotFoundException", message, 404, capital=True, typed=typed)


def alias_not_found(arn: str) -> ServiceError:
    # GetAlias/UpdateAlias: AWS's words (users' get-alias transcripts; Terraform's provider matches on them)
    return _err("ResourceNotFoundException", f"Cannot find alias arn: {arn}", 404, capital=True)


def function_exists(name: str) -> ServiceError:
    return _err("ResourceConflictException", f"Function already exist: {name}", 409)


def alias_exists(arn: str) -> ServiceError:
    return _err("ResourceConflictException", f"Alias already exists: {arn}", 409)


def invalid(message: str, *, typed: bool = True) -> ServiceError:
    """InvalidParameterValueException; `typed=False` for the few answers AWS sends without `Type`."""
    return _err("InvalidParameterValueException", message, 400, typed=typed)


def bad_zip() -> ServiceError:
    return invalid("Could not unzip uploaded file. Please check your file, then try to upload again.")


def unzipped_too_large() -> ServiceError:
    return invalid(f"Unzipped size must be smaller than {MAX_UNZIPPED_BYTES} bytes")


def _upload_too_large(message: str) -> ServiceError:
    """An oversized upload: recorded with neither `Type` nor the modeled `message` member beside the
    error (its words are under `Message`, which the model does not name), unlike Lambda's other errors."""
    return ServiceError("RequestEntityTooLargeException", message, 413,
                        extra={"Type": None, "message": None, "Message": message})  # fmt: skip


def request_too_large(operation: str, limit: int = MAX_ZIP_REQUEST_BYTES) -> ServiceError:
    return _upload_too_large(f"Request must be smaller than {limit} bytes for the {operation} operation")


def zipped_too_large() -> ServiceError:
    return _upload_too_large(f"Zipped size must be smaller than {MAX_ZIP_BYTES} bytes")


def payload_too_large(size: int, invocation_type: str) -> ServiceError:
    if invocation_type == "Event":
        msg = f"{size} byte payload is too large for the Event invocation type (limit {MAX_ASYNC_PAYLOAD} bytes)"
        return _err("RequestEntityTooLargeException", msg, 413)
    # UNCONFIRMED for Invoke: the shape of the same words recorded for CreateFunction, and of a
    # function URL's 413 in a user's transcript ({"Message": ...}, no Type)
    return request_too_large("InvokeFunction", MAX_SYNC_PAYLOAD)


def bad_runtime(value: str, runtimes: Sequence[str]) -> ServiceError:
    return invalid(
        f"Value {value} at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: "
        f"[{', '.join(runtimes)}] or be a valid ARN"
    )


def cross_account_role() -> ServiceError:
    # IAM's PassRole refusal as AWS services answer it for another account's role
    return _err("AccessDeniedException", "Cross-account pass role is not allowed.", 403, capital=True)


def create_in_other_account() -> ServiceError:
    """CreateFunction named with another account's ARN: recorded (test_lambda_api test_function_arns) as
    a 403 AccessDeniedException whose message is null, with no Type. UNCONFIRMED: which member carries
    the null (botocore reads `message`, then `Message`; either gives the recorded null)."""
    return ServiceError("AccessDeniedException", "", 403, extra={"message": None, "Message": JSON_NULL})


def role_cannot_be_assumed() -> ServiceError:
    return invalid("The role defined for the function cannot be assumed by Lambda.")


def no_code() -> ServiceError:
    return invalid("Please provide a source for function code.")


def bad_json_payload(detail: str) -> ServiceError:
    return _err("InvalidRequestContentException", f"Could not parse request body into json: {detail}", 400)


def throttled(reason: str) -> ServiceError:
    err = _err("TooManyRequestsException", "Rate Exceeded.", 429)
    err.extra["Reason"] = reason
    return err


def conflict(message: str) -> ServiceError:
    return _err("ResourceConflictException", message, 409)


def not_invokable(state: str) -> ServiceError:
    """Invoke of a version whose State is not Active (docs: troubleshooting-invocation,
    "Lambda: Operation cannot be performed ResourceConflictException")."""
    return conflict(
        f"The operation cannot be performed at this time. The function is currently in the following state: {state}"
    )


def revision_mismatch(where: str = "GetFunction/GetAlias") -> ServiceError:
    """`where`: the API that names the revision (layer version policies: GetLayerPolicy, recorded)."""
    return _err(
        "PreconditionFailedException",
        "The Revision Id provided does not match the latest Revision Id. "
        f"Call the {where} API to retrieve the latest Revision Id",
        412,
    )
