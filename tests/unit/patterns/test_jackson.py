"""Lambda's Invoke payload check: Jackson's refusals as AWS quotes them (patterns/jackson.py)."""

from __future__ import annotations

import pytest

from onceflow.patterns.jackson import refusal, source_location, text_refusal

VALUES = "(JSON String, Number, Array, Object or token 'null', 'true' or 'false')"


SOURCE = "[Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled)"


def at(line: int, column: int) -> str:
    return f"\n at {SOURCE}; line: {line}, column: {column}]"


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        # Texts AWS answered (reported from real calls); 'Hello World' with its column. The other columns are
        # where Jackson stops on these inputs.
        # Recorded in LocalStack's test_lambda.snapshot.json (test_lambda_invoke_payload_encoding_error).
        (b"n\x87r\x9e\xe9\xb5\xd7I\xee\x9bmt", "Invalid UTF-8 start byte 0x87" + at(1, 3)),
        (
            b"\x99\xeb,j\x07\xa1zYh",
            f"Unexpected character ((CTRL-CHAR, code 153)): expected a valid value {VALUES}" + at(1, 1),
        ),
        (b"Hello World", f"Unrecognized token 'Hello': was expecting {VALUES}" + at(1, 7)),
        (b"test", f"Unrecognized token 'test': was expecting {VALUES}" + at(1, 5)),
        (b"'test'", f"Unexpected character (''' (code 39)): expected a valid value {VALUES}" + at(1, 1)),
        (b"\xb7", f"Unexpected character ('\xb7' (code 183)): expected a valid value {VALUES}" + at(1, 1)),
        (b'"\xe3-"', "Invalid UTF-8 middle byte 0x2d" + at(1, 4)),
        (b'{"q": "\xa7"}', "Invalid UTF-8 start byte 0xa7" + at(1, 9)),
        (
            b"--x",
            "Unexpected character ('-' (code 45)) in numeric value: expected digit (0-9) to follow minus sign, "
            "for valid numeric value" + at(1, 3),
        ),
        (
            b'{"s":""Mike"}',
            "Unexpected character ('M' (code 77)): was expecting comma to separate Object entries" + at(1, 8),
        ),
    ],
)
def test_recorded_refusals(payload: bytes, message: str) -> None:
    assert refusal(payload) == message


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"tru", f"Unrecognized token 'tru': was expecting {VALUES}"),
        (b"truex", f"Unrecognized token 'truex': was expecting {VALUES}"),
        (b"{a:1}", "Unexpected character ('a' (code 97)): was expecting double-quote to start field name"),
        (b'{"a":1,}', "Unexpected character ('}' (code 125)): was expecting double-quote to start field name"),
        (b'{"a" 1}', "Unexpected character ('1' (code 49)): was expecting a colon to separate field name and value"),
        (b"[1,]", "Unexpected character (']' (code 93)): expected a value"),
        (b"[1x]", "Unexpected character ('x' (code 120)): was expecting comma to separate Array entries"),
        (b"1x", "Unexpected character ('x' (code 120)): Expected space separating root-level values"),
        (b'{"a":', "Unexpected end-of-input within/between Object entries"),
        (b'"abc', "Unexpected end-of-input: was expecting closing quote for a string value"),
        (b"01", "Invalid numeric value: Leading zeroes not allowed"),
        (b"1.x", "Unexpected character ('x' (code 120)) in numeric value: Decimal point not followed by a digit"),
        (b'"\\x"', "Unrecognized character escape 'x' (code 120)"),
        (
            b'"a\nb"',
            "Illegal unquoted character ((CTRL-CHAR, code 10)): has to be escaped using backslash to be "
            "included in string value",
        ),
    ],
)
def test_jackson_messages(payload: bytes, message: str) -> None:
    refused = refusal(payload)
    assert refused is not None and refused.split("\n at ")[0] == message


def test_an_unclosed_container_names_where_it_opened() -> None:
    assert refusal(b'\n  {"a":[1') == (
        "Unexpected end-of-input: expected close marker for Array (start marker at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 2, column: 8])" + at(2, 10)
    )
    assert refusal(b'{"a":1]') == (
        "Unexpected close marker ']': expected '}' (for Object starting at [Source: REDACTED "
        "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1])" + at(1, 8)
    )


def test_what_python_takes_and_jackson_does_not() -> None:
    for word in (b"NaN", b"Infinity", b"-Infinity"):
        assert refusal(b"[" + word + b"]") == (
            f"Non-standard token '{word.decode()}': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow"
            + at(1, len(word) + 2)
        )


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"{}",
        b'{"a": [1, -2.5e+3, true, false, null, "\\u00e9\\n"]}',
        '"é€𝄞"'.encode(),
        b"-0",
        b"0.5",
        b'{"a":1} trailing',
        b"   ",
    ],
)
def test_what_jackson_reads(payload: bytes) -> None:
    """Jackson reads one value and stops: what follows a complete value is not its concern."""
    assert refusal(payload) is None


@pytest.mark.parametrize("payload", [b"[" * 100_000, b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1" + b"}" * 3000])
def test_nesting_beyond_jacksons_limit_is_refused_not_crashed(payload: bytes) -> None:
    """Jackson reads 1000 levels at most; deeper documents are refused (and never overflow our stack)."""
    assert refusal(payload) == (
        "Document nesting depth exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)"
    )


def test_a_large_valid_document_is_taken() -> None:
    """A valid 5 MB payload (under Lambda's 6 MB limit) is taken."""
    assert refusal(b'{"k": "' + b"x" * 5_000_000 + b'", "n": [1, 2.5, null]}') is None


def test_nesting_up_to_jacksons_limit_is_taken() -> None:
    assert refusal(b"[" * 1000 + b"]" * 1000) is None
    assert refusal(b"[" * 1001 + b"]" * 1001) is not None


@pytest.mark.parametrize(("text", "refused"), [  # Jackson's String parser, as EventBridge reads a pattern
    ("this is it", ("Unrecognized token 'this': was expecting " + VALUES, 1, 5)),  # [AWS]: the space stays unread
    ("{'bad': 1}", ("Unexpected character (''' (code 39)): was expecting double-quote to start field name", 1, 2)),
    ('{"é":\n x}', ("Unrecognized token 'x': was expecting " + VALUES, 2, 3)),  # columns count characters
    ('{"a": 1}', None),
])
def test_the_string_parser(text: str, refused: tuple[str, int, int] | None) -> None:
    assert text_refusal(text) == refused


def test_the_string_source_is_quoted_whole_up_to_500_characters() -> None:
    assert source_location("[1", 1, 3) == '[Source: (String)"[1"; line: 1, column: 3]'
    assert source_location("x" * 501, 1, 2) == f'[Source: (String)"{"x" * 500}"[truncated 1 chars]; line: 1, column: 2]'
