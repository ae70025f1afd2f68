"""`arn:aws:states::::sqs:sendMessage` and `arn:aws:states:::sns:publish` (each also with
`.waitForTaskToken`): the API response plus the SDK metadata AWS adds. A MessageBody or Message
that is not a string is sent as its JSON text, as Step Functions does. Service errors become
`SQS.<Exception>` / `SNS.<Exception>` with the Java SDK's cause format."""

from __future__ import annotations

import json
import uuid
from email.utils import formatdate
from typing import Any

from onceflow.context import Principal
from onceflow.errors import ServiceError
from onceflow.sfn.asl.errors import StatesError
from onceflow.sfn.engine.integrations.calls import call_service, handed_over
from onceflow.stack import Stack

# integration -> (boto3 service, the member whose non-string value is sent as JSON, SDK names)
SERVICES = {
    "sqs": ("sqs", "MessageBody", "SQS", "AmazonSQS", "application/x-amz-json-1.0"),
    "sns": ("sns", "Message", "SNS", "AmazonSNS", "text/xml"),
}
ACTIONS = {"sqs": {"sendMessage"}, "sns": {"publish"}}


def _error(service: str, e: ServiceError) -> StatesError:
    _, _, prefix, sdk, _ = SERVICES[service]
    code = e.code
    if code.startswith("AWS.SimpleQueueService.") or code in ("InvalidParameterValue", "MissingParameter"):
        code = "AmazonSQSException"  # no modeled exception: the SDK's base one
    name = code if code.endswith("Exception") else f"{code}Exception"
    return StatesError(
        f"{prefix}.{name}",
        f"{e.message} (Service: {sdk}; Status Code: {e.status}; Error Code: {e.query_code or e.code}; "
        f"Request ID: {uuid.uuid4()}; Proxy: null)",
    )


def call(stack: Stack, principal: Principal, region: str, service: str, action: str, params: Any) -> dict[str, Any]:
    target, text_member, _, _, content_type = SERVICES[service]
    params = dict(params or {})
    if text_member in params and not isinstance(params[text_member], str):
        params[text_member] = json.dumps(params[text_member], separators=(",", ":"), ensure_ascii=False)
    operation = action[0].upper() + action[1:]
    handed_over()
    try:
        out = call_service(stack, principal, region, target, operation, params)
    except ServiceError as e:
        raise _error(service, e) from None
    rid = str(uuid.uuid4())
    return {**out, **_metadata(service, out, rid, content_type)}


def _metadata(service: str, out: dict[str, Any], rid: str, content_type: str) -> dict[str, Any]:
    """The SDK metadata with the headers AWS recorded in 2024 (test_callback: sqs sendMessage and sns
    publish .waitForTaskToken; 2023's recordings had no connection header). Content-Length is the
    length of the body AWS would have sent: SQS's compact JSON, SNS's PublishResponse document."""
    date = formatdate(usegmt=True)
    if service == "sqs":
        length = str(len(json.dumps(out, separators=(",", ":"), ensure_ascii=False).encode()))
    else:
        sequence = f"\n    <SequenceNumber>{out['SequenceNumber']}</SequenceNumber>" if "SequenceNumber" in out else ""
        body = (f'<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">\n  <PublishResult>\n'
                f"    <MessageId>{out.get('MessageId', '')}</MessageId>{sequence}\n  </PublishResult>\n"
                f"  <ResponseMetadata>\n    <RequestId>{rid}</RequestId>\n  </ResponseMetadata>\n</PublishResponse>\n")
        length = str(len(body.encode()))
    everything = {"x-amzn-RequestId": [rid], "connection": ["keep-alive"], "Content-Length": [length],
                  "Date": [date], "Content-Type": [content_type]}
    headers = {"connection": "keep-alive", "Content-Length": length, "Content-Type": content_type,
               "Date": date, "x-amzn-RequestId": rid}
    return {"SdkHttpMetadata": {"AllHttpHeaders": everything, "HttpHeaders": headers, "HttpStatusCode": 200},
            "SdkResponseMetadata": {"RequestId": rid}}
