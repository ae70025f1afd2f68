"""InvokeWithResponseStream's event stream, read back with botocore's own decoder."""

from __future__ import annotations

import json

from botocore.eventstream import EventStreamBuffer

from onceflow.lambda_.streaming import response_stream


def decoded(data: bytes) -> list[tuple[str, bytes]]:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return [(m.headers[":event-type"], m.payload) for m in buffer]  # a bad CRC raises here


def test_a_response_is_one_chunk_then_complete() -> None:
    events = decoded(response_stream({"Payload": b'{"a": 1}', "LogResult": "bG9n"}))
    assert events == [("PayloadChunk", b'{"a": 1}'), ("InvokeComplete", b'{"LogResult": "bG9n"}')]


def test_an_error_ends_the_stream() -> None:
    doc = {"errorMessage": "boom", "errorType": "ValueError", "requestId": "r", "stackTrace": []}
    events = decoded(response_stream({"Payload": json.dumps(doc).encode(), "FunctionError": "Unhandled"}))
    assert events == [("InvokeComplete", b'{"ErrorCode": "ValueError", "ErrorDetails": "boom"}')]
    assert decoded(response_stream({"Payload": b""})) == [("InvokeComplete", b"{}")]
