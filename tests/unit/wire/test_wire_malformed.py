"""The wire layer's guards against input that would crash or stall what is behind it: JSON
bodies (depth, lone surrogates, non-standard numbers), numbers outside what a member holds,
characters XML cannot carry, and the query form's prefix index."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import botocore.parsers
import pytest
from botocore.awsrequest import HeadersDict
from wire_oracle import spec

from onceflow.errors import ServiceError
from onceflow.wire import json_body, query
from onceflow.wire.json_body import MAX_DEPTH, NotJson
from onceflow.wire.shapes import SerializationError, from_json, from_text
from onceflow.wire.validate import Problems


def nested(levels: int) -> bytes:
    return b'{"a":' * (levels - 1) + b"[1]" + b"}" * (levels - 1)


def test_nesting_up_to_the_limit_parses_and_one_more_level_is_refused() -> None:
    assert json_body.load(nested(MAX_DEPTH)) is not None
    with pytest.raises(SerializationError, match=r"^Document nesting depth exceeds the maximum allowed \(128\)$"):
        json_body.load(nested(MAX_DEPTH + 1))


@pytest.mark.parametrize("levels", [10_000, 1_000_000])
def test_nesting_past_pythons_parser_is_refused_not_a_recursion_error(levels: int) -> None:
    with pytest.raises(SerializationError, match="nesting depth"):
        json_body.load(b"[" * levels + b"]" * levels)


def test_many_shallow_containers_are_fine() -> None:
    body = json.dumps({"Items": [{"k": {"S": str(i)}} for i in range(5000)]}).encode()
    assert len(json_body.load(body)["Items"]) == 5000


@pytest.mark.parametrize("text", ['"\\ud800"', '"\\udc00"', '"a\\uD83Db"', '"\\ude00\\ud83d"', '{"\\ud800": 1}'])
def test_a_lone_surrogate_is_refused(text: str) -> None:
    with pytest.raises(SerializationError, match="lone UTF-16 surrogate"):
        json_body.load(text.encode())


@pytest.mark.parametrize("text", ['"\\ud83d\\ude00"', '"\\\\ud800"', '"plain"', '"\\u00e9"'])
def test_surrogate_pairs_and_escaped_backslashes_are_fine(text: str) -> None:
    assert json_body.load(text.encode()) == json.loads(text)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", '{"a": NaN}', "{", "\xff"])
def test_what_is_not_json_is_not_json(text: str) -> None:
    with pytest.raises(NotJson):
        json_body.load(text.encode("latin-1"))


def _member(service: str, operation: str, name: str) -> Any:
    return spec(service).operations[operation].input_shape.members[name]


INTEGER = ("dynamodb", "Scan", "Limit")  # integer, min 1
LONG = ("logs", "GetLogEvents", "startTime")  # long


def test_integer_members_hold_a_java_int_and_long_members_a_java_long() -> None:
    assert from_json(_member(*INTEGER), 2**31 - 1, "limit", Problems()) == 2**31 - 1
    with pytest.raises(SerializationError, match=r"^Numeric value \(2147483648\) out of range of int"):
        from_json(_member(*INTEGER), 2**31, "limit", Problems())
    assert from_json(_member(*LONG), -(2**63), "startTime", Problems()) == -(2**63)
    with pytest.raises(SerializationError, match=r"out of range of long"):
        from_json(_member(*LONG), 2**63, "startTime", Problems())
    with pytest.raises(SerializationError, match=r"^Numeric value \(9{40}\.\.\.\) out of range of int"):
        from_text(_member(*INTEGER), "9" * 400)


def test_infinity_in_an_integer_member_is_clamped_as_javas_cast_clamps_it() -> None:
    problems = Problems()
    assert from_json(_member(*INTEGER), float("inf"), "limit", problems) == 2**31 - 1
    assert from_json(_member(*INTEGER), float("-inf"), "limit", problems) == -(2**31)
    assert from_json(_member(*LONG), 1e400, "startTime", problems) == 2**63 - 1
    assert from_json(_member(*INTEGER), 2.9, "limit", problems) == 2
    assert problems.items == ["Value '-2147483648' at 'limit' failed to satisfy constraint: "
                                                       "Member must have value greater than or equal to 1"]


def test_double_members_refuse_what_is_no_finite_double() -> None:
    double = spec("dynamodb").model.shape_for("ConsumedCapacityUnits")
    assert double.type_name == "double"
    for bad in (float("inf"), 10**400):
        with pytest.raises(SerializationError, match="out of range of double"):
            from_json(double, bad, "x", Problems())
    for text in ("nan", "inf", "1e400"):
        with pytest.raises(SerializationError):
            from_text(double, text)


def test_xml_escape_replaces_what_xml_cannot_carry_and_keeps_the_rest() -> None:
    text = "a\x00b\x01\x08\x0b\x0c\x0e\x1f\ud800\ufffe\uffff\t\n\r<&>é😀"
    escaped = query.escape(text)
    parsed = ET.fromstring(f"<m>{escaped}</m>".encode()).text
    assert parsed == "a\ufffdb" + "\ufffd" * 9 + "\t\n\r<&>é😀"


def test_botocore_parses_a_query_error_that_quotes_control_characters() -> None:
    err = ServiceError("ValidationError", "Value 'bad\x01\x02name' at 'roleName' failed to satisfy constraint", 400)
    response = query.render_error(spec("iam"), err, "req-1")
    parsed = botocore.parsers.create_parser("query").parse(
        {"status_code": 400, "headers": HeadersDict({}), "body": response.body},
        spec("iam").operations["CreateRole"].output_shape)
    assert parsed["Error"] == {"Type": "Sender", "Code": "ValidationError",
                               "Message": "Value 'bad\ufffd\ufffdname' at 'roleName' failed to satisfy constraint"}


def test_the_form_knows_every_dotted_prefix_of_its_fields() -> None:
    form = query.Form({"Tags.member.1.Key": "k", "RoleName": "r"})
    assert form.prefixes == {"Tags", "Tags.member", "Tags.member.1", "Tags.member.1.Key", "RoleName"}
    assert "Tags.member.1.Key" in form and "Tags.member" not in form


def test_ten_thousand_form_list_items_parse_into_one_list() -> None:
    op = spec("iam").operations["CreateRole"]
    fields = {"RoleName": "r", "AssumeRolePolicyDocument": "{}"}
    for i in range(1, 10_001):
        fields[f"Tags.member.{i}.Key"] = f"k{i}"
        fields[f"Tags.member.{i}.Value"] = "v"
    with pytest.raises(ServiceError) as info:
        query.parse(spec("iam"), op, fields, "ValidationError")
    assert info.value.message.startswith("1 validation error detected: Value '[{Key=k1, Value=v}, {Key=k2, Value=v}")
    assert "{Key=k10000, Value=v}]' at 'tags'" in info.value.message
