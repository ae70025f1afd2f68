"""Lambda as a task: `arn:aws:states:::lambda:invoke` (the optimized integration, whose result
wraps the payload in AWS's SDK response shape) and a bare function ARN (result = the payload).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from email.utils import formatdate
from typing import Any

from onceflow import internal
from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.asl.paths import to_json
from onceflow.sfn.engine.integrations.calls import handed_over
from onceflow.stack import Stack

log = logging.getLogger(__name__)

# Lambda exceptions the Java SDK v1 models; any other code surfaces as its base class name.
JAVA_EXCEPTIONS = {
    "ResourceNotFoundException", "ServiceException", "TooManyRequestsException", "InvalidParameterValueException",
    "InvalidRequestContentException", "RequestTooLargeException", "ResourceConflictException",
    "UnsupportedMediaTypeException", "ResourceNotReadyException", "InvalidRuntimeException",
    "EC2UnexpectedException", "KMSAccessDeniedException", "InvalidZipFileException", "CodeStorageExceededException",
}
NO_ERROR_TYPE = "The cause could not be determined because Lambda did not return an error type."


def _compact(value: Any) -> str:
    return to_json(value)


def _lambda_error(e: ServiceError) -> StatesError:
    name = e.code if e.code in JAVA_EXCEPTIONS else "AWSLambdaException"
    if e.status >= 500 and e.code not in JAVA_EXCEPTIONS:
        name = "ServiceException"
    rid = uuid.uuid4()
    return StatesError(
        f"Lambda.{name}",
        f"{e.message} (Service: AWSLambda; Status Code: {e.status}; Error Code: {e.code}; Request ID: {rid}; "
        "Proxy: null)",
    )


@contextmanager
def watched_dispatch() -> Iterator[list[str]]:
    """Around a RequestResponse Invoke: the worker pool reports when the invocation is written to
    its worker (the task's hand-over mark) and under which request id (the one Lambda's logs and
    the handler's context show, which the task's result metadata repeats)."""
    from onceflow.lambda_.runtime.pool import DISPATCH_HOOK

    ids: list[str] = []

    def hook(request_id: str) -> None:
        handed_over(request_id)
        ids.append(request_id)

    token = DISPATCH_HOOK.set(hook)
    try:
        yield ids
    finally:
        DISPATCH_HOOK.reset(token)


def synchronous(request: Any) -> bool:
    return isinstance(request, dict) and (request.get("InvocationType") or "RequestResponse") == "RequestResponse"


def call_invoke(stack: Stack, principal: Principal, region: str,
                request: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Invoke, marking the hand-over when the worker gets a synchronous invocation, else (an Event
    is queued at once) before the call. Returns the answer and the invocation's request id."""
    if not synchronous(request):
        handed_over()
        return _call(stack, principal, region, request), None
    with watched_dispatch() as ids:
        out = _call(stack, principal, region, request)
    return out, (ids[-1] if ids else None)


def _call(stack: Stack, principal: Principal, region: str, request: dict[str, Any]) -> dict[str, Any]:
    try:
        return internal.call(stack, principal, "lambda", "Invoke", request, region=region)
    except ServiceError as e:
        raise _lambda_error(e) from None
    except Exception as e:  # an internal failure: what the SDK reports for a 500 from Lambda
        log.exception("lambda invoke from a state machine failed")
        raise StatesError("Lambda.ServiceException", f"{type(e).__name__}: {e} (Service: AWSLambda; Status Code: "
                          f"500; Error Code: ServiceException; Request ID: {uuid.uuid4()}; Proxy: null)") from None


def _body(out: dict[str, Any]) -> bytes:
    body = out.get("Payload", b"")
    if hasattr(body, "read"):
        body = body.read()
    return body.encode() if isinstance(body, str) else bytes(body or b"")


def _payload_bytes(payload: Any) -> bytes:
    return _compact(payload).encode()


def invoke_optimized(stack: Stack, principal: Principal, region: str, params: Any) -> dict[str, Any]:
    if not isinstance(params, dict) or "FunctionName" not in params:
        raise StatesError("States.Runtime", "The field 'FunctionName' is required")
    request: dict[str, Any] = {"FunctionName": params["FunctionName"]}
    if params.get("Payload") is not None:  # a null Payload is sent as no payload at all (the event is {})
        payload = params["Payload"]
        request["Payload"] = payload.encode() if isinstance(payload, str) else _payload_bytes(payload)
    for key in ("InvocationType", "Qualifier", "ClientContext", "LogType"):
        if key in params:
            request[key] = params[key]
    out, request_id = call_invoke(stack, principal, region, request)
    body = _body(out)
    if out.get("FunctionError"):
        raise _function_error(body, compact=True)
    try:
        payload_value: Any = json.loads(body) if body else None
    except ValueError:
        payload_value = body.decode("utf-8", "replace")
    return _shape(out, payload_value, len(body), request_id)


def _shape(out: dict[str, Any], payload: Any, length: int, request_id: str | None) -> dict[str, Any]:
    """The result AWS hands to ResultSelector/ResultPath for lambda:invoke; its request id is the
    invocation's (START RequestId, context.aws_request_id), as on AWS."""
    rid = request_id or str(uuid.uuid4())
    version = out.get("ExecutedVersion", "$LATEST")
    date = formatdate(usegmt=True)
    trace = f"root=1-{uuid.uuid4().hex[:8]}-{uuid.uuid4().hex[:24]};sampled=0"
    headers = {
        "Connection": "keep-alive", "Content-Length": str(length), "Content-Type": "application/json",
        "Date": date, "X-Amz-Executed-Version": version, "x-amzn-Remapped-Content-Length": "0",
        "x-amzn-RequestId": rid, "X-Amzn-Trace-Id": trace,
    }
    log_result = out.get("LogResult")
    if log_result:
        headers["X-Amz-Log-Result"] = log_result
    all_headers = {
        **({"X-Amz-Log-Result": [log_result]} if log_result else {}),
        "X-Amz-Executed-Version": [version], "x-amzn-Remapped-Content-Length": ["0"], "Connection": ["keep-alive"],
        "x-amzn-RequestId": [rid], "Content-Length": [str(length)], "Date": [date], "X-Amzn-Trace-Id": [trace],
        "Content-Type": ["application/json"],
    }
    result: dict[str, Any] = {"ExecutedVersion": version}
    if log_result:
        result["LogResult"] = log_result
    return {
        **result,
        "Payload": payload,
        "SdkHttpMetadata": {
            "AllHttpHeaders": all_headers,
            "HttpHeaders": dict(sorted(headers.items(), key=lambda kv: kv[0].lower())),
            "HttpStatusCode": 200,
        },
        "SdkResponseMetadata": {"RequestId": rid},
        "StatusCode": out.get("StatusCode", 200),
    }


def _function_error(body: bytes, compact: bool) -> StatesError:
    """A handler's error: error = its errorType; cause = the error payload (re-serialized compactly
    by lambda:invoke, passed through as Lambda wrote it for a bare function ARN)."""
    text = body.decode("utf-8", "replace")
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or "errorType" not in doc:
        return StatesError("Lambda.Unknown", NO_ERROR_TYPE)
    return StatesError(str(doc["errorType"]), _compact(doc) if compact else text)


def invoke_bare(stack: Stack, principal: Principal, region: str, function_arn: str, params: Any) -> Any:
    out, _ = call_invoke(stack, principal, region, {"FunctionName": function_arn, "Payload": _payload_bytes(params)})
    body = _body(out)
    if out.get("FunctionError"):
        raise _function_error(body, compact=False)
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body.decode("utf-8", "replace")
