"""The pure parts of DeadLetterConfig: what is a target, the attributes, the error message."""

from __future__ import annotations

import pytest

from onceflow.errors import ServiceError
from onceflow.lambda_ import dead_letter

QUEUE = "arn:aws:sqs:us-east-1:000000000000:dlq"


class Iam:
    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed

    def role_allows(self, account: str, role: str, action: str, resource: str) -> bool:
        return action in self.allowed


def test_target_and_render() -> None:
    assert dead_letter.target_of({"TargetArn": QUEUE}) == QUEUE
    assert dead_letter.target_of({"TargetArn": ""}) is None and dead_letter.target_of(None) is None
    assert dead_letter.render({"TargetArn": QUEUE}) == {"TargetArn": QUEUE}
    assert dead_letter.render({"TargetArn": ""}) is None


def test_check() -> None:
    role = "arn:aws:iam::000000000000:role/r"
    dead_letter.check({"TargetArn": QUEUE}, "000000000000", role, Iam({"sqs:SendMessage"}))
    dead_letter.check({"TargetArn": ""}, "000000000000", role, Iam(set()))  # removing it needs nothing
    with pytest.raises(ServiceError) as info:
        dead_letter.check({"TargetArn": QUEUE}, "000000000000", role, Iam({"sns:Publish"}))
    assert info.value.message == "The provided execution role does not have permissions to call SendMessage on SQS"
    with pytest.raises(ServiceError) as info:
        dead_letter.check({"TargetArn": "arn:aws:lambda:us-east-1:000000000000:function:f"}, "000000000000",
                          role, None)  # fmt: skip
    assert info.value.code == "InvalidParameterValueException"


def test_attributes_and_message() -> None:
    long = "x" * 2000
    attrs = dead_letter.attributes("req-1", long)
    assert attrs["RequestID"] == {"DataType": "String", "StringValue": "req-1"}
    assert attrs["ErrorCode"] == {"DataType": "Number", "StringValue": "200"}
    assert attrs["ErrorMessage"]["StringValue"] == "x" * dead_letter.MAX_ERROR_MESSAGE
    assert "ErrorMessage" not in dead_letter.attributes("req-1", None)
    assert dead_letter.error_message(b'{"errorMessage": "boom", "errorType": "E"}') == "boom"
    assert dead_letter.error_message(b'{"other": 1}') == '{"other":1}'
    assert dead_letter.error_message(b"\xff not json") == "\ufffd not json" and dead_letter.error_message(b"") is None
