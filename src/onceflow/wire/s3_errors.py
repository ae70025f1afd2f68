"""The S3 errors its wire path answers itself (signatures, bodies, paths), in S3's own codes and
messages; the bucket and object rules' errors are s3/errors.py's."""

from __future__ import annotations

from onceflow.errors import ServiceError

SIGNATURE_MISMATCH = ("The request signature we calculated does not match the signature you provided. Check your "
                      "key and signing method.")
# The codes S3 gives where the other services' authentication errors say otherwise.
AUTH_CODES = {
    "InvalidSignatureException": ("SignatureDoesNotMatch", 403),
    "UnrecognizedClientException": ("InvalidAccessKeyId", 403),
    "MissingAuthenticationTokenException": ("AccessDenied", 403),
    "IncompleteSignatureException": ("AuthorizationHeaderMalformed", 400),
    "ExpiredTokenException": ("ExpiredToken", 400),
}
AUTH_MESSAGES = {
    "InvalidAccessKeyId": "The AWS Access Key Id you provided does not exist in our records.",
    "AccessDenied": "Access Denied",
    "ExpiredToken": "The provided token has expired.",
}


def in_s3_words(err: ServiceError) -> ServiceError:
    """An authentication error of the shared wire path as S3 words it."""
    code, status = AUTH_CODES.get(err.code, (err.code, err.status))
    return ServiceError(code, AUTH_MESSAGES.get(code, err.message), status)


def internal_error() -> ServiceError:
    return ServiceError("InternalError", "We encountered an internal error. Please try again.", 500,
                        sender_fault=False)


def access_denied(message: str, **extra: object) -> ServiceError:
    return ServiceError("AccessDenied", message, 403, extra=dict(extra))


def key_too_long(size: int) -> ServiceError:
    return ServiceError("KeyTooLongError", "Your key is too long", 400, extra={"MaxSizeAllowed": 1024, "Size": size})


def method_not_allowed(method: str, resource_type: str) -> ServiceError:
    return ServiceError("MethodNotAllowed", "The specified method is not allowed against this resource.", 405,
                        extra={"Method": method, "ResourceType": resource_type})


def not_implemented(operation: str) -> ServiceError:
    return ServiceError("NotImplemented", f"onceflow does not implement the S3 operation {operation} yet", 501,
                        sender_fault=False)


def malformed_signature(in_header: bool, detail: str) -> ServiceError:
    code = "AuthorizationHeaderMalformed" if in_header else "AuthorizationQueryParametersError"
    return ServiceError(code, detail, 400)


def expires_too_late() -> ServiceError:
    return ServiceError("AuthorizationQueryParametersError", "X-Amz-Expires must be less than a week (in seconds) "
                        "that is 604800", 400)


def missing_content_sha256() -> ServiceError:
    return ServiceError("InvalidRequest", "Missing required header for this request: x-amz-content-sha256", 400)


def signature_mismatch(message: str = SIGNATURE_MISMATCH, **extra: object) -> ServiceError:
    return ServiceError("SignatureDoesNotMatch", message, 403, extra=dict(extra))


def missing_content_length() -> ServiceError:
    return ServiceError("MissingContentLength", "You must provide the Content-Length HTTP header.", 411)


def too_big() -> ServiceError:
    return ServiceError("MaxMessageLengthExceeded", "Your request was too big.", 400)


def request_timeout() -> ServiceError:
    return ServiceError("RequestTimeout", "Your socket connection to the server was not read from or written to "
                        "within the timeout period. Idle connections will be closed.", 400)


def content_sha256_mismatch(**extra: object) -> ServiceError:
    return ServiceError("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what "
                        "was computed.", 400, extra=dict(extra))


def incomplete_body() -> ServiceError:
    return ServiceError("IncompleteBody", "You did not provide the number of bytes specified by the Content-Length "
                        "HTTP header", 400)


def bad_chunk(detail: str) -> ServiceError:
    return ServiceError("InvalidRequest", f"Invalid chunked upload: {detail}", 400)


def invalid_argument(header: str, detail: str) -> ServiceError:
    return ServiceError("InvalidArgument", f"Invalid value for {header}: {detail}", 400)


def malformed_xml() -> ServiceError:
    return ServiceError("MalformedXML", "The XML you provided was not well-formed or did not validate against our "
                        "published schema", 400)
