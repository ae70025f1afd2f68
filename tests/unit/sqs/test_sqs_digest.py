"""MD5OfMessageAttributes as AWS computes it (values checked against an independent
implementation, moto's), and the attribute checks that run before it."""

from __future__ import annotations

import hashlib

import pytest

from onceflow.errors import ServiceError
from onceflow.sqs.digest import md5_of_attributes, md5_of_body
from onceflow.sqs.messages import _selected, check_attributes, make_handle, read_handle


def test_body() -> None:
    assert md5_of_body("héllo") == hashlib.md5("héllo".encode()).hexdigest()


@pytest.mark.parametrize(("attributes", "digest"), [
    ({"a": {"DataType": "String", "StringValue": "x"}}, "a512aac9938034acb0b3c3d965944bf1"),
    ({"raw": {"DataType": "Binary", "BinaryValue": b"\x00\x01\xff"},
      "n": {"DataType": "Number", "StringValue": "42"},
      "color": {"DataType": "String", "StringValue": "blue"}}, "dfd50ab1d166ac4ace1c87e35ac4dfa6"),
])
def test_attributes(attributes: dict, digest: str) -> None:
    assert md5_of_attributes(attributes) == digest


def test_no_attributes_no_digest() -> None:
    assert md5_of_attributes({}) is None


@pytest.mark.parametrize("bad", [
    {"ü": {"DataType": "String", "StringValue": "x"}},
    {"AWS.x": {"DataType": "String", "StringValue": "x"}},
    {"a..b": {"DataType": "String", "StringValue": "x"}},
    {"a": {"DataType": "Text", "StringValue": "x"}},
    {"a": {"DataType": "String", "StringValue": ""}},
    {"a": {"DataType": "Number", "StringValue": "ten"}},
    {"a": {"DataType": "Binary"}},
    {f"k{i}": {"DataType": "String", "StringValue": "x"} for i in range(11)},
])
def test_bad_attributes(bad: dict) -> None:
    with pytest.raises(ServiceError) as exc:
        check_attributes(bad)
    assert exc.value.code == "InvalidParameterValueException" and exc.value.query_code == "InvalidParameterValue"


def test_attribute_name_selection() -> None:
    assert _selected("a.b", ["a.*"]) and _selected("x", ["All"]) and _selected("x", [".*"])
    assert not _selected("b", ["a.*", "c"])


def test_receipt_handles_round_trip_and_refuse_junk() -> None:
    assert read_handle(make_handle(3, 99, "tok"))[:3] == (3, 99, "tok")
    with pytest.raises(ServiceError) as exc:
        read_handle("junk")
    assert exc.value.code == "ReceiptHandleIsInvalid"
