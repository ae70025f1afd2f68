"""The AWS errors the wire layer itself answers (before or around an operation), with AWS's codes,
statuses and messages; services' own errors live in their errors.py."""

from __future__ import annotations

from onceflow.errors import ServiceError

CORAL_SERVICE = "com.amazon.coral.service"


def internal_failure() -> ServiceError:
    return ServiceError("InternalFailure", "The request processing has failed because of an unknown error, "
                        "exception or failure.", 500, sender_fault=False)


# A document nested past what Python's parser or a walk's frames allow, wherever a handler met it (a
# policy, a template, a filter inside a string member): a client's mistake, so a 4xx in its
# protocol's generic validation code, never the 500 an uncaught RecursionError would be. The
# services' own parsers refuse the cases they know with their own errors first; AWS's wording for
# the rest is UNCONFIRMED.
TOO_DEEP_CODES = {"query": "ValidationError", "rest-xml": "InvalidArgument"}


def nested_too_deeply(protocol: str) -> ServiceError:
    return ServiceError(TOO_DEEP_CODES.get(protocol, "ValidationException"),
                        "The request holds a document nested too deeply to be read.", 400)


def unknown_operation(message: str = "", status: int = 400) -> ServiceError:
    """A JSON or REST request naming no operation of the model (coral's own code)."""
    return ServiceError("UnknownOperationException", message, status, namespace=CORAL_SERVICE)


def invalid_action(operation: str, api_version: str) -> ServiceError:
    """A query request whose Action the model does not have."""
    return ServiceError("InvalidAction", f"Could not find operation {operation} for version {api_version}", 400)


def missing_action() -> ServiceError:
    return ServiceError("MissingAction", "Missing Action", 400)


def too_large(limit: int, operation: str = "") -> ServiceError:
    where = f" for the {operation} operation" if operation else ""
    return ServiceError("RequestEntityTooLargeException", f"Request must be smaller than {limit} bytes{where}", 413)


def busy(protocol: str) -> ServiceError:
    code = "ServiceUnavailable" if protocol == "query" else "ServiceUnavailableException"
    # SDKs retry a 503 with backoff.
    return ServiceError(code, "onceflow is reading other large requests; retry shortly", 503, sender_fault=False)


def request_timeout() -> ServiceError:
    return ServiceError("RequestTimeout", "Your socket connection to the server was not read from or written to "
                        "within the timeout period.", 408)


def serialization_error(message: str) -> ServiceError:
    return ServiceError("SerializationException", message, 400, namespace=CORAL_SERVICE)


def malformed_query(message: str) -> ServiceError:
    return ServiceError("MalformedInput", message, 400)


def unparseable_rest_json(detail: str) -> ServiceError:
    return ServiceError("InvalidRequestContentException", f"Could not parse request body into json: {detail}", 400)


def access_denied(protocol: str, message: str) -> ServiceError:
    """A refusal by the front door (Host, Origin): query services call it AccessDenied."""
    if protocol == "query":
        return ServiceError("AccessDenied", message, 403)
    return ServiceError("AccessDeniedException", message, 403)


# ---------------------------------------------------------------- authentication (authenticate.py)
MISSING = "Request is missing Authentication Token"
INVALID_TOKEN = "The security token included in the request is invalid."
EXPIRED = "The security token included in the request is expired"
MISMATCH = ("The request signature we calculated does not match the signature you provided. Check your AWS Secret "
            "Access Key and signing method. Consult the service documentation for details.")

# (query code, JSON code) per failure; JSON services answer 400, Lambda and the query services 403.
_AUTH_CODES = {
    "missing": ("MissingAuthenticationToken", "MissingAuthenticationTokenException"),
    "incomplete": ("IncompleteSignature", "IncompleteSignatureException"),
    "invalid": ("InvalidClientTokenId", "UnrecognizedClientException"),
    "mismatch": ("SignatureDoesNotMatch", "InvalidSignatureException"),
    "expired": ("ExpiredToken", "ExpiredTokenException"),
}


def auth_error(kind: str, protocol: str, service: str, message: str) -> ServiceError:
    query_code, json_code = _AUTH_CODES[kind]
    if protocol == "query":
        return ServiceError(query_code, message, 400 if kind == "incomplete" else 403)
    return ServiceError(json_code, message, 403 if service == "lambda" else 400, namespace=CORAL_SERVICE)
